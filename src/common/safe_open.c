/*
 * Opening files wasp writes (see safe_open.h). Not for signal handlers.
 */
#include "common/safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int wasp_check_link_owner(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        return 0;
    if (st.st_uid == geteuid() || st.st_uid == 0)
        return 0;
    snprintf(err, errlen,
             "%s is a symbolic link owned by another user (uid %u); wasp does not write "
             "through it",
             path, (unsigned)st.st_uid);
    return -1;
}

static int open_for_writing(const char *path, int mode_flag, char *err, size_t errlen)
{
    if (wasp_check_link_owner(path, err, errlen) != 0)
        return -1;
    struct stat st;
    /* A trusted link is followed; anything else must not become a link
     * between the check and the open (O_NOFOLLOW fails then). */
    int follow = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
    /* Truncate only a regular file: a device or pipe is written as it is. */
    if (mode_flag == O_TRUNC && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        mode_flag = 0;
    int fd = open(path, O_WRONLY | mode_flag | O_CREAT | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
                  0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path,
                 errno == ELOOP ? "it became a symbolic link" : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 ||
        !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        snprintf(err, errlen, "%s is not a regular file, device or pipe", path);
        close(fd);
        return -1;
    }
    return fd;
}

int wasp_open_append(const char *path, char *err, size_t errlen)
{
    return open_for_writing(path, O_APPEND, err, errlen);
}

int wasp_open_replace(const char *path, char *err, size_t errlen)
{
    return open_for_writing(path, O_TRUNC, err, errlen);
}

/* ------------------------------------------------------------------ */
/* Whole files: atomically to a regular file, as it is into a stream   */

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

static int open_temp(const char *tmp, mode_t mode)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0 && errno == EEXIST) {
        /* Left behind by a dead process with our pid, or planted (a link, a
         * hard link to someone's file): removing the name touches neither. */
        if (unlink(tmp) == 0)
            fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        else
            errno = EEXIST;
    }
    return fd;
}

/* Into a device or a pipe, as it is. */
static int write_stream(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = write_all(fd, data, len);
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

/* What classify_target saw at the name the temporary replaces: its file,
 * or nothing (absent), so that the rename replaces only that. */
typedef struct seen_target {
    int absent;
    dev_t dev;
    ino_t ino;
} seen_target;

/* What path is: 0 a regular file or nothing yet (write atomically to
 * *target, the file a link of ours names, or to path when NULL; *seen says
 * which), 1 a device or pipe (write into it), -1 refused (err says why). */
static int classify_target(const char *path, unsigned flags, char **target, seen_target *seen,
                           char *err, size_t errlen)
{
    *target = NULL;
    seen->absent = 1;
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
    if (S_ISREG(st.st_mode)) {
        seen->absent = 0;
        seen->dev = st.st_dev;
        seen->ino = st.st_ino;
        return 0;
    }
    if ((S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) && !(flags & WASP_WRITE_REGULAR_ONLY))
        return 1;
    snprintf(err, errlen, "%s is %s; wasp writes %s", path,
             S_ISDIR(st.st_mode)   ? "a directory"
             : S_ISBLK(st.st_mode) ? "a block device"
             : S_ISCHR(st.st_mode) ? "a device"
             : S_ISFIFO(st.st_mode) ? "a pipe"
                                    : "not a regular file",
             flags & WASP_WRITE_REGULAR_ONLY ? "only a regular file there"
                                             : "a regular file, a device or a pipe");
    return -1;
}

/* Puts tmp in path's place, replacing only what classify_target saw there:
 * a name that was free is taken without replacing (RENAME_NOREPLACE, or a
 * hard link where the file system lacks it), so that a file, link, device
 * or pipe someone put there meanwhile stays; a regular file is replaced
 * only while it is still the one seen (checked just before the rename, the
 * window left being between two system calls). 0, or -1 with errno set
 * (EEXIST: the name changed). */
static int replace_seen(const char *tmp, const char *path, const seen_target *seen)
{
    if (seen->absent) {
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
            return 0;
        if (errno != EINVAL && errno != ENOSYS)
            return -1;
        if (link(tmp, path) == 0) {
            unlink(tmp);
            return 0;
        }
        if (errno == EEXIST)
            return -1;
        /* Neither (a file system without hard links): a plain rename. */
    } else {
        struct stat st;
        if (lstat(path, &st) == 0 &&
            (!S_ISREG(st.st_mode) || st.st_dev != seen->dev || st.st_ino != seen->ino)) {
            errno = EEXIST;
            return -1;
        }
    }
    return rename(tmp, path);
}

int wasp_write_file(const char *path_asked, const void *data, size_t len, unsigned flags,
                    char *err, size_t errlen)
{
    char *resolved;
    seen_target seen = {.absent = 1};
    int kind = classify_target(path_asked, flags, &resolved, &seen, err, errlen);
    if (kind != 0)
        return kind == 1 ? write_stream(path_asked, data, len, err, errlen) : -1;
    const char *path = resolved ? resolved : path_asked;
    size_t tlen = strlen(path) + 32;
    char *tmp = malloc(tlen);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        free(resolved);
        return -1;
    }
    snprintf(tmp, tlen, "%s.tmp.%ld", path, (long)getpid());

    int rc = -1, fd = open_temp(tmp, flags & WASP_WRITE_PRIVATE ? 0600 : 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
    } else {
        const char *what = NULL;
        if (write_all(fd, data, len) != 0)
            what = "write";
        else if ((flags & WASP_WRITE_DURABLE) && fsync(fd) != 0)
            what = "fsync";
        int saved = errno;
        if (close(fd) != 0 && !what) {
            what = "close";
            saved = errno;
        }
        if (!what && replace_seen(tmp, path, &seen) != 0) {
            what = "rename";
            saved = errno;
        }
        if (what) {
            if (!strcmp(what, "rename") && saved == EEXIST)
                snprintf(err, errlen,
                         "%s changed while wasp wrote it (something else was put there); "
                         "not replaced, the new contents are not kept",
                         path);
            else if (!strcmp(what, "rename"))
                snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(saved));
            else
                snprintf(err, errlen, "cannot %s %s: %s", what, tmp, strerror(saved));
            unlink(tmp);
        } else {
            if (flags & WASP_WRITE_DURABLE)
                sync_dir(path);
            rc = 0;
        }
    }
    free(tmp);
    free(resolved);
    return rc;
}
