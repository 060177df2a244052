/* Open-addressing id index; see hindex.h. */
#include "profile/hindex.h"

#include <stdlib.h>

wasp_hindex *wasp_hindex_new(void)
{
    return calloc(1, sizeof(wasp_hindex));
}

void wasp_hindex_free(wasp_hindex *h)
{
    if (!h)
        return;
    free(h->ids);
    free(h->hashes);
    free(h);
}

uint32_t wasp_hindex_find(const wasp_hindex *h, uint32_t hash, wasp_hindex_eq eq, const void *ctx)
{
    if (!h || h->cap == 0)
        return WASP_HINDEX_NONE;
    uint32_t mask = h->cap - 1;
    for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
        uint32_t slot = h->ids[i];
        if (slot == 0)
            return WASP_HINDEX_NONE;
        if (h->hashes[i] == hash && eq(ctx, slot - 1))
            return slot - 1;
    }
}

/* Places (hash, id) in the first free slot of its probe chain. */
static void place(uint32_t *ids, uint32_t *hashes, uint32_t cap, uint32_t hash, uint32_t id)
{
    uint32_t mask = cap - 1;
    uint32_t i = hash & mask;
    while (ids[i] != 0)
        i = (i + 1) & mask;
    ids[i] = id + 1;
    hashes[i] = hash;
}

static int grow(wasp_hindex *h)
{
    uint32_t ncap = h->cap ? h->cap * 2 : 64;
    if (ncap < h->cap) /* 2^32 slots: no more room */
        return -1;
    uint32_t *ids = calloc(ncap, sizeof *ids);
    uint32_t *hashes = malloc((size_t)ncap * sizeof *hashes);
    if (!ids || !hashes) {
        free(ids);
        free(hashes);
        return -1;
    }
    for (uint32_t i = 0; i < h->cap; i++)
        if (h->ids[i])
            place(ids, hashes, ncap, h->hashes[i], h->ids[i] - 1);
    free(h->ids);
    free(h->hashes);
    h->ids = ids;
    h->hashes = hashes;
    h->cap = ncap;
    return 0;
}

int wasp_hindex_add(wasp_hindex *h, uint32_t hash, uint32_t id)
{
    if (id == UINT32_MAX) /* id + 1 must fit */
        return -1;
    if ((uint64_t)(h->used + 1) * 2 > h->cap && grow(h) != 0)
        return -1;
    place(h->ids, h->hashes, h->cap, hash, id);
    h->used++;
    return 0;
}

uint32_t wasp_fnv1a(uint32_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

uint32_t wasp_fnv1a_u32(uint32_t h, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    return wasp_fnv1a(h, b, sizeof b);
}
