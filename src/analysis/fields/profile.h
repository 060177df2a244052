/*
 * Java fields at sampled addresses (`-e fields`) in the profile: sampled
 * accesses by (class, field or array elements, heap area, access context),
 * loads and stores apart. Section FLDS (profile.c).
 */
#ifndef WASP_ANALYSIS_FIELDS_PROFILE_H
#define WASP_ANALYSIS_FIELDS_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct wasp_profile wasp_profile;

/* One (class, member, area, context)'s samples. Strings are the profile's:
 * cls the Java class name ("" when none was found: off the heap, or no
 * header), member the field's name ("[]" for array elements, "" unknown). */
typedef struct wasp_field_entry {
    uint32_t cls, member;
    uint32_t offset; /* bytes into the object; 0xffffffff for array elements */
    uint32_t area;   /* wasp_heap_area */
    uint32_t ctx;
    double loads, stores;
} wasp_field_entry;

const wasp_field_entry *wasp_profile_fields(const wasp_profile *p, uint32_t *n);
/* Adds e's loads and stores to the entry with e's key, creating it: 0, or -1
 * when an id is out of range or out of memory. */
int wasp_profile_add_field(wasp_profile *p, const wasp_field_entry *e);
/* Does the report show the fields section? */
bool wasp_profile_has_fields(const wasp_profile *p);

#endif
