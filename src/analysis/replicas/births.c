/*
 * Object replicas from births: resolving a site's pending object (see
 * births.h).
 *
 * ASYNC-SIGNAL-SAFE: bookkeeping; program memory only through `read`.
 */
#include "analysis/replicas/births.h"

static uint64_t next_random(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Keep a random content word of the pending object (8-byte words from its
 * start, as objects are aligned; the last may be shorter). */
static void keep_word(wasp_birth_slot *b, uint64_t *rng, wasp_birth_reader read)
{
    uint32_t words = (b->size - WASP_BIRTH_HEADER + 7) / 8;
    uint32_t at = WASP_BIRTH_HEADER + 8 * (uint32_t)(next_random(rng) % words);
    uint8_t len = (uint8_t)(b->size - at < 8 ? b->size - at : 8);
    int ok;
    uint64_t v = read(b->obj + at, len, &ok);
    b->len = ok ? len : 0;
    b->value = v;
    b->offset = at;
    b->value_size = b->size;
    b->value_epoch = b->epoch;
}

static wasp_birth_verdict compare(const wasp_birth_slot *b, wasp_birth_reader read)
{
    if (!b->len || b->value_epoch != b->epoch)
        return WASP_BIRTH_NONE;
    if (b->value_size != b->size)
        return WASP_BIRTH_DIFFERENT;
    int ok;
    uint64_t v = read(b->obj + b->offset, b->len, &ok);
    if (!ok)
        return WASP_BIRTH_NONE;
    uint64_t mask = b->len >= 8 ? ~0ull : ((1ull << (8 * b->len)) - 1);
    if ((v & mask) != (b->value & mask))
        return WASP_BIRTH_DIFFERENT;
    return (v & mask) == 0 ? WASP_BIRTH_ZERO : WASP_BIRTH_SAME;
}

wasp_birth_verdict wasp_replica_born(wasp_birth_slot *table, uint32_t nslots, uint32_t site,
                                      uint64_t obj, uint32_t size, uint32_t epoch,
                                      uint64_t now_ns, uint64_t settle_ns, uint64_t *rng,
                                      wasp_birth_reader read, uint32_t *offset)
{
    if (size <= WASP_BIRTH_HEADER)
        return WASP_BIRTH_NONE; /* a header and nothing of the program's */
    wasp_birth_slot *b = &table[site % nslots];
    if (b->site1 != site + 1)
        *b = (wasp_birth_slot){.site1 = site + 1};
    wasp_birth_verdict verdict = WASP_BIRTH_NONE;
    if (b->obj && b->epoch == epoch) {
        if (now_ns - b->born_ns < settle_ns)
            return WASP_BIRTH_NONE; /* the pending one may still be being built */
        verdict = compare(b, read);
        *offset = b->offset;
        keep_word(b, rng, read);
    }
    b->obj = obj;
    b->size = size;
    b->epoch = epoch;
    b->born_ns = now_ns;
    return verdict;
}
