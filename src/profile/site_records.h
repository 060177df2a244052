/*
 * Records keyed by (allocation site, context), each holding two sums: what
 * object-level analyses keep (objects: samples and remote samples per access
 * context; replicas: same and different comparisons per comparison
 * context). One store and one file layout for all of them:
 *
 *   section payload: u32 n, n x { u32 site, u32 ctx, f64 first, f64 second }
 *
 * A part keeps its records in its own struct type, which must have the
 * layout of wasp_site_record (WASP_SITE_RECORD_LAYOUT checks it at compile
 * time); the table reads and writes them only through memcpy.
 */
#ifndef WASP_PROFILE_SITE_RECORDS_H
#define WASP_PROFILE_SITE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/part.h"

typedef struct wasp_site_record {
    uint32_t site;
    uint32_t ctx;
    double sum[2];
} wasp_site_record;

/* The part's record type T has wasp_site_record's layout, member by member. */
#define WASP_SITE_RECORD_LAYOUT(T, site_m, ctx_m, first_m, second_m)                             \
    _Static_assert(sizeof(T) == sizeof(wasp_site_record) &&                                     \
                       offsetof(T, site_m) == offsetof(wasp_site_record, site) &&               \
                       offsetof(T, ctx_m) == offsetof(wasp_site_record, ctx) &&                 \
                       offsetof(T, first_m) == offsetof(wasp_site_record, sum) &&               \
                       offsetof(T, second_m) == offsetof(wasp_site_record, sum) + sizeof(double), \
                   #T " must have the layout of wasp_site_record")

typedef struct wasp_site_records {
    void *items; /* n records of the part's type, in the order they were added */
    uint32_t n, cap;
    void *index; /* (site, ctx) -> record; created on the first add */
} wasp_site_records;

/* The records (of the part's type) and their count in *n; NULL and 0 when t
 * is NULL or empty. */
const void *wasp_site_records_all(const wasp_site_records *t, uint32_t *n);
/* Record i, copied out. */
wasp_site_record wasp_site_records_get(const wasp_site_records *t, uint32_t i);
/* Adds first/second to the record (site, ctx), appending it when new (the
 * caller checked the ids). Its index, or WASP_NOID when out of memory. */
uint32_t wasp_site_records_add(wasp_site_records *t, uint32_t site, uint32_t ctx, double first,
                               double second);
void wasp_site_records_free(wasp_site_records *t);

/* The part's checked add: 0, or -1 when an id is out of range or out of memory. */
typedef int (*wasp_site_record_add)(wasp_profile *p, uint32_t site, uint32_t ctx, double first,
                                    double second);

/* Are the sites and contexts in range? 0, or -1 with "WHAT I refers to a
 * missing site or context" (what: "site access"). */
int wasp_site_records_check(const wasp_profile *p, const wasp_site_records *t, const char *what,
                            char *err, size_t errlen);
/* The section `tag` holding every record; nothing when there are none. */
void wasp_site_records_encode(const wasp_site_records *t, uint32_t tag, wasp_wbuf *b);
/* Reads section `tag` through add; messages name entries `what`. */
int wasp_site_records_decode(wasp_profile *p, wasp_decoder *d, uint32_t tag, const char *what,
                             wasp_site_record_add add);
/* dst += src's records t, ids through m, contexts of role `role`. */
int wasp_site_records_merge(wasp_profile *dst, const wasp_site_records *t, const wasp_id_map *m,
                            uint32_t role, wasp_site_record_add add);
/* Each record's context in role `role`, weighing its first sum, plus its
 * second when with_second: how heavily grouping counts it. */
int wasp_site_records_weigh(const wasp_site_records *t, wasp_context_weights *w, uint32_t role,
                            bool with_second);

#endif
