/*
 * The wasp profile: calling contexts, context pairs with their metrics, totals
 * per analysis, counters and metadata. One in-memory model, written to and read
 * from the versioned profile file (docs/profile-format.md), merged across
 * threads, runs and hosts.
 *
 * Not async-signal-safe: this allocates. The agent builds a wasp_profile from
 * its per-thread signal-safe tables only when it writes the file.
 */
#ifndef WASP_PROFILE_H
#define WASP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum wasp_analysis {
    WASP_AN_DEADSTORE = 0,
    WASP_AN_SILENTSTORE = 1,
    WASP_AN_SILENTLOAD = 2,
    WASP_AN_COUNT = 3
} wasp_analysis;

/* "deadstore", "silentstore", "silentload"; NULL when out of range. */
const char *wasp_analysis_name(wasp_analysis a);
/* Inverse of wasp_analysis_name; -1 when unknown. */
int wasp_analysis_from_name(const char *name);

typedef enum wasp_frame_kind {
    WASP_FRAME_JAVA = 0,   /* name "pkg.Class.method", file "Class.java", line >= 1 or -1 */
    WASP_FRAME_NATIVE = 1, /* name is a symbol ("memset", or "+0x1234" when hidden), file the library ("libc.so.6") */
    WASP_FRAME_STUB = 2,   /* JVM-generated code: stub or interpreter ("StubRoutines::arraycopy") */
    WASP_FRAME_UNKNOWN = 3 /* e.g. "[no Java frames: AsyncGetCallTrace -2]" */
} wasp_frame_kind;

/* String ids index the profile's string table; id 0 is always the empty string. */
typedef struct wasp_frame {
    uint32_t kind; /* wasp_frame_kind */
    uint32_t name; /* string id */
    uint32_t file; /* string id, 0 when unknown */
    int32_t line;  /* source line, -1 when unknown */
} wasp_frame;

/* A calling context: frames root first, leaf last, and the leaf machine
 * instruction in AT&T syntax (string id, 0 when unknown). */
typedef struct wasp_context {
    uint32_t first; /* index into frame_refs */
    uint32_t nframes;
    uint32_t insn;  /* string id, e.g. "mov %eax, 0x10(%rbx)" */
} wasp_context;

enum wasp_pair_flags {
    WASP_PAIR_APPROX = 1 /* values compared as float/double within the threshold */
};

/* <C_watch, C_trap> for one analysis. bytes: wasteful bytes (dead / silent)
 * credited to the pair; count: the (proportionally attributed) number of
 * samples behind them. */
typedef struct wasp_pair {
    uint32_t analysis; /* wasp_analysis */
    uint32_t flags;    /* wasp_pair_flags */
    uint32_t watch_ctx;
    uint32_t trap_ctx;
    double bytes;
    double count;
} wasp_pair;

/* Per analysis: the denominators and numerators of F_prog (JXPerf Sec. 4).
 * bytes: all bytes stored (loaded) in classified pairs, wasteful or not;
 * wasted: exact (integer) wasteful bytes; wasted_approx: float/double ones. */
typedef struct wasp_totals {
    double bytes;
    double wasted;
    double wasted_approx;
    double pairs; /* classified pairs (weighted) */
} wasp_totals;

typedef struct wasp_kv {
    char *key;
    char *value;
} wasp_kv;

typedef struct wasp_counter {
    char *name; /* e.g. "samples", "armed", "trapped", "dropped.gc" */
    uint64_t value;
} wasp_counter;

/* Object-centric profile (DJXPerf): allocation sites and the accesses to their objects. */
typedef struct wasp_site {
    uint32_t ctx;         /* allocation calling context (a wasp_context; insn 0) */
    uint32_t class_name;  /* string id, Java notation: "double[]", "java.lang.String" */
    double allocations;   /* objects seen allocated (sampled allocations) */
    double bytes;         /* their bytes */
} wasp_site;
typedef struct wasp_site_access {
    uint32_t site;        /* index into sites */
    uint32_t access_ctx;  /* context of the accessing instruction (frames + insn) */
    double samples;       /* address samples that hit objects of the site from this context */
    double remote;        /* of those, samples where the page's NUMA node differs from the CPU's */
} wasp_site_access;

/* Replica comparisons (OJXPerf) of one allocation site (index into sites), by the access context
   where the later object's field was compared. */
