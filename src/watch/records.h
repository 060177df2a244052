/*
 * Per-thread measurement records: calling contexts and context pairs, kept in
 * fixed-size tables that the owning thread's signal handler fills and the dump
 * reads after sampling has stopped.
 *
 * ASYNC-SIGNAL-SAFE: the insert/add functions run in the SIGTRAP handler. The
 * tables are allocated once (records_init, outside any handler); inserting never
 * allocates, never locks, and a full table counts a drop instead of growing.
 */
#ifndef WASP_RECORDS_H
#define WASP_RECORDS_H

#include <stdint.h>

#include "watch/pair_client.h" /* wasp_totals */
#include "catalog/ids.h"
#include "profile/profile.h"

/* One Java frame as AsyncGetCallTrace returns it (same layout as
 * ASGCT_CallFrame: the bci, then the jmethodID); or, with bci
 * WASP_RFRAME_NATIVE, a native frame between the leaf and the Java frames:
 * `method` is then its return address (named when the profile is written);
 * or, with bci WASP_RFRAME_CALLER_AT, leaf of a stub's caller the walk named
 * without a position (the next frame, bci < 0): `method` is the return
 * address into the caller's compiled code, whose debug records the profile's
 * writer reads (watch/context.c, agent/dump.c). */
typedef struct wasp_rframe {
    int32_t bci;
    void *method;
} wasp_rframe;

enum {
    WASP_RFRAME_NATIVE = INT32_MIN,
    /* INT32_MIN + 1: a CallerChaining mark (watch/caller_chain.h) */
    WASP_RFRAME_CALLER_AT = INT32_MIN + 2,
    WASP_NATIVE_FRAMES_MAX = 16
};

/* Whether n frames are the same, field by field: the four bytes of padding
 * after bci are not data (frames built by assignment leave them undefined,
 * and comparing them with memcmp once split one allocation site in two). */
static inline int wasp_rframes_equal(const wasp_rframe *a, const wasp_rframe *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i].bci != b[i].bci || a[i].method != b[i].method)
            return 0;
    return 1;
}

/* A stack trace: frames leaf first, as captured. nframes == 0 means the walk
 * failed and status holds AsyncGetCallTrace's error code. */
typedef struct wasp_rtrace {
    uint64_t hash;
    uint32_t first;
    uint16_t nframes;
    int16_t status;
} wasp_rtrace;

/* A calling context: a trace plus the leaf instruction (its bytes are copied
 * because JIT code may be gone by the time the profile is written). */
typedef struct wasp_rcontext {
    uint64_t pc;
    uint32_t trace; /* index + 1 into traces; 0 = empty slot */
    uint8_t insn_len;
    uint8_t insn[15];
} wasp_rcontext;

typedef struct wasp_rpair {
    uint32_t watch_ctx; /* index + 1; 0 = empty slot */
    uint32_t trap_ctx;
    uint16_t analysis;
    uint16_t flags;
    double bytes;
    double count;
} wasp_rpair;

/* The numbers an object-level analysis keeps per allocation site and access
 * context: objects, samples and remote samples (c unused); replicas, same
 * and different comparisons, and c of the same that compared zero words. */
typedef struct wasp_rsite {
    uint32_t site;       /* allocation-site id + 1; 0 = empty slot */
    uint32_t access_ctx; /* context id */
    double a, b, c;
} wasp_rsite;

/* Counters of an analysis's own, named by its handler part. */
enum { WASP_PART_COUNTERS = 20 };

