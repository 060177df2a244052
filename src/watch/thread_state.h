/*
 * What one profiled thread owns: its address-source event, its debug-register
 * slots and its records. Created by the agent when the thread starts, used
 * afterwards only by that thread's signal handler, read by the dump once the
 * handler is quiescent.
 *
 * ASYNC-SIGNAL-SAFE: the handler reads and writes these structures; nothing
 * here allocates.
 */
#ifndef WASP_THREAD_STATE_H
#define WASP_THREAD_STATE_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "watch/pair_client.h"
#include "catalog/ids.h"
#include "heap/recent_objects.h"
#include "sample/source.h"
#include "watch/records.h"
#include "watch/reservoir.h"

/* Slots: at most four the reservoir fills from samples (debug registers have
 * four), then window slots (the page engine's, see wasp_watch_claim_window:
 * as many as a window reaches, analysis/pairs/window.h). A thread's slots are
 * allocated for the engine that runs (watch/slots.h, wasp_slots_alloc), so a
 * debug-register thread carries four, not 260.
 * Thread indices are never reused (a late signal cannot reach the wrong
 * thread); 2^20 of them fit the 24 bits sig_data gives the index. */
enum {
    WASP_SAMPLED_SLOTS = 4,
    WASP_WINDOW_SLOTS = 256,
    WASP_MAX_SLOTS = WASP_SAMPLED_SLOTS + WASP_WINDOW_SLOTS,
    WASP_MAX_THREADS = 1u << 20
};

typedef enum wasp_slot_state {
    WASP_SLOT_FREE = 0,
    WASP_SLOT_FIRST, /* waiting for the sampled instruction's own trap */
    WASP_SLOT_ARMED  /* waiting for the next access */
} wasp_slot_state;

typedef struct wasp_slot {
    int fd;             /* perf breakpoint event, -1 when unavailable */
    uint8_t state;      /* wasp_slot_state */
    uint8_t watch_loads;
    uint32_t access_size;  /* bytes of the sampled access (credited per sample) */
    uint64_t addr;         /* watched address */
    uint64_t first_end;    /* expected trap PC of the sampled instruction */
    uint32_t watch_ctx;    /* records context id of C_watch */
    uint32_t epoch;        /* GC epoch when armed */
    uint32_t tag;          /* the owning analysis's own (replicas: the allocation site) */
    uint64_t wp_page;      /* page engine: the protected page, 0 when none */
    wasp_watch watch;
} wasp_slot;

typedef struct wasp_thread {
    uint32_t index;        /* position in the registry; encoded in sig_data */
    uintptr_t token;       /* the thread-local value naming this state (agent/threads.c) */
    pid_t tid;
    void *jni_env;         /* for AsyncGetCallTrace */
    volatile int active;   /* 0: the handler ignores this thread's signals */
    int quieted;           /* its events closed (agent/threads.c, once) */
    int fds_held;          /* descriptors its events hold (agent/fd_budget.h) */
    volatile int in_handler;
    uint32_t entries;      /* handler entries so far (take, handler.c) */
    /* The last context captured, and in which entry: one access's context is
     * the same for every watch it judges and the member it starts (context.c). */
    uint32_t ctx_memo_entry, ctx_memo;
    uint64_t ctx_memo_pc;
    uint8_t ctx_memo_len;
    int adopted;           /* running before the agent attached (no TLS pointer) */
    wasp_sampler_thread sampler; /* the sampler's own (sample/source.h) */
    int nslots;            /* slots samples arm (the reservoir's) */
    int nwindow;           /* then slots for window watches (wasp_watch_claim_window) */
    int capacity;          /* entries of slots[] and reservoir[] (wasp_slots_alloc) */
    wasp_slot *slots;
    wasp_reservoir_slot *reservoir;
    uint32_t epoch;        /* GC epoch this thread's slots belong to */
    uint64_t rng;
    uint64_t trap_cache_pc[64];  /* trap PC -> instruction length cache */
    uint8_t trap_cache_len[64];
    uint8_t trap_cache_kind[64];
    uint64_t cpu_ns_start;
    double cpu_mark_s;     /* its CPU seconds when last folded or stopped (agent/threads.c) */
    double cpu_folded_s;   /* ... of which an earlier snapshot's profile holds */
    double kernel_start_s;  /* its kernel CPU seconds when its profiling began */
    double kernel_mark_s;   /* ... of them since, when last folded or stopped */
    double kernel_folded_s; /* ... of which an earlier snapshot's profile holds */
    uint64_t watch_cost_ns; /* estimated CPU cost of this thread's watch events (budget) */
    uint64_t self_sampled_ns; /* CPU time samples found in wasp's handling (budget.c) */
    uint64_t budget_cpu_ns;   /* thread CPU time at the last budget check */
    uint64_t budget_self_seen_ns; /* self_sampled_ns at the last budget check */
    /* The budget kept apart for each analysis that watches (budget.c):
     * what its watches cost, as charged and as the last check saw it, and
     * its ledger, earned minus spent, capped. */
    uint64_t budget_cost_ns[WASP_ANALYSES];
    uint64_t budget_cost_seen_ns[WASP_ANALYSES];
    double budget_ledger_ns[WASP_ANALYSES];
    uint32_t budget_open;      /* a bit per analysis: may arm until the next check */
    uint32_t budget_countdown; /* samples until the next budget check */
    uint32_t budget_asks;  /* calls of wasp_budget_allows (a sample reached the budget) */
    /* Per analysis, the weight of samples that no watch of it stood for
     * when they came (refused with none alive): its next armed sample's
     * (watch_kit.c). */
    double unheld_weight[WASP_ANALYSES];
    uint8_t pace_shift;    /* the period is the base's 2^pace_shift (sampler_period.h) */
    uint64_t handler_ns;   /* time in the sampling handler since the last check */
    /* Where and when the page engine last gave the thread back its own
     * instruction stream after a fault on a page it watches (watch/handler.h,
     * wasp_mark_wasp_exit): a sample delivered right there measures wasp. */
    volatile uint64_t wasp_exit_pc, wasp_exit_ns;
    /* How deep the thread is in wasp's JVMTI callbacks (agent/threads.h,
     * wasp_agent_enter): samples meanwhile, in the JVM's code the callback
     * called, measure wasp, not the program. */
    volatile uint32_t in_agent;
    uint32_t handler_samples;
    /* Bytes it allocated outside TLABs, as its JVMTI allocation samples
     * estimate them (agent/alloc_outside.c, s/p a sample): the alloc
     * windows across a GC leave them out of the TLAB bytes
     * (analysis/alloc/coverage.c). Written by the thread's JVMTI callback,
     * read by its own signal handler. */
    uint64_t alloc_outside_bytes;
    wasp_rframe *scratch;  /* AsyncGetCallTrace output, max_frames long */
    void *part_state[WASP_ANALYSES]; /* each analysis's own (handler_part.h thread_state) */
    void *part_state_map;            /* one mapping holds them all (agent/threads.c) */
    size_t part_state_len;
    wasp_recent_objects recent_objects; /* large objects it found lately (wasp_object_hit_recent) */
    struct wasp_chain_thread *chain; /* --context chain: quadruples (watch/caller_chain.h) */
    wasp_records rec;
    char name[64];
    struct wasp_thread *retired_next; /* in the graveyard of an ended session (agent/threads.c) */
} wasp_thread;

#endif
