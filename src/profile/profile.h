/*
 * The wasp profile: calling contexts, allocation sites, counters and
 * metadata, and each analysis's own data (the pair analyses' pairs and
 * totals, the objects' accesses, ...), kept by its profile part (part.h).
 * One in-memory
 * model, written to and read from the versioned profile file
 * (docs/profile-format.md), merged across threads, runs and hosts.
 *
 * Not async-signal-safe: this allocates. The agent builds a wasp_profile from
 * its per-thread signal-safe tables only when it writes the file.
 */
#ifndef WASP_PROFILE_H
#define WASP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/ids.h"

typedef enum wasp_frame_kind {
    WASP_FRAME_JAVA = 0,   /* name "pkg.Class.method", file "Class.java", line >= 1 or -1 */
    WASP_FRAME_NATIVE = 1, /* name is a symbol ("memset", or "+0x1234" when hidden), file the library ("libc.so.6") */
    WASP_FRAME_STUB = 2,   /* JVM-generated code: stub or interpreter ("StubRoutines::arraycopy") */
    WASP_FRAME_UNKNOWN = 3 /* e.g. "[no Java frames: AsyncGetCallTrace -2]" */
} wasp_frame_kind;

/* String ids index the profile's string table; id 0 is always the empty string. */
/* A Java frame's line when its method is native (JNI or an intrinsic's
 * Java declaration): no line, as -1, but printed "(Native Method)" as in a
 * Java stack trace. */
#define WASP_LINE_NATIVE (-2)

typedef struct wasp_frame {
    uint32_t kind; /* wasp_frame_kind */
    uint32_t name; /* string id */
    uint32_t file; /* string id, 0 when unknown */
    int32_t line;  /* source line, -1 when unknown, WASP_LINE_NATIVE for a native method */
} wasp_frame;

/* A calling context: frames root first, leaf last, and the leaf machine
 * instruction in AT&T syntax (string id, 0 when unknown). */
typedef struct wasp_context {
    uint32_t first; /* index into frame_refs */
    uint32_t nframes;
    uint32_t insn;  /* string id, e.g. "mov %eax, 0x10(%rbx)" */
} wasp_context;

/* A metadata entry: text, or a number (numeric) kept with its shortest
 * text ("1000", "0.02"), which is what text readers see. */
typedef struct wasp_kv {
    char *key;
    char *value;
    bool numeric;
    double number;
} wasp_kv;

typedef struct wasp_counter {
    char *name; /* e.g. "samples", "armed", "trapped", "dropped.gc" */
    uint64_t value;
} wasp_counter;

/* An allocation site, shared by the analyses of objects (objects, replicas):
 * keyed by allocation context and class. */
typedef struct wasp_site {
    uint32_t ctx;         /* allocation calling context (a wasp_context; insn 0) */
    uint32_t class_name;  /* string id, Java notation: "double[]", "java.lang.String" */
    double allocations;   /* objects seen allocated (sampled allocations) */
    double bytes;         /* their bytes */
} wasp_site;

typedef struct wasp_profile {
    /* string table: strings[0] == "" */
    char **strings;
    uint32_t nstrings, cap_strings;
    void *string_index; /* private hash index */

    wasp_frame *frames;
    uint32_t nframes, cap_frames;
    void *frame_index;

    uint32_t *frame_refs; /* context frame lists, concatenated */
    uint32_t nframe_refs, cap_frame_refs;

    wasp_context *contexts;
    uint32_t ncontexts, cap_contexts;
    void *context_index;

    wasp_kv *meta;
    uint32_t nmeta, cap_meta;

    wasp_counter *counters;
    uint32_t ncounters, cap_counters;

    uint32_t merged; /* how many profiles were merged into this one (1 for a fresh one) */

    /* Allocation sites keyed by (ctx, class_name) (sites.c). */
    wasp_site *sites;
    uint32_t nsites, cap_sites;
    void *site_index;

    /* CPU samples by source line (cpu_lines.c): at every line of each
     * sample's inline chain (lines), and at its innermost line alone
     * (leaves); none in older profiles. */
    struct wasp_cpu_table {
        struct wasp_cpu_line *rows;
        uint32_t n, cap;
        void *index;
    } cpu_lines, cpu_leaves;

    /* Each analysis's own data, owned by its profile part (part.h); NULL
     * until it records something. */
    void *parts[WASP_ANALYSES];
} wasp_profile;

