/* Reads a profile file whole, then hands the bytes to the decoder. */
#include "profile/codec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole file in a malloc'd buffer; NULL with errno set on failure. */
static unsigned char *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        errno = EISDIR;
        return NULL;
    }
    /* st_size is a hint only (pipes, /proc): grow as needed. */
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 65536, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            unsigned char *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                free(buf);
                buf = NULL;
                errno = ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            free(buf);
            buf = NULL;
            errno = e;
            break;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    int e = errno;
    close(fd);
    errno = e;
    *len = n;
    return buf;
}

wasp_profile *wasp_profile_read(const char *path, char *err, size_t errlen)
{
    size_t len = 0;
    unsigned char *data = slurp(path, &len);
    if (!data) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    wasp_profile *p = wasp_profile_decode(data, len, err, errlen);
    free(data);
    return p;
}
