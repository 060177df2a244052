/*
 * Opening files wasp writes (see safe_open.h). Not for signal handlers.
 */
#include "common/safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
