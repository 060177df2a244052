/*
 * An analysis's part in the signal handler: what it needs, and what it does
 * with a sample, with the object a sample touched, and with a trap of a
 * watchpoint it armed. The handler (src/watch/handler.c) calls the parts of
 * the enabled analyses and names none of them; the parts use the tools of
 * watch/kit.h. Registry: watch/handler_parts.c, from catalog/list.h.
 *
 * ASYNC-SIGNAL-SAFE: on_sample, on_object and on_trap run in the SIGTRAP
 * handler of the thread they are given; on_birth runs with that handler held
 * off (it may be interrupted by nothing of ours); enable runs once at set-up.
 */
#ifndef WASP_HANDLER_PART_H
#define WASP_HANDLER_PART_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "watch/pair_client.h"
#include "catalog/ids.h"
#include "watch/engine.h"
#include "watch/handler.h"
#include "watch/kit.h"
#include "watch/object_hit.h"

enum wasp_needs {
    WASP_NEEDS_WATCH = 1,  /* arms watchpoints: off when no watchpoint engine works */
    WASP_NEEDS_OBJECTS = 2, /* tracked objects: allocation tracking and the object map */
    WASP_NEEDS_JAVA = 4,    /* HotSpot's object layout (heap/java_layout.h), from VMStructs */
    WASP_NEEDS_TLAB = 8     /* where a thread's TLAB is (heap/tlab.h), from VMStructs */
};

/* A tracked object just allocated by the calling thread. */
typedef struct wasp_birth {
    uint64_t addr;               /* its start, valid in GC epoch `epoch` */
    uint32_t size, site, epoch;  /* bytes, allocation site id */
    const wasp_rframe *frames;   /* the allocation's stack, leaf first */
    uint32_t nframes;
} wasp_birth;

typedef struct wasp_handler_part {
    unsigned needs; /* wasp_needs bits */
    unsigned wants; /* what it wants sampled: wasp_sample_wants bits (sample/source.h) */
    /* Pair analyses (JXPerf): the judge of their <watch, trap> pairs. */
    const wasp_analysis_client *pair;
    /* Set-up with the enabled analyses (a bit per id), before sampling starts. */
    void (*enable)(uint32_t enabled);
    /* Every usable sample. Parts sharing one function (the pair analyses)
     * are called once per sample. */
    void (*on_sample)(wasp_thread *t, const wasp_sample_view *v);
    /* A sample that touched a tracked object (WASP_NEEDS_OBJECTS). */
    void (*on_object)(wasp_thread *t, const wasp_sample_view *v, const wasp_object_hit *h);
    /* A sample whose access may be in the Java heap but hit no object,
     * tracked or by class (WASP_NEEDS_OBJECTS): h->acc and h->at are set,
     * h->obj is not. */
    void (*on_no_object)(wasp_thread *t, const wasp_sample_view *v, const wasp_object_hit *h);
    /* The calling thread allocated a tracked object (the allocation event,
     * before the program wrote into it; WASP_NEEDS_OBJECTS). Not in a signal
     * handler, but with this thread's handler held off, so the same tools
     * apply. */
    void (*on_birth)(wasp_thread *t, const wasp_birth *b);
    /* A watchpoint this analysis claimed (wasp_watch_claim with its id) trapped,
     * in the same GC epoch, synchronously. */
    void (*on_trap)(wasp_thread *t, int slot, const ucontext_t *uc);
    /* An access of the thread the engine saw whole on a page it watches
     * (handler.h, wasp_handler_access; after the traps of the watches it hit): the analysis may watch it too
     * (wasp_watch_claim_window). NULL: not interested. */
    void (*on_window_access)(wasp_thread *t, const ucontext_t *uc, const wasp_window_access *a);
    /* The thread's watches are all gone (it ended, or the run did): settle
     * what the analysis held back. Its signals are quiet. NULL: nothing. */
    void (*on_thread_end)(wasp_thread *t);
    /* Names of its counters, t->rec.part_counters[id][k]; NULL-padded. */
    const char *counters[WASP_PART_COUNTERS];
    /* Bytes of per-thread state, t->part_state[id], zeroed at thread start. */
    size_t thread_state;
    /* The CPU-time sampling period it asks for when the options name none,
     * with the watchpoint engine chosen (NULL: none); the shortest asked
     * wins. NULL, or 0: the common default (WASP_PERIOD_DEFAULT_NS). */
    uint64_t (*period_ns)(const wasp_watch_engine *engine);
} wasp_handler_part;

/* The period_ns of analyses whose results are shares of their samples
 * (locks, objects; fields asks for 4 ms, its samples being costlier): 2 ms.
 * A busy thread gives 500 samples a second, a profile in seconds, for about
 * half the cost of one every ms (where a signal costs 15-30 us to deliver,
 * as on VMs, that alone is 1.5-3%: docs/overhead-fourth-paper.md). */
uint64_t wasp_period_for_shares(const wasp_watch_engine *engine);

/* The handler part of analysis id; NULL when out of range. */
const wasp_handler_part *wasp_handler_part_of(int id);

#endif
