/*
 * Reads a profile file whole, then hands the bytes to the decoder. The input
 * is bounded, so a wrong path cannot take the machine's memory or hang the
 * reader: a regular file larger than WASP_PROFILE_MAX_BYTES is refused before
 * any byte is read, a pipe is read for at most that many bytes plus one, a
 * stream that does not start with the magic is refused after 8 bytes, and any
 * other kind of file (directory, device, socket) is refused unopened.
 */
#include "profile/codec.h"
#include "profile/format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest profile accepted (docs/profile-format.md). Profiles are KBs to
 * a few MB; decoding takes a few times the file's size in memory. */
#define WASP_PROFILE_MAX_BYTES ((size_t)256 << 20)
#define WASP_PROFILE_MAX_TEXT "256 MiB"
enum { FIRST_PIPE_BUFFER = 65536 };

static const char *kind_of(mode_t mode)
{
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/* 0 if st is something a profile can be read from, else -1 with err set. */
static int check_kind(const struct stat *st, char *err, size_t errlen)
{
    if (S_ISDIR(st->st_mode)) {
        snprintf(err, errlen, "%s", strerror(EISDIR));
        return -1;
    }
    if (!S_ISREG(st->st_mode) && !S_ISFIFO(st->st_mode)) {
        snprintf(err, errlen, "%s, not a regular file or a pipe", kind_of(st->st_mode));
        return -1;
    }
    if (S_ISREG(st->st_mode) && (unsigned long long)st->st_size > WASP_PROFILE_MAX_BYTES) {
        snprintf(err, errlen, "too large (%.1f MiB): a profile is at most " WASP_PROFILE_MAX_TEXT,
                 (double)st->st_size / (1 << 20));
        return -1;
    }
    return 0;
}

/* Reads fd to its end into *buf (capacity *cap), growing it up to the
 * limit plus one byte. The number of bytes read, or -1 with err set. */
static ssize_t read_bounded(int fd, unsigned char **buf, size_t *cap, char *err, size_t errlen)
{
    size_t n = 0;
    for (;;) {
        if (n == *cap) {
            if (n > WASP_PROFILE_MAX_BYTES) {
                snprintf(err, errlen,
                         "more than " WASP_PROFILE_MAX_TEXT " and not ended: a profile is at most "
                         WASP_PROFILE_MAX_TEXT);
                return -1;
            }
            size_t want = *cap * 2; /* no overflow: *cap <= the limit */
            if (want > WASP_PROFILE_MAX_BYTES + 1)
                want = WASP_PROFILE_MAX_BYTES + 1;
            unsigned char *nb = realloc(*buf, want);
            if (!nb) {
                snprintf(err, errlen, "%s", strerror(ENOMEM));
                return -1;
            }
            *buf = nb;
            *cap = want;
        }
        ssize_t k = read(fd, *buf + n, *cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            snprintf(err, errlen, "%s", strerror(errno));
            return -1;
        }
        if (k == 0)
            return (ssize_t)n;
        n += (size_t)k;
        /* Not a profile: the decoder says so from the first bytes alone, so
         * an endless stream of anything else is not read on. */
        if (n >= WASP_PROF_MAGIC_LEN && memcmp(*buf, WASP_PROF_MAGIC, WASP_PROF_MAGIC_LEN) != 0)
            return (ssize_t)n;
    }
}

/* The file in a malloc'd buffer; NULL with err set on failure. The kind and
 * size are checked before opening (opening a device can do things) and again
 * on what was opened. */
static unsigned char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    if (check_kind(&st, err, errlen) != 0)
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    unsigned char *buf = NULL;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
    } else if (check_kind(&st, err, errlen) == 0) {
        /* One byte more than a regular file's size, so its end is seen
         * without growing; st_size of a pipe means nothing. */
        size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : FIRST_PIPE_BUFFER;
        buf = malloc(cap);
        ssize_t n = -1;
        if (!buf)
            snprintf(err, errlen, "%s", strerror(ENOMEM));
        else
            n = read_bounded(fd, &buf, &cap, err, errlen);
        if (n < 0) {
            free(buf);
            buf = NULL;
        } else {
            *len = (size_t)n;
        }
    }
    close(fd);
    return buf;
}

wasp_profile *wasp_profile_read(const char *path, char *err, size_t errlen)
{
    size_t len = 0;
    unsigned char *data = slurp(path, &len, err, errlen);
    if (!data)
        return NULL;
    wasp_profile *p = wasp_profile_decode(data, len, err, errlen);
    free(data);
    return p;
}
