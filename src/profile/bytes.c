/* Little-endian field encoding and decoding; see bytes.h. */
#include "profile/bytes.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

void wasp_wbuf_free(wasp_wbuf *b)
{
    free(b->data);
    *b = (wasp_wbuf){0};
}

static bool reserve(wasp_wbuf *b, size_t n)
{
    if (b->failed)
        return false;
    if (n <= b->cap - b->len)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->failed = true;
            return false;
        }
        cap *= 2;
    }
    unsigned char *d = realloc(b->data, cap);
    if (!d) {
        b->failed = true;
        return false;
    }
    b->data = d;
    b->cap = cap;
    return true;
}

void wasp_put_bytes(wasp_wbuf *b, const void *p, size_t n)
{
    if (n && reserve(b, n)) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
    }
}

void wasp_put_u32(wasp_wbuf *b, uint32_t v)
{
    unsigned char x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    wasp_put_bytes(b, x, sizeof x);
}

void wasp_put_u64(wasp_wbuf *b, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    wasp_put_bytes(b, x, sizeof x);
}

void wasp_put_f64(wasp_wbuf *b, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    wasp_put_u64(b, bits);
}

void wasp_put_str(wasp_wbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (n > UINT32_MAX) {
        b->failed = true;
        return;
    }
    wasp_put_u32(b, (uint32_t)n);
    wasp_put_bytes(b, s, n);
}

size_t wasp_section_begin(wasp_wbuf *b, uint32_t tag)
{
    wasp_put_u32(b, tag);
    wasp_put_u64(b, 0);
    return b->len;
}

void wasp_section_end(wasp_wbuf *b, size_t payload_start)
{
    if (b->failed)
        return;
    uint64_t n = b->len - payload_start;
    for (int i = 0; i < 8; i++)
        b->data[payload_start - 8 + i] = (unsigned char)(n >> (8 * i));
}

void wasp_put_table(wasp_wbuf *b, uint32_t tag, uint32_t n, wasp_entry_writer put,
                    const void *ctx)
{
    size_t s = wasp_section_begin(b, tag);
    wasp_put_u32(b, n);
    for (uint32_t i = 0; i < n; i++)
        put(b, ctx, i);
    wasp_section_end(b, s);
}

uint32_t wasp_crc32(const unsigned char *data, size_t n)
{
    /* zlib's crc32 takes a uInt length: feed it in chunks. */
    uLong crc = crc32(0L, Z_NULL, 0);
    while (n) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, data, k);
        data += k;
        n -= k;
    }
    return (uint32_t)crc;
}

uint32_t wasp_load_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t wasp_load_u64(const unsigned char *p)
{
    return (uint64_t)wasp_load_u32(p) | (uint64_t)wasp_load_u32(p + 4) << 32;
}

static const unsigned char *take(wasp_rbuf *r, size_t n)
{
    if (r->failed || n > r->len - r->off) {
        r->failed = true;
        return NULL;
    }
    const unsigned char *p = r->p + r->off;
    r->off += n;
    return p;
}

uint32_t wasp_get_u32(wasp_rbuf *r)
{
    const unsigned char *p = take(r, 4);
    return p ? wasp_load_u32(p) : 0;
}

uint64_t wasp_get_u64(wasp_rbuf *r)
{
    const unsigned char *p = take(r, 8);
    return p ? wasp_load_u64(p) : 0;
}

double wasp_get_f64(wasp_rbuf *r)
{
    uint64_t bits = wasp_get_u64(r);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

const char *wasp_get_str(wasp_rbuf *r, uint32_t *len)
{
    *len = wasp_get_u32(r);
    const unsigned char *p = take(r, *len);
    return (const char *)p;
}