/* Counters the handler bumps; named in records.c for the profile. */
typedef enum wasp_counter_id {
    WASP_C_SAMPLES,          /* address-source samples taken */
    WASP_C_SAMPLES_MEMORY,   /* ... that were a memory access of a wanted kind */
    WASP_C_SAMPLES_NOMEM,    /* ... at an instruction without a usable memory operand */
    WASP_C_SAMPLES_UNDECODABLE, /* ... whose instruction could not be read or decoded */
    WASP_C_SAMPLES_IGNORED,  /* ... of the stack, constants or null-check addresses */
    WASP_C_SAMPLES_SELF,     /* ... that landed in wasp's own fault handling (not counted as the program's) */
    WASP_C_ARMED,            /* watchpoints armed */
    WASP_C_TRAPPED,          /* watchpoint traps (all) */
    WASP_C_CLASSIFIED,       /* pairs classified */
    WASP_C_DROP_RESERVOIR,   /* sample not armed: reservoir kept older watchpoints */
    WASP_C_DROP_REPLACED,    /* armed watchpoint replaced before it trapped */
    WASP_C_DROP_GC,          /* watchpoint discarded by a GC epoch change */
    WASP_C_DROP_ARM_FAILED,  /* the kernel refused to arm a debug register */
    WASP_C_DROP_FIRST_TRAP,  /* first trap was not the sampled instruction */
    WASP_C_DROP_TRAP_DECODE, /* trap PC could not be mapped to an instruction */
    WASP_C_DROP_UNREADABLE,  /* watched value could not be read */
    WASP_C_DROP_ASYNC,       /* trap delivered late (signal was blocked) */
    WASP_C_DROP_TABLE_FULL,  /* a per-thread table was full */
    WASP_C_DROP_STORE_CHAIN, /* silent-load watch ended by too many stores */
    WASP_C_DROP_EXIT,        /* still armed when the thread or the run ended */
    WASP_C_AGCT_FAILED,      /* AsyncGetCallTrace found no Java frames */
    /* Of WASP_C_AGCT_FAILED, by AsyncGetCallTrace's status (see agct_cause in
     * watch/context.c): why a capture has no Java frames. */
    WASP_C_AGCT_NATIVE,       /* 0: thread in native or VM code */
    WASP_C_AGCT_NO_CLASS_LOAD, /* -1: ClassLoad events not enabled yet */
    WASP_C_AGCT_GC,           /* -2: a collection in progress */
    WASP_C_AGCT_UNKNOWN_NOT_JAVA, /* -3: PC in unknown code, thread not in Java */
    WASP_C_AGCT_NOT_WALKABLE_NOT_JAVA, /* -4 */
    WASP_C_AGCT_UNKNOWN_JAVA, /* -5: PC in code that is not a Java frame (a stub), no caller found */
    WASP_C_AGCT_NOT_WALKABLE_JAVA, /* -6: frame under construction (prologue, interpreter entry) */
    WASP_C_AGCT_UNKNOWN_STATE, /* -7 */
    WASP_C_AGCT_THREAD_EXIT,  /* -8 */
    WASP_C_AGCT_DEOPT,        /* -9: deoptimization in progress */
    WASP_C_AGCT_SAFEPOINT,    /* -10: at a safepoint */
    WASP_C_AGCT_OTHER,        /* no stack walker, or a status not listed */
    WASP_C_AGCT_ANCHOR_PC,    /* walks of threads in the VM that worked through the anchor (pc filled, or past a stub) */
    WASP_C_STACK_WALKS,       /* contexts captured with a stack walk */
    WASP_C_STACK_WALK_NS,     /* time those walks took, retries included (monotonic clock) */
    WASP_C_STACK_RETRY_NS,    /* of which the retries (from a stub's caller, the anchor) and the
                               * native frames */
    WASP_C_STACK_NATIVE_FRAMES, /* native frames found below the Java frames (frame pointers) */
    WASP_C_STACK_CALLER_AT,   /* stub callers the walk gave no position: placed when written (code map) */
    WASP_C_OBJ_SAMPLES,      /* accesses the objects analysis looked up */
    WASP_C_OBJ_UNATTRIBUTED, /* ... that hit no tracked object */
    WASP_C_OBJ_STALE,        /* ... taken while the object map awaited its post-GC rebuild */
    WASP_C_OBJ_MISMATCHED,   /* ... whose access cannot be to the object hit (a double load in an int[]) */
    WASP_C_DROP_BUDGET,      /* sample not armed: the watchpoint engine's CPU budget was spent */
    WASP_C_DROP_NOT_HEAP,    /* sample not armed: the page engine protects only the Java heap */
    WASP_C_DROP_FAULT_CAP,   /* page engine: a watch cost its owner too many faults */
    WASP_C_SAMPLER_BACKOFF,  /* sampling period doubled: the handler passed its CPU budget */
    WASP_C_SAMPLER_PACED_SKIPS, /* samples not taken: the period was longer while the watch budget was spent */
    WASP_C_SAMPLER_HANDLER_NS, /* CPU time in the sampling handler (signal delivery not included) */
    WASP_C_WATCH_HANDLER_NS, /* CPU time in the watchpoint trap handler (the trap not included) */
    WASP_C_OBJ_BY_CLASS,     /* accesses to an untracked object, attributed to its class (header) */
    WASP_C_OBJ_OFF_HEAP,     /* of the unattributed, those surely outside the Java heap */
    /* CallerChaining contexts (watch/caller_chain.h), --context chain. */
    WASP_C_CHAIN_MAPPED,      /* contexts taken as (pc, depth), no walk */
    WASP_C_CHAIN_NS,          /* time those took (monotonic clock) */
    WASP_C_CHAIN_WALKED,      /* contexts walked instead, by cause: */
    WASP_C_CHAIN_NOT_COMPILED, /* ... pc in no compiled method (interpreter, stubs, VM, native) */
    WASP_C_CHAIN_UNVERIFIED,  /* ... whose instruction is unknown or not the copy's (code replaced or patched) */
    WASP_C_CHAIN_NO_SHAPE,    /* ... in a method whose prologue has no known shape */
    WASP_C_CHAIN_RSP_UNKNOWN, /* ... where rsp is not the body's (epilogue, push/pop) */
    WASP_C_CHAIN_BAD_RETURN,  /* ... return address not a call site of a compiled method */
    WASP_C_CHAIN_NO_STACK,    /* ... stack bounds unknown */
    WASP_C_CHAIN_QUADS_FULL,  /* quadruples not kept: the thread's table was full */
    WASP_C_WINDOW_ARMED,      /* watches started on an access the engine saw whole (window) */
    WASP_C_WINDOW_DROPPED,    /* ... of them dropped, for any reason (not in dropped.*) */
    WASP_C_STRING_UNDER_WATCH, /* samples in a repeated string move while a watch was armed on the
                                * thread (its slowdown charged to the watch budget) */
    WASP_C_DROP_STRING_COST,  /* armed watches dropped at such a sample: their analysis was deep in
                               * debt to the watch budget */
    WASP_C_COUNT
} wasp_counter_id;

