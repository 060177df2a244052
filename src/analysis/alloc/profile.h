/*
 * Object creation from sampled header stores (`-e alloc`) in the profile:
 * sampled creations by (class, allocation context: the class-word store's),
 * section ALOC; and, when the creations were sampled by their bytes, the
 * bytes they stand for by the same keys, section ALBY (profile.c), and the
 * bytes of objects allocated outside TLABs, section ALOT. A
 * profile without ALBY (an older wasp's, or a PMU's store samples) has its
 * bytes not recorded.
 */
#ifndef WASP_ANALYSIS_ALLOC_PROFILE_H
#define WASP_ANALYSIS_ALLOC_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct wasp_profile wasp_profile;

/* One (class, context)'s sampled creations. cls: the Java class name, a
 * string of the profile. */
typedef struct wasp_alloc_entry {
    uint32_t cls, ctx;
    double samples;
} wasp_alloc_entry;

/* One (class, context)'s estimated bytes: the sum over its catches of
 * weight x size (docs/alloc.md, "Bytes"), how many catches that is, and the
 * sum of each catch's bytes squared (the estimate's spread). */
typedef struct wasp_alloc_bytes {
    uint32_t cls, ctx;
    double bytes;
    double catches;
    double bytes_sq;
} wasp_alloc_bytes;

const wasp_alloc_entry *wasp_profile_allocs(const wasp_profile *p, uint32_t *n);
/* Adds e's samples to the entry with e's key, creating it: 0, or -1 when an
 * id is out of range or out of memory. */
int wasp_profile_add_alloc(wasp_profile *p, const wasp_alloc_entry *e);
/* The bytes records (none: bytes not recorded), and adding one likewise. */
const wasp_alloc_bytes *wasp_profile_alloc_bytes(const wasp_profile *p, uint32_t *n);
int wasp_profile_add_alloc_bytes(wasp_profile *p, const wasp_alloc_bytes *b);
/* The bytes of objects allocated outside TLABs (JVMTI's allocation samples,
 * agent/alloc_outside.h), by the same keys, and adding one likewise. */
const wasp_alloc_bytes *wasp_profile_alloc_outside(const wasp_profile *p, uint32_t *n);
int wasp_profile_add_alloc_outside(wasp_profile *p, const wasp_alloc_bytes *b);
/* Does the report show the alloc section? */
bool wasp_profile_has_allocs(const wasp_profile *p);

#endif
