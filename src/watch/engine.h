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

struct wasp_watch_figure;

typedef struct wasp_watch_engine {
    const char *name; /* "debugreg" or "page": the option value and the report's word */
    const char *what; /* one line for the report header */
    const char *label;      /* what `wasp doctor` calls it: "debug registers" */
    const char *event_word; /* one watch event: "trap", "fault" */
    /* Prove the engine in this process. Returns 0, or -1 with why[] saying
     * what failed. *event_ns: measured cost of one watch event (a trap, or a
     * fault stepped over), for the CPU budget. Installs signal handlers. */
    int (*self_test)(char *why, size_t len, uint64_t *event_ns);
    /* Slots for window watches each thread gets past the sampled ones (the
     * page engine's; debug registers have none to spare). */
    int window_slots;
    /* Per-thread set-up of t's slots, fresh from wasp_slots_alloc (free, no
     * descriptor, no page): up to n for samples. Returns how many (0: why in
     * err). */
    int (*thread_open)(wasp_thread *t, int n, char *err, size_t errlen);
    /* File descriptors a sampled slot holds (a perf event per debug
     * register: 1; page protection: 0), for the budget (agent/fd_budget.h). */
    int fds_per_slot;
    void (*thread_close)(wasp_thread *t);
    /* Watch [addr, addr+len) (len 1/2/4/8, aligned) for stores, or loads and
     * stores, by thread t. len 0 (engines with window slots only): a hold,
     * the page kept watched with no bytes of it reported. Returns 0, -1 when
     * arming failed, or WASP_ARM_NOT_WATCHABLE for an address this engine
     * never watches. */
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
    /* In the SIGTRAP handler, for a trap that is no perf event: 1 when it was
     * the engine's own (the page engine's single-step), handled. Asked of
     * every engine, chosen or not (self-tests run before the choice). NULL:
     * the engine raises no such traps. */
    int (*on_trap)(const void *siginfo, void *ucontext);
    /* The CPU share of the watching thread's time the engine may spend when
     * the user sets none (the watch_budget option). */
    double default_budget;
    /* How many times slower a repeated string move (`rep stos`, `rep movs`:
     * memset, memcpy, the JVM's clearing of large arrays) runs on a thread
     * while one of the engine's watches is armed there, as its self-test
     * measured (1: not slower, or not measurably). NULL: not slowed. */
    double (*string_slowdown)(void);
    /* 1 when the engine needs perf_event_open (a refusal explains its failure). */
    int uses_perf;
    /* Addresses the engine may watch: only the Java heap, set once it exists
     * (until then nothing is armed). NULL: any address. */
    void (*set_heap)(uint64_t lo, uint64_t hi);
    /* CPU time the engine spent that no watching thread was charged for
     * (process-wide; the budget weighs it against the process's CPU time).
     * NULL: none. */
    uint64_t (*unowned_cost_ns)(void);
    /* The engine's own figures for the profile: up to max of them into out,
     * returns how many. NULL: none. */
    int (*figures)(struct wasp_watch_figure *out, int max);
} wasp_watch_engine;

/* One figure an engine reports: a counter ("watch.faults") or, with
 * per_event set, a per-event cost in microseconds (metadata). */
typedef struct wasp_watch_figure {
    const char *name;
    double value;
    int per_event;
} wasp_watch_figure;

extern const wasp_watch_engine wasp_debugreg_engine;
extern const wasp_watch_engine wasp_page_engine;

/* Every engine, NULL-terminated, the preferred first: `auto` takes the first
 * that proves itself (agent/probe.c, wasp doctor), and the SIGTRAP handler
 * asks each for its own traps (on_trap). */
extern const wasp_watch_engine *const wasp_watch_engines[];

#endif
