/*
 * The profile file's bytes, apart from the file system: encode a profile into
 * a buffer and decode a buffer into a profile. write.c and read.c do the I/O.
 * Private to src/profile/.
 */
#ifndef WASP_PROFILE_CODEC_H
#define WASP_PROFILE_CODEC_H

#include "profile/bytes.h"
#include "profile/profile.h"

/* Appends the whole file (header, sections, END, CRC) to out. 0, or -1 when
 * out of memory or the profile is inconsistent (err says which). */
int wasp_profile_encode(const wasp_profile *p, wasp_wbuf *out, char *err, size_t errlen);

/* Validates and decodes a whole file image. NULL with a one-line reason in
 * err ("not a wasp profile (bad magic)", "truncated", ...). */
wasp_profile *wasp_profile_decode(const unsigned char *data, size_t len, char *err, size_t errlen);

#endif
