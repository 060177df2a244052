/*
 * An analysis's part in the profile: its own data in the in-memory
 * wasp_profile (p->parts[id], created by the part when it first records
 * something), its file sections, how it merges, how it is grouped by line and
 * how its ids are checked. The core of src/profile/ (strings, frames,
 * contexts, allocation sites, metadata, counters) calls the parts and names
 * none of them. Registry: profile/parts.c,
 * from catalog/list.h; the file is src/analysis/NAME/profile.c.
 *
 * What a part may use is declared here: the section writer of bytes.h, a
 * section reader that checks ids and says what is wrong with a file, the id
 * map of a merge, and the weights grouping asks for.
 */
#ifndef WASP_PROFILE_PART_H
#define WASP_PROFILE_PART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/bytes.h"
#include "profile/profile.h"

/* A section tag: four ASCII bytes, so they read well in a hex dump. A part
 * defines its own; docs/profile-format.md lists every tag in use. */
#define WASP_TAG(a, b, c, d)                                                                       \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/* Returned by the intern and add functions on allocation failure or bad ids. */
#define WASP_NOID UINT32_MAX

/* ---- tools (profile.c, rank.c) ---- */

/* Grows *arr (elements of size el) so that it holds at least need elements. */
int wasp_grow(void *arr, uint32_t *cap, uint32_t need, size_t el);

/* An entry to rank: by weight[0], weight[1], weight[2] descending (NaN
 * last), then key[0..2] ascending, then index: a total, deterministic order.
 * Unused weights and keys are left 0. */
typedef struct wasp_ranked {
    double weight[3];
    uint32_t key[3];
    uint32_t index;
} wasp_ranked;
/* Sorts r[0..n) (malloc'd by the caller, freed here) and returns the indices
 * in that order (never NULL for n == 0 unless out of memory). */
uint32_t *wasp_ranked_order(wasp_ranked *r, uint32_t n);

/* ---- reading a file (decode.c) ---- */

typedef struct wasp_decoder wasp_decoder; /* the file being read */
typedef struct wasp_section wasp_section; /* one of its sections */

/* The section with this tag, one the part declared; an absent section reads
 * as one with no entries. */
wasp_section *wasp_decoder_section(wasp_decoder *d, uint32_t tag);
/* The entry count, each entry taking at least min_bytes: that bounds the
 * count before anything is allocated from it. 0, or -1 ("bad entry count"). */
int wasp_section_count(wasp_section *s, size_t min_bytes, uint32_t *n);
/* The next field; 0 past the end (wasp_section_done then fails). */
uint32_t wasp_section_u32(wasp_section *s);
double wasp_section_f64(wasp_section *s);
/* A file id read from entry i (what: "site access") as the profile's id in
 * *out: 0, or -1 with "corrupt (site access 1: site id 7 out of range, 2
 * sites)" when the file has no such site. Likewise contexts and strings. */
int wasp_section_site(wasp_section *s, const char *what, uint32_t i, uint32_t id, uint32_t *out);
int wasp_section_context(wasp_section *s, const char *what, uint32_t i, uint32_t id,
                         uint32_t *out);
int wasp_section_string(wasp_section *s, const char *what, uint32_t i, uint32_t id,
                        uint32_t *out);
/* Every byte read, none past the end: 0, or -1 saying which. */
int wasp_section_done(wasp_section *s);
/* Adding what was read ran out of memory: -1, the reason set. */
int wasp_section_out_of_memory(wasp_section *s);

/* ---- merging and grouping (merge.c, group.c) ---- */

/* Source ids -> destination ids, for a merge (dst += src) or for grouping by
 * line (contexts of one kind with the same frames become one). The source
 * passed wasp_profile_check, so every id it holds maps. */
typedef struct wasp_id_map wasp_id_map;
uint32_t wasp_map_string(const wasp_id_map *m, uint32_t id);
uint32_t wasp_map_site(const wasp_id_map *m, uint32_t id);
/* role: which of the part's kinds of context (0 .. context_roles-1) ctx is. */
uint32_t wasp_map_context(const wasp_id_map *m, uint32_t role, uint32_t ctx);

/* Grouping shows, for the contexts that become one, the instruction of the
 * heaviest; a part says which contexts it uses, of which role, how heavily. */
typedef struct wasp_context_weights wasp_context_weights;
/* 0, or -1 when out of memory. */
int wasp_weigh_context(wasp_context_weights *w, uint32_t role, uint32_t ctx, double weight);

/* ---- the part ---- */

enum { WASP_PART_SECTIONS = 4 };

typedef struct wasp_profile_part {
    /* Tags of its file sections, 0-padded: the reader finds them for decode,
     * and refuses a file with one of them twice. */
    uint32_t sections[WASP_PART_SECTIONS];
    /* Kinds of context it uses (an access, a comparison...): grouping keeps
     * each kind apart, so an entry shows an instruction of its own kind. */
    uint32_t context_roles;
    /* Frees its data, p->parts[id]. */
    void (*free)(void *data);
    /* Are its ids in range? 0, or -1 with err naming the first bad entry
     * ("site access 0 refers to a missing site or context"). */
    int (*check)(const wasp_profile *p, char *err, size_t errlen);
    /* Appends its sections; none when it has no data, so that a file stays
     * what older wasps wrote and read. */
    void (*encode)(const wasp_profile *p, wasp_wbuf *b);
    /* Reads its sections into p, whose strings, contexts and sites are read. */
    int (*decode)(wasp_profile *p, wasp_decoder *d);
    /* dst += src, ids through m (merging: sums equal keys). 0, or -1 when out
     * of memory. */
    int (*merge)(wasp_profile *dst, const wasp_profile *src, const wasp_id_map *m);
    /* Every context it uses, for grouping by line (context_roles > 0). */
    int (*weigh)(const wasp_profile *p, wasp_context_weights *w);
} wasp_profile_part;

/* The profile part of analysis id; NULL when out of range. */
const wasp_profile_part *wasp_profile_part_of(int id);
/* p->parts[id], created zeroed (size bytes) when it is not there yet: where a
 * part records. NULL when out of memory. */
void *wasp_profile_part_data(wasp_profile *p, int id, size_t size);

/* Grouping's context kinds ("slots"): one for allocation sites, then each
 * part's roles in id order. */
enum { WASP_SLOT_ALLOC = 0, WASP_CORE_SLOTS = 1 };
/* The slot of role 0 of part id, and the number of slots in all. */
uint32_t wasp_profile_part_slot(int id);
uint32_t wasp_profile_slots(void);

#endif
