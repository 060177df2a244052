/*
 * Opening files wasp writes without being tricked into writing elsewhere: a
 * symbolic link is followed only when the user running wasp (or root) owns
 * it — a link another user planted in a shared directory such as /tmp is
 * refused, as the kernel's protected_symlinks does for sticky directories.
 * Every file wasp or its agent writes goes through here: the log and
 * reports (wasp_open_*), the profile and the attach progress file
 * (wasp_write_file). Not for signal handlers.
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

/* How wasp_write_file writes. */
enum {
    WASP_WRITE_DURABLE = 1,      /* fsync the file, then its directory (a profile) */
    WASP_WRITE_REGULAR_ONLY = 2, /* refuse a device or pipe too (a file beside another) */
    WASP_WRITE_PRIVATE = 4,      /* mode 0600 instead of 0644 */
};

/* Writes len bytes to path. A regular file (or a new one) is replaced
 * atomically: the bytes go to PATH.tmp.<pid> in the same directory, created
 * with O_EXCL (never through a planted link, never into a file planted
 * there), then renamed over PATH, so a reader sees the old file or the new
 * one; the rename replaces only what was there when wasp looked (nothing,
 * or that regular file): anything put there meanwhile is left and the write
 * fails. On failure the temporary is removed and PATH is untouched. A link of
 * ours is followed: the file it names is replaced, not the link. A
 * character device or a pipe (-o /dev/null, /dev/stdout) is written into as
 * it is and stays what it was, unless flags say WASP_WRITE_REGULAR_ONLY.
 * Anything else — a directory, a block device, a socket, another user's
 * symbolic link — is refused. 0, or -1 with a one-line reason in err that
 * names the file and the step ("cannot create", "cannot rename ... to"). */
int wasp_write_file(const char *path, const void *data, size_t len, unsigned flags, char *err,
                    size_t errlen);

#endif