typedef struct wasp_replica {
    uint32_t site;
    uint32_t access_ctx;
    double same;       /* comparisons whose values were bitwise equal */
    double different;  /* ... not equal (including objects of different sizes) */
} wasp_replica;
/* Verification of one site (optional): whole-object comparisons done at the end of the run. */
typedef struct wasp_replica_check {
    uint32_t site;
    double pairs;          /* object pairs compared whole */
    double identical;      /* of those, identical */
    double alpha;          /* chance a sampled field is equal when the objects differ */
    double false_positive; /* of sampled "same" comparisons checked, share whose objects differ */
} wasp_replica_check;

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

    wasp_pair *pairs;
    uint32_t npairs, cap_pairs;
    void *pair_index;

    wasp_totals totals[WASP_AN_COUNT];

    wasp_kv *meta;
    uint32_t nmeta, cap_meta;

    wasp_counter *counters;
    uint32_t ncounters, cap_counters;

    uint32_t merged; /* how many profiles were merged into this one (1 for a fresh one) */

    /* Object-centric data: sites keyed by (ctx, class_name), accesses by
     * (site, access_ctx). site_head/access_next chain each site's accesses
     * (private: kept by wasp_profile_add_site_access). */
    wasp_site *sites;
    uint32_t nsites, cap_sites;
    void *site_index;

    wasp_site_access *accesses;
    uint32_t naccesses, cap_accesses;
    void *access_index;

    uint32_t *site_head;   /* site -> its newest access, UINT32_MAX when none */
    uint32_t *access_next; /* access -> the previous access of its site, UINT32_MAX at the end */

    /* Object replicas (OJXPerf): records keyed by (site, access_ctx), at
     * most one check per site. replica_index is private and created on the
     * first record (replicas.c). */
    wasp_replica *replicas;
    uint32_t nreplicas, cap_replicas;
    void *replica_index;

    wasp_replica_check *replica_checks;
    uint32_t nreplica_checks, cap_replica_checks;
} wasp_profile;

wasp_profile *wasp_profile_new(void);
void wasp_profile_free(wasp_profile *p);

uint32_t wasp_profile_intern_string(wasp_profile *p, const char *s);
const char *wasp_profile_string(const wasp_profile *p, uint32_t id);
uint32_t wasp_profile_intern_frame(wasp_profile *p, const wasp_frame *f);
uint32_t wasp_profile_intern_context(wasp_profile *p, const uint32_t *frame_ids,
                                     uint32_t nframes, uint32_t insn);
/* Adds bytes/count to the pair with the same (analysis, flags, watch, trap),
 * creating it when new. */
void wasp_profile_add_pair(wasp_profile *p, wasp_analysis a, uint32_t flags,
                           uint32_t watch_ctx, uint32_t trap_ctx, double bytes,
                           double count);
void wasp_profile_add_totals(wasp_profile *p, wasp_analysis a, const wasp_totals *t);

/* Metadata: set replaces; get returns NULL when absent. */
void wasp_profile_set_meta(wasp_profile *p, const char *key, const char *value);
const char *wasp_profile_get_meta(const wasp_profile *p, const char *key);
/* Counters: add sums into the named counter (creating it at 0). */
void wasp_profile_add_counter(wasp_profile *p, const char *name, uint64_t v);
uint64_t wasp_profile_get_counter(const wasp_profile *p, const char *name);

/* dst += src: strings, frames and contexts re-interned, pairs with equal keys
 * summed, sites with equal (allocation context, class) and accesses with equal
 * (site, access context) summed, totals and counters summed, metadata kept from dst where both have a
 * key (src-only keys are copied). Returns 0, or -1 on allocation failure. */
int wasp_profile_merge(wasp_profile *dst, const wasp_profile *src);

/* F_prog (JXPerf Sec. 4): (wasted + wasted_approx) / bytes, 0 when no bytes. */
double wasp_fraction_prog(const wasp_profile *p, wasp_analysis a);
/* F_<watch,trap>: pair bytes / total bytes of its analysis, 0 when no bytes. */
double wasp_fraction_pair(const wasp_profile *p, const wasp_pair *pair);

/* Indices of p's pairs of analysis a sorted by bytes, descending (ties broken
 * by watch then trap context id, so the order is deterministic). Caller frees.
 * *n receives the count. */
uint32_t *wasp_profile_sorted_pairs(const wasp_profile *p, wasp_analysis a, uint32_t *n);

/* ---- object-centric data (objects.c) ---- */

/* The site with allocation context ctx and class class_name (a string id),
 * created with zero numbers when new. UINT32_MAX when out of memory or when
 * ctx or class_name is out of range. */
