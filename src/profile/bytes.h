/*
 * Little-endian encoding into a growable buffer, and bounds-checked decoding
 * from a byte range. Both latch the first failure so callers check once at
 * the end instead of after every field. For src/profile/ and the analyses'
 * profile parts (part.h).
 */
#ifndef WASP_PROFILE_BYTES_H
#define WASP_PROFILE_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct wasp_wbuf {
    unsigned char *data;
    size_t len, cap;
    bool failed; /* an allocation failed; data is incomplete */
} wasp_wbuf;

void wasp_wbuf_free(wasp_wbuf *b);
void wasp_put_bytes(wasp_wbuf *b, const void *p, size_t n);
void wasp_put_u32(wasp_wbuf *b, uint32_t v);
void wasp_put_u64(wasp_wbuf *b, uint64_t v);
void wasp_put_f64(wasp_wbuf *b, double v);
/* u32 length, then the bytes (no terminator). */
void wasp_put_str(wasp_wbuf *b, const char *s);
/* Writes a section header with a placeholder length; returns where the
 * payload starts, for wasp_section_end to patch the length. */
size_t wasp_section_begin(wasp_wbuf *b, uint32_t tag);
void wasp_section_end(wasp_wbuf *b, size_t payload_start);
/* Entry i of a table section, its fields only. */
typedef void (*wasp_entry_writer)(wasp_wbuf *b, const void *ctx, uint32_t i);
/* A whole table section: tag, its u32 count n, then n entries through put. */
void wasp_put_table(wasp_wbuf *b, uint32_t tag, uint32_t n, wasp_entry_writer put,
                    const void *ctx);

typedef struct wasp_rbuf {
    const unsigned char *p;
    size_t len, off;
    bool failed; /* a read ran past the end */
} wasp_rbuf;

uint32_t wasp_get_u32(wasp_rbuf *r);
uint64_t wasp_get_u64(wasp_rbuf *r);
double wasp_get_f64(wasp_rbuf *r);
/* A length-prefixed string, in place (not terminated); NULL past the end. */
const char *wasp_get_str(wasp_rbuf *r, uint32_t *len);
static inline size_t wasp_rbuf_left(const wasp_rbuf *r)
{
    return r->len - r->off;
}

/* The file's checksum: zlib's CRC-32 of n bytes. */
uint32_t wasp_crc32(const unsigned char *data, size_t n);
uint32_t wasp_load_u32(const unsigned char *p);
uint64_t wasp_load_u64(const unsigned char *p);

#endif
