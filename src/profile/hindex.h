/*
 * A small open-addressing hash index from keys to dense uint32 ids. It stores
 * only ids and their hashes; the keys live in the caller's arrays, and the
 * caller supplies the equality test. Linear probing, power-of-two capacity,
 * load kept at or below 1/2 so lookups stay a probe or two long.
 *
 * Private to src/profile/.
 */
#ifndef WASP_PROFILE_HINDEX_H
#define WASP_PROFILE_HINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WASP_HINDEX_NONE UINT32_MAX

typedef struct wasp_hindex {
    uint32_t *ids;    /* id + 1 per slot; 0 marks an empty slot */
    uint32_t *hashes; /* hash of the key behind each slot */
    uint32_t cap;     /* 0 or a power of two */
    uint32_t used;
} wasp_hindex;

/* Does the key the caller is looking for equal the key of id? */
typedef bool (*wasp_hindex_eq)(const void *ctx, uint32_t id);

wasp_hindex *wasp_hindex_new(void);
void wasp_hindex_free(wasp_hindex *h);

/* The id whose key equals (per eq), or WASP_HINDEX_NONE. */
uint32_t wasp_hindex_find(const wasp_hindex *h, uint32_t hash, wasp_hindex_eq eq, const void *ctx);
/* Records id under hash (the caller has checked it is not there). 0 or -1
 * when out of memory (the index is unchanged then). */
int wasp_hindex_add(wasp_hindex *h, uint32_t hash, uint32_t id);

/* FNV-1a, 32 bits: start with WASP_FNV_INIT, feed bytes in order. */
#define WASP_FNV_INIT 2166136261u
uint32_t wasp_fnv1a(uint32_t h, const void *data, size_t n);
uint32_t wasp_fnv1a_u32(uint32_t h, uint32_t v);

#endif