wasp_profile *wasp_profile_new(void);
void wasp_profile_free(wasp_profile *p);

uint32_t wasp_profile_intern_string(wasp_profile *p, const char *s);
const char *wasp_profile_string(const wasp_profile *p, uint32_t id);
uint32_t wasp_profile_intern_frame(wasp_profile *p, const wasp_frame *f);
uint32_t wasp_profile_intern_context(wasp_profile *p, const uint32_t *frame_ids,
                                     uint32_t nframes, uint32_t insn);

/* The root frame's name of a context whose Java stack could not be walked
 * (agent/dump.c: "[stack unavailable: deoptimization in progress]"), above
 * it the native frames that were seen. */
#define WASP_UNWALKED_PREFIX "[stack unavailable"
/* False for such a context (or an id out of range). Rankings put entries of
 * such contexts after the others, in their own order: the samples of every
 * place whose walk failed the same way share one context, and would make
 * one heavy entry out of many unrelated places. */
bool wasp_profile_context_walked(const wasp_profile *p, uint32_t ctx);

/* Metadata: set replaces; get returns NULL when absent. */
void wasp_profile_set_meta(wasp_profile *p, const char *key, const char *value);
const char *wasp_profile_get_meta(const wasp_profile *p, const char *key);
/* Remove key (nothing when it is not there). */
void wasp_profile_remove_meta(wasp_profile *p, const char *key);
/* Numeric metadata (a count, a size, a duration): kept as a number, which the
 * JSON report prints as a number, and as its text, which get_meta returns and
 * older readers of the file see. get_meta_num: true with *value set when key
 * holds a number (false for text, even text that looks like one). */
void wasp_profile_set_meta_num(wasp_profile *p, const char *key, double value);
bool wasp_profile_get_meta_num(const wasp_profile *p, const char *key, double *value);
/* Numeric metadata rounded as fmt prints it ("%.0f", "%.4f", "%g"). */
void wasp_profile_set_meta_rounded(wasp_profile *p, const char *key, double v, const char *fmt);
/* Whether an "events" metadata value (names joined by '+', ',' or ':')
 * names `name` ("deadstore+objects" names "objects"). */
bool wasp_events_name(const char *events, const char *name);
/* Counters: add sums into the named counter (creating it at 0). */
void wasp_profile_add_counter(wasp_profile *p, const char *name, uint64_t v);
uint64_t wasp_profile_get_counter(const wasp_profile *p, const char *name);
/* A counter that states a level (a tree's size), not a sum: set, not added. */
void wasp_profile_set_counter(wasp_profile *p, const char *name, uint64_t v);

/* dst += src: strings, frames and contexts re-interned, sites with equal
 * (allocation context, class) summed, each analysis's data merged by its
 * part (part.h: equal keys summed), counters summed,
 * metadata kept from dst where both have a key (src-only keys are copied).
 * Returns 0, or -1 on allocation failure or when src is inconsistent. */
int wasp_profile_merge(wasp_profile *dst, const wasp_profile *src);

/* ---- allocation sites (sites.c) ---- */

/* The site with allocation context ctx and class class_name (a string id),
 * created with zero numbers when new. UINT32_MAX when out of memory or when
 * ctx or class_name is out of range. */
uint32_t wasp_profile_intern_site(wasp_profile *p, uint32_t ctx, uint32_t class_name);
/* Sums into the site's numbers (nothing when site is out of range). */
void wasp_profile_add_site_allocs(wasp_profile *p, uint32_t site, double allocations, double bytes);

/* Are p's ids in range (frames, contexts, sites, and each analysis's data)?
 * 0, or -1 with err naming the first bad entry ("site 3 refers to a missing
 * context or string"). The writer refuses such a profile; merging and
 * grouping refuse it as a source. */
int wasp_profile_check(const wasp_profile *p, char *err, size_t errlen);

/* The file. To a regular file, atomically (a temporary file in the same
 * directory, fsync, rename); into a device or pipe as it is (write.c). Both
 * return 0 / NULL on failure with a one-line reason in err. */
int wasp_profile_write(const wasp_profile *p, const char *path, char *err, size_t errlen);
wasp_profile *wasp_profile_read(const char *path, char *err, size_t errlen);

#endif
