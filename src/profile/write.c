/*
 * Profile write: the encoded bytes go through wasp_write_file
 * (common/safe_open.h) with WASP_WRITE_DURABLE. To a regular file (or a new
 * one), atomically: PATH.tmp.<pid> in the same directory (created with
 * O_EXCL, so never through a planted link), fsynced, renamed over PATH; a
 * reader sees the old file or the new one, never half of one, and on any
 * failure PATH is untouched. Into a character device or a pipe (-o
 * /dev/null, /dev/stdout), directly: the device stays a device. Anything
 * else — a directory, a block device, a socket, another user's symbolic
 * link — is refused. A link of ours is followed: the file it names is
 * replaced, not the link.
 */
#include "profile/codec.h"

#include "common/safe_open.h"

int wasp_profile_write(const wasp_profile *p, const char *path, char *err, size_t errlen)
{
    wasp_wbuf b = {0};
    int rc = wasp_profile_encode(p, &b, err, errlen);
    if (rc == 0)
        rc = wasp_write_file(path, b.data, b.len, WASP_WRITE_DURABLE, err, errlen);
    wasp_wbuf_free(&b);
    return rc;
}
