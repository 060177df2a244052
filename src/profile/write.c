/*
 * Profile write. To a regular file (or a new one), atomically: the bytes go
 * to PATH.tmp.<pid> in the same directory (same file system, so rename is
 * atomic; created with O_EXCL, so never through a planted link), are
 * fsynced, then renamed over PATH. A reader sees the old file or the new
 * one, never half of one; on any failure the temporary is removed and PATH
 * is untouched. Into a character device or a pipe (-o /dev/null,
 * /dev/stdout), directly: the device stays a device. Anything else — a
 * directory, a block device, a socket, another user's symbolic link — is
 * refused. A link of ours is followed: the file it names is replaced, not
 * the link.
 */
#include "profile/codec.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/safe_open.h"

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = EIO;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Best effort: makes the rename itself durable. The new file is already in
 * place, so a failure here is not reported. */
static void sync_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(copy);
}

static int open_temp(const char *tmp)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) {
        /* Left behind by a dead process with our pid; ours to replace. */
        if (unlink(tmp) == 0)
            fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        else
            errno = EEXIST;
    }
    return fd;
}

/* Into a device or a pipe, as it is. */
static int write_stream(const char *path, const wasp_wbuf *b, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = write_all(fd, b->data, b->len);
    int saved = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
    return rc;
}

/* Where the symbolic link path points (joined to its directory when
 * relative); NULL when unreadable. Caller frees. */
static char *link_target(const char *path)
{
    char to[4096];
    ssize_t n = readlink(path, to, sizeof to - 1);
    if (n <= 0)
        return NULL;
    to[n] = 0;
    if (to[0] == '/')
        return strdup(to);
    char *copy = strdup(path);
    if (!copy)
        return NULL;
    size_t len = strlen(copy) + (size_t)n + 2;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s/%s", dirname(copy), to);
    free(copy);
    return out;
}

/* What PATH is: 0 a regular file or nothing yet (write atomically to
 * *target, the file a link of ours names), 1 a device or pipe (write into
 * it), -1 refused (err says why). */
static int classify_target(const char *path, char **target, char *err, size_t errlen)
{
    *target = NULL;
    if (wasp_check_link_owner(path, err, errlen) != 0)
        return -1;
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (S_ISLNK(st.st_mode)) {
        if (stat(path, &st) != 0) {
            *target = link_target(path); /* dangling: the file it names is created */
            return 0;
        }
        if (S_ISREG(st.st_mode))
            *target = realpath(path, NULL);
    }
    if (S_ISREG(st.st_mode))
        return 0;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
        return 1;
    snprintf(err, errlen, "%s is %s; the profile goes to a regular file, a device or a pipe", path,
             S_ISDIR(st.st_mode) ? "a directory" : S_ISBLK(st.st_mode) ? "a block device"
                                                                        : "not a regular file");
    return -1;
}

int wasp_profile_write(const wasp_profile *p, const char *path_asked, char *err, size_t errlen)
{
    wasp_wbuf b = {0};
    if (wasp_profile_encode(p, &b, err, errlen) != 0) {
        wasp_wbuf_free(&b);
        return -1;
    }
    char *resolved;
    int kind = classify_target(path_asked, &resolved, err, errlen);
    if (kind != 0) {
        int rc = kind == 1 ? write_stream(path_asked, &b, err, errlen) : -1;
        wasp_wbuf_free(&b);
        return rc;
    }
    const char *path = resolved ? resolved : path_asked;
    size_t tlen = strlen(path) + 32;
    char *tmp = malloc(tlen);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        wasp_wbuf_free(&b);
        return -1;
    }
    snprintf(tmp, tlen, "%s.tmp.%ld", path, (long)getpid());

    int rc = -1, fd = open_temp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
    } else {
        const char *what = NULL;
        if (write_all(fd, b.data, b.len) != 0)
            what = "write";
        else if (fsync(fd) != 0)
            what = "fsync";
        int saved = errno;
        if (close(fd) != 0 && !what) {
            what = "close";
            saved = errno;
        }
        if (!what && rename(tmp, path) != 0) {
            what = "rename";
            saved = errno;
        }
        if (what) {
            if (!strcmp(what, "rename"))
                snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(saved));
            else
                snprintf(err, errlen, "cannot %s %s: %s", what, tmp, strerror(saved));
            unlink(tmp);
        } else {
            sync_dir(path);
            rc = 0;
        }
    }
    free(tmp);
    free(resolved);
    wasp_wbuf_free(&b);
    return rc;
}
