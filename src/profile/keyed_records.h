/*
 * Records keyed by a few ids — strings, contexts, plain numbers — each
 * holding a few sums: what the fields, alloc and locks analyses keep (and
 * any analysis whose data is "samples by (class, member, context)"). One
 * store, one file layout, and the add, check, decode, merge and weigh of it:
 *
 *   section payload: u32 n, n x { u32 key[nkeys], f64 sum[nsums] }
 *
 * A part describes its record type with a wasp_keyed_layout: nkeys uint32_t
 * keys first, then nsums doubles at sums_offset (WASP_KEYED_LAYOUT checks
 * the two ends at compile time). Its data, p->parts[id], is the table, and
 * its profile part is WASP_KEYED_PROFILE_PART(...), one line; or, for a part
 * with several tables (the pair analyses: pairs and totals), p->parts[id] is
 * the part's struct holding each table at its layout's table_offset.
 */
#ifndef WASP_PROFILE_KEYED_RECORDS_H
#define WASP_PROFILE_KEYED_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/part.h"

enum { WASP_KEYED_MAX_KEYS = 6, WASP_KEYED_MAX_SUMS = 4 };

typedef enum wasp_key_kind {
    WASP_KEY_NUMBER = 0, /* a plain number (an offset, an enum) */
    WASP_KEY_STRING,     /* a string id of the profile */
    WASP_KEY_CONTEXT,    /* a context id of the profile, of the record's role */
    /* The record's kind, below the key's limit (which must be set): the role
     * of its context keys (role 0 without such a key). A record of a kind at
     * or above the limit in a file (one a newer wasp knows) is skipped. */
    WASP_KEY_ROLE,
} wasp_key_kind;

/* One table of records (the data of a part, or a member of it). */
typedef struct wasp_keyed_table {
    unsigned char *items; /* n records of the layout's size, in the order they were added */
    uint32_t n, cap;
    struct wasp_hindex *index; /* keys -> record */
} wasp_keyed_table;

typedef struct wasp_keyed_layout {
    int id;           /* the analysis: the table is p->parts[id] */
    uint32_t tag;     /* its section */
    const char *what; /* an entry, in messages: "lock entry" */
    uint32_t nkeys, nsums;
    wasp_key_kind key[WASP_KEYED_MAX_KEYS];
    /* NUMBER keys: a value read from a file at or above this reads as 0
     * (a kind a newer wasp knows); 0: any value. ROLE keys: the roles. */
    uint32_t limit[WASP_KEYED_MAX_KEYS];
    size_t size, sums_offset; /* sizeof and offsetof(first sum) of the record type */
    /* Grouping weighs a record by its first weight_sums sums (0: all). */
    uint32_t weight_sums;
    /* 0, 0: p->parts[id] is the table. Else p->parts[id] is a struct of
     * data_size bytes with the table at table_offset. */
    size_t data_size, table_offset;
} wasp_keyed_layout;

/* T's keys are its first `nkeys` members (uint32_t) and its sums are
 * `nsums` doubles from member first_sum to its end. */
