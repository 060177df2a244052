/*
 * Opening files wasp writes without being tricked into writing elsewhere: a
 * symbolic link is followed only when the user running wasp (or root) owns
 * it — a link another user planted in a shared directory such as /tmp is
 * refused, as the kernel's protected_symlinks does for sticky directories.
 * Not for signal handlers.
 */
#ifndef WASP_SAFE_OPEN_H
#define WASP_SAFE_OPEN_H

#include <stddef.h>

/* Open path for appending, creating a regular file (mode 0644 less the
 * umask) when it does not exist. An existing regular file, character device
 * (/dev/null, a terminal) or FIFO is appended to as it is. Returns a file
 * descriptor (O_CLOEXEC), or -1 with a one-line reason in err. */
int wasp_open_append(const char *path, char *err, size_t errlen);

/* The same, but an existing regular file is truncated (a report file). */
int wasp_open_replace(const char *path, char *err, size_t errlen);

/* 0 when path may be written through: not a symbolic link, or one owned by
 * the effective user or root; else -1 with the reason in err. A missing path
 * is fine. */
int wasp_check_link_owner(const char *path, char *err, size_t errlen);

#endif
