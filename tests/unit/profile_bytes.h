/* Test helpers shared by the unit tests that write a profile file and then
 * read, patch or corrupt its bytes: a temporary file per test (cmocka setup
 * and teardown), whole-file reads and writes, and the section walk of the
 * format (docs/profile-format.md). Included by one test file each. */
#ifndef WASP_TEST_PROFILE_BYTES_H
#define WASP_TEST_PROFILE_BYTES_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char path[256];

static inline int make_file(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/wasp-test-profile-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static inline int remove_file(void **state)
{
    (void)state;
    return unlink(path);
}

/* The file's bytes (malloc'd; the file must be under 64 KiB). */
static inline unsigned char *slurp(size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *buf = malloc(1 << 16);
    *len = fread(buf, 1, 1 << 16, f);
    assert_true(*len < 1 << 16);
    fclose(f);
    return buf;
}

static inline void spill(const unsigned char *d, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static inline uint32_t le32(const unsigned char *d)
{
    return d[0] | d[1] << 8 | d[2] << 16 | (uint32_t)d[3] << 24;
}

/* Recompute the trailing CRC-32 after patching the bytes before it. */
static inline void fix_crc(unsigned char *d, size_t len)
{
    uint32_t c = (uint32_t)crc32(0, d, (uInt)(len - 4));
    for (int i = 0; i < 4; i++)
        d[len - 4 + i] = (unsigned char)(c >> (8 * i));
}

/* Offset of the section with that tag, or 0; *size receives header + payload
 * (0 when there is no such section). */
static inline size_t find_section(const unsigned char *d, size_t len, const char *tag,
                                  size_t *size)
{
    size_t off = 12;
    *size = 0;
    while (off + 12 <= len - 4) {
        uint64_t n = le32(d + off + 4) | (uint64_t)le32(d + off + 8) << 32;
        if (!memcmp(d + off, tag, 4)) {
            *size = 12 + (size_t)n;
            return off;
        }
        if (!memcmp(d + off, "END_", 4))
            break;
        off += 12 + (size_t)n;
    }
    return 0;
}

#endif