#define WASP_KEYED_LAYOUT(T, nkeys, first_sum, nsums)                                            \
    _Static_assert(offsetof(T, first_sum) >= (nkeys) * sizeof(uint32_t) &&                       \
                       offsetof(T, first_sum) + (nsums) * sizeof(double) == sizeof(T),           \
                   #T ": keys first, then the sums")

/* The records of l's analysis in p (the part's record type) and their count
 * in *n; NULL and 0 when there are none. */
const void *wasp_keyed_all(const wasp_profile *p, const wasp_keyed_layout *l, uint32_t *n);
/* Adds rec's sums to the record with rec's keys, appending it when new: 0,
 * or -1 when a string or context key is out of range or out of memory. */
int wasp_keyed_add(wasp_profile *p, const wasp_keyed_layout *l, const void *rec);

/* The part's operations (profile/part.h), for WASP_KEYED_PROFILE_PART and
 * for a part of several tables, which calls them for each. */
void wasp_keyed_free(void *data); /* data is one table */
void wasp_keyed_table_free(wasp_keyed_table *t); /* its contents, not t */
int wasp_keyed_check(const wasp_profile *p, const wasp_keyed_layout *l, char *err, size_t errlen);
void wasp_keyed_encode(const wasp_profile *p, const wasp_keyed_layout *l, wasp_wbuf *b);
int wasp_keyed_decode(wasp_profile *p, const wasp_keyed_layout *l, wasp_decoder *d);
int wasp_keyed_merge(wasp_profile *dst, const wasp_profile *src, const wasp_keyed_layout *l,
                     const wasp_id_map *m);
/* Each distinct context key of a record weighs the sum of its (weight) sums. */
int wasp_keyed_weigh(const wasp_profile *p, const wasp_keyed_layout *l, wasp_context_weights *w);

/* `const wasp_profile_part NAME` for a part whose data is keyed records of
 * layout LAYOUT (a const wasp_keyed_layout) in section TAG. */
#define WASP_KEYED_PROFILE_PART(NAME, LAYOUT, TAG)                                                \
    static int NAME##_check(const wasp_profile *p, char *err, size_t errlen)                     \
    {                                                                                            \
        return wasp_keyed_check(p, &(LAYOUT), err, errlen);                                      \
    }                                                                                            \
    static void NAME##_encode(const wasp_profile *p, wasp_wbuf *b)                               \
    {                                                                                            \
        wasp_keyed_encode(p, &(LAYOUT), b);                                                      \
    }                                                                                            \
    static int NAME##_decode(wasp_profile *p, wasp_decoder *d)                                   \
    {                                                                                            \
        return wasp_keyed_decode(p, &(LAYOUT), d);                                               \
    }                                                                                            \
    static int NAME##_merge(wasp_profile *dst, const wasp_profile *src, const wasp_id_map *m)    \
    {                                                                                            \
        return wasp_keyed_merge(dst, src, &(LAYOUT), m);                                         \
    }                                                                                            \
    static int NAME##_weigh(const wasp_profile *p, wasp_context_weights *w)                      \
    {                                                                                            \
        return wasp_keyed_weigh(p, &(LAYOUT), w);                                                \
    }                                                                                            \
    const wasp_profile_part NAME = {.sections = {TAG},                                           \
                                    .context_roles = 1,                                          \
                                    .free = wasp_keyed_free,                                     \
                                    .check = NAME##_check,                                       \
                                    .encode = NAME##_encode,                                     \
                                    .decode = NAME##_decode,                                     \
                                    .merge = NAME##_merge,                                       \
                                    .weigh = NAME##_weigh}

/* A part whose data is one struct holding a table per layout (each at its
 * layout's table_offset, in its own section): the part's operations over
 * them all. Contexts weigh by the first `nweigh` tables' records (a table
 * of other units, bytes beside samples, must not add to them). */
typedef struct wasp_keyed_tables {
    const wasp_keyed_layout *const *layouts;
    uint32_t n, nweigh;
} wasp_keyed_tables;

void wasp_keyed_tables_free(const wasp_keyed_tables *t, void *data);
int wasp_keyed_tables_check(const wasp_keyed_tables *t, const wasp_profile *p, char *err,
                            size_t errlen);
void wasp_keyed_tables_encode(const wasp_keyed_tables *t, const wasp_profile *p, wasp_wbuf *b);
int wasp_keyed_tables_decode(const wasp_keyed_tables *t, wasp_profile *p, wasp_decoder *d);
int wasp_keyed_tables_merge(const wasp_keyed_tables *t, wasp_profile *dst, const wasp_profile *src,
                            const wasp_id_map *m);
int wasp_keyed_tables_weigh(const wasp_keyed_tables *t, const wasp_profile *p,
                            wasp_context_weights *w);

/* `const wasp_profile_part NAME` for a part of the tables TABLES (a const
 * wasp_keyed_tables), in sections ... (their tags). */
#define WASP_KEYED_TABLES_PART(NAME, TABLES, ...)                                                 \
    static void NAME##_free(void *data) { wasp_keyed_tables_free(&(TABLES), data); }             \
    static int NAME##_check(const wasp_profile *p, char *err, size_t errlen)                     \
    {                                                                                            \
        return wasp_keyed_tables_check(&(TABLES), p, err, errlen);                               \
    }                                                                                            \
    static void NAME##_encode(const wasp_profile *p, wasp_wbuf *b)                               \
    {                                                                                            \
        wasp_keyed_tables_encode(&(TABLES), p, b);                                               \
    }                                                                                            \
    static int NAME##_decode(wasp_profile *p, wasp_decoder *d)                                   \
    {                                                                                            \
        return wasp_keyed_tables_decode(&(TABLES), p, d);                                        \
    }                                                                                            \
    static int NAME##_merge(wasp_profile *dst, const wasp_profile *src, const wasp_id_map *m)    \
    {                                                                                            \
        return wasp_keyed_tables_merge(&(TABLES), dst, src, m);                                  \
    }                                                                                            \
    static int NAME##_weigh(const wasp_profile *p, wasp_context_weights *w)                      \
    {                                                                                            \
        return wasp_keyed_tables_weigh(&(TABLES), p, w);                                         \
    }                                                                                            \
    const wasp_profile_part NAME = {.sections = {__VA_ARGS__},                                   \
                                    .context_roles = 1,                                          \
                                    .free = NAME##_free,                                         \
                                    .check = NAME##_check,                                       \
                                    .encode = NAME##_encode,                                     \
                                    .decode = NAME##_decode,                                     \
                                    .merge = NAME##_merge,                                       \
                                    .weigh = NAME##_weigh}

#endif