uint32_t wasp_profile_intern_site(wasp_profile *p, uint32_t ctx, uint32_t class_name);
/* Sums into the site's numbers (nothing when site is out of range). */
void wasp_profile_add_site_allocs(wasp_profile *p, uint32_t site, double allocations, double bytes);
/* Adds samples/remote to the access with the same (site, access_ctx),
 * creating it when new (nothing when an id is out of range or out of memory). */
void wasp_profile_add_site_access(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                  double samples, double remote);
/* The site's samples (the sum over its accesses) and, in *remote when not
 * NULL, its remote samples. 0 for an unknown site. */
double wasp_profile_site_samples(const wasp_profile *p, uint32_t site, double *remote);
/* Indices of p's sites by total samples, descending; ties by bytes, then
 * allocations (descending), then allocation context and class id, so the
 * order is deterministic. Caller frees; non-NULL (even for none) unless out
 * of memory. *n receives the count. */
uint32_t *wasp_profile_sorted_sites(const wasp_profile *p, uint32_t *n);
/* Indices (into accesses) of one site's accesses by samples, descending;
 * ties by access context id. Caller frees; NULL only when out of memory. */
uint32_t *wasp_profile_sorted_site_accesses(const wasp_profile *p, uint32_t site, uint32_t *n);
/* Does the report show the object-centric section? True when p has sites or
 * accesses, when meta "events" names "objects" ("objects",
 * "deadstore+objects"), or when the counter "objects.samples" exists. */
bool wasp_profile_has_objects(const wasp_profile *p);
/* Are remote accesses impossible here? True when meta "numa_nodes" is "1"
 * and no access recorded a remote sample (a merge with a profile from a
 * multi-node host brings remote samples in, and they are then shown). */
bool wasp_profile_objects_single_node(const wasp_profile *p);

/* ---- object replicas, OJXPerf (replicas.c) ---- */

/* Adds same/different to the record with the same (site, access_ctx),
 * creating it when new (nothing when an id is out of range or out of memory). */
void wasp_profile_add_replica(wasp_profile *p, uint32_t site, uint32_t access_ctx, double same,
                              double different);
/* Replaces c->site's check, or adds it (nothing when the site is out of range
 * or out of memory). */
void wasp_profile_set_replica_check(wasp_profile *p, const wasp_replica_check *c);
/* The check of a site, NULL when it has none. */
const wasp_replica_check *wasp_profile_replica_check(const wasp_profile *p, uint32_t site);
/* Sites with at least one comparison (same + different >= 1), ranked by
 * θ × the site's access samples (wasp_profile_site_samples), or θ × its
 * comparisons when it has no access samples; ties by θ, then comparisons
 * (descending), then allocation context, class and site id. Caller frees;
 * non-NULL (even for none) unless out of memory. *n receives the count. */
uint32_t *wasp_profile_sorted_replica_sites(const wasp_profile *p, uint32_t *n);
/* Indices (into replicas) of one site's records by comparisons, descending;
 * ties by access context id. Caller frees; NULL only when out of memory. */
uint32_t *wasp_profile_sorted_site_replicas(const wasp_profile *p, uint32_t site, uint32_t *n);
/* θ of a site = same / (same + different) over all its replica records; 0 when none.
 * *comparisons (when not NULL) receives same + different. */
double wasp_replica_theta(const wasp_profile *p, uint32_t site, double *comparisons);
/* OJXPerf Def. 6.2: ω = θ − α, the lower bound of the largest group of
 * identical objects' share of the site's objects (negative: no bound). */
double wasp_replica_omega(double theta, double alpha);
/* OJXPerf Def. 6.3: γ = 1/(2(X−1)) + sqrt(1/(4(X−1)²) + (θ−α)/(1−α)), the
 * upper bound of that share, X the site's objects. (θ−α)/(1−α) below 0 is
 * taken as 0. NAN when X <= 1 or α >= 1 (no bound). */
double wasp_replica_gamma(double theta, double alpha, double x);
/* Does the report show the replica section? True when p has replica records
 * or checks, or when meta "events" names "replicas". */
bool wasp_profile_has_replicas(const wasp_profile *p);

/* The file. Write is atomic: a temporary file in the same directory, fsync,
 * rename. Both return 0 / NULL on failure with a one-line reason in err. */
int wasp_profile_write(const wasp_profile *p, const char *path, char *err, size_t errlen);
wasp_profile *wasp_profile_read(const char *path, char *err, size_t errlen);

#endif
