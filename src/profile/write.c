/*
 * Atomic profile write: the bytes go to PATH.tmp.<pid> in the same directory
 * (same file system, so rename is atomic), are fsynced, then renamed over
 * PATH. A reader sees the old file or the new one, never half of one; on any
 * failure the temporary is removed and PATH is untouched.
 */
#include "profile/codec.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int wasp_profile_write(const wasp_profile *p, const char *path, char *err, size_t errlen)
{
    wasp_wbuf b = {0};
    if (wasp_profile_encode(p, &b, err, errlen) != 0) {
        wasp_wbuf_free(&b);
        return -1;
    }
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
    wasp_wbuf_free(&b);
    return rc;
}
