/*
 * Watchpoint engines: how "tell me when this thread next touches these bytes"
 * is done. Two engines sit behind this one interface; the analyses and the
 * handler never know which ran:
 *   debugreg.c — hardware debug registers (perf breakpoint events, a SIGTRAP
 *                after the access);
 *   page.c     — page protection: the watched page is protected, the fault is
 *                single-stepped (trap flag), and an access that touched the
 *                watched bytes is reported after it ran, exactly as a debug
 *                register reports it. Works where debug registers do not.
 *
 * An engine is chosen by proof: self_test arms a watch on memory it owns,
 * touches it, and passes only when the trap arrived (a kernel that accepts a
 * breakpoint may still never fire it).
 *
 * arm/disarm are ASYNC-SIGNAL-SAFE (they run in the SIGTRAP handler);
 * self_test, thread_open and thread_close run on ordinary threads.
 */
#ifndef WASP_WATCH_ENGINE_H
#define WASP_WATCH_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "watch/thread_state.h"

typedef struct wasp_watch_engine {
    const char *name; /* "debugreg" or "page": the option value and the report's word */
    const char *what; /* one line for the report header */
    /* Prove the engine in this process. Returns 0, or -1 with why[] saying
     * what failed. *event_ns: measured cost of one watch event (a trap, or a
     * fault stepped over), for the CPU budget. Installs signal handlers. */
    int (*self_test)(char *why, size_t len, uint64_t *event_ns);
    /* Per-thread set-up: up to n slots. Returns how many (0: why in err). */
    int (*thread_open)(wasp_thread *t, int n, char *err, size_t errlen);
    void (*thread_close)(wasp_thread *t);
    /* Watch [addr, addr+len) (len 1/2/4/8, aligned) for stores, or loads and
     * stores, by thread t. Returns 0, -1 when arming failed, or
     * WASP_ARM_NOT_WATCHABLE for an address this engine never watches. */
    int (*arm)(wasp_thread *t, int slot, uint64_t addr, int len, int loads_too);
    void (*disarm)(wasp_thread *t, int slot);
    /* Forget every watch of every thread at once (GC start, end of the run).
     * Not signal-safe callers only. NULL when per-slot disarming suffices. */
    void (*drop_all)(void);
    /* 1: every trap costs event_ns (charged by the handler); 0: the engine
     * charges its own events into wasp_thread.watch_cost_ns. */
    int events_are_traps;
    /* 1 when thread tid is inside the engine's own fault handling (a sample
     * there measures wasp, and must not arm or disarm). NULL: never. */
    int (*busy)(pid_t tid);
} wasp_watch_engine;

extern const wasp_watch_engine wasp_debugreg_engine;
extern const wasp_watch_engine wasp_page_engine;

/* The engine named `name` ("debugreg", "page"), NULL when unknown. */
const wasp_watch_engine *wasp_watch_engine_named(const char *name);

/* Page engine: only the Java heap may be protected (never a stack, code or
 * the C heap). Set once the heap exists; until then nothing is armed. */
void wasp_page_set_heap(uint64_t lo, uint64_t hi);

/* Page engine statistics for the profile (process-wide). */
typedef struct wasp_page_stats {
    uint64_t faults;         /* protection faults on watched pages */
    uint64_t stepped;        /* ... that were not a watched access (stepped over) */
    uint64_t emulated;       /* ... of those, completed by emulation instead of a step */
    uint64_t foreign;        /* ... by threads that do not own a watch on the page */
    uint64_t released;       /* pages released because they could not be stepped */
    uint64_t protect_failed; /* mprotect refusals */
    uint64_t cost_emulated_ns, cost_stepped_ns; /* measured at start-up, per fault */
} wasp_page_stats;
void wasp_page_stats_get(wasp_page_stats *s);
/* Estimated cost of faults by threads that own no watch on the page: charged
 * to the process. */
uint64_t wasp_page_foreign_cost_ns(void);

/* In the SIGTRAP handler: a single-step trap that ends a page-engine step.
 * Returns 1 when it was one (handled), 0 otherwise. */
struct ucontext_t;
int wasp_page_on_step(const void *siginfo, void *ucontext);

#endif