const char *wasp_counter_name(wasp_counter_id id);

typedef struct wasp_records {
    wasp_rframe *frames;
    uint32_t nframes, cap_frames;
    wasp_rtrace *traces;
    uint32_t ntraces, cap_traces; /* cap is a power of two (open addressing) */
    wasp_rcontext *contexts;
    uint32_t ncontexts, cap_contexts;
    wasp_rpair *pairs;
    uint32_t npairs, cap_pairs;
    wasp_rsite *sites[WASP_ANALYSES]; /* per analysis that asked for one, else NULL */
    uint32_t nsites[WASP_ANALYSES], cap_sites;
    wasp_totals totals[WASP_AN_COUNT];
    uint64_t counters[WASP_C_COUNT];
    uint64_t part_counters[WASP_ANALYSES][WASP_PART_COUNTERS];
} wasp_records;

/* Reserve the tables (mmap: pages cost memory only once touched), with a
 * site table for each analysis id in site_tables (a bit per id).
 * Returns 0 or -1. Not for signal handlers. */
int wasp_records_init(wasp_records *r, uint32_t max_frames, uint32_t site_tables);
void wasp_records_free(wasp_records *r);
/* How full the fullest table is (0 to 1), read while the owner's handler
 * may add to them (a relaxed read: for deciding when to fold, not exact). */
double wasp_records_fill(const wasp_records *r);
/* Empty every table and counter, keeping the reservations (their pages go
 * back to the kernel): what a snapshot folded starts again from nothing.
 * Not for signal handlers; the owner's handler must be held off. */
void wasp_records_clear(wasp_records *r);

/* Intern a trace (frames leaf first). Returns its index + 1, 0 when full. */
uint32_t wasp_records_trace(wasp_records *r, const wasp_rframe *frames, int nframes);
/* Intern a context. Returns its index + 1, 0 when full. */
uint32_t wasp_records_context(wasp_records *r, uint32_t trace, uint64_t pc,
                              const uint8_t *insn, uint8_t insn_len);
/* Add a, b and c to analysis id's numbers of site (id, not + 1) at
 * access_ctx. Returns 0, -1 when full or when id has no table. */
int wasp_records_site(wasp_records *r, int id, uint32_t site, uint32_t access_ctx, double a,
                      double b, double c);
/* Add to pair <watch, trap> of analysis a. Returns 0, -1 when full. */
int wasp_records_pair(wasp_records *r, wasp_analysis a, uint16_t flags,
                      uint32_t watch_ctx, uint32_t trap_ctx, double bytes, double count);

#endif
