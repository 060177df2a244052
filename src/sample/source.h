/*
 * Address sources (samplers): where memory-access samples come from. Three
 * sit behind this one interface, listed in wasp_samplers[] (samplers.c) and
 * chosen at start-up by proof (a sample that arrived, wasp_source_prove):
 *   soft.c  — "perf": a per-thread CPU-time clock (perf task-clock event);
 *   timer.c — "timer": the same clock through timer_create, for machines and
 *             containers that refuse perf_event_open;
 *             for both, the instruction at the interrupted PC has not run yet
 *             and its address is computed from registers;
 *   pmu.c   — "pmu": a hardware PMU (precise memory events with data
 *             addresses, event names through libpfm4), read from a
 *             per-thread ring buffer.
 *
 * open/close run on ordinary threads; take() and set_period() run in the
 * SIGTRAP handler and are ASYNC-SIGNAL-SAFE.
 */
#ifndef WASP_SOURCE_H
#define WASP_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include <sys/types.h>
#include <time.h>


/* What a sampler keeps per profiled thread (inside the thread's state). */
typedef struct wasp_sampler_thread {
    uint32_t index;        /* the thread's registry index, for sig_data */
    pid_t tid;
    int fd;                /* perf event, -1 when none */
    void *ring;            /* mmap ring for sources that carry addresses */
    size_t ring_size;
    uint64_t ring_tail;    /* next ring-buffer byte to read */
    timer_t timer;         /* timer sampler's POSIX timer, when has_timer */
    int has_timer;
    uint64_t period_ns;    /* the sampling period now (backoff may raise it): the
                            * mean of the randomised intervals (jitter.h) */
    uint64_t rng;          /* the intervals' generator state (interval.c) */
    uint64_t armed;        /* the interval in effect, 0: unknown (no lag correction) */
    uint64_t due;          /* perf: the event's count when that interval ends */
    uint64_t owed;         /* lateness not yet taken off an interval (interval.c) */
    uint32_t kept;         /* samples since the interval in effect was drawn (interval.c) */
} wasp_sampler_thread;

typedef struct wasp_address_sample {
    uint64_t pc;   /* the sampled instruction */
    uint64_t addr; /* its data address, when has_addr */
    int has_addr;  /* 0: compute the address from the registers (soft source) */
    int executed;  /* 1: the instruction has already run (PMU samples) */
} wasp_address_sample;

/* What analyses want from samples: accesses of a kind, or the accesses that
 * missed the cache (object costs, DJXPerf). */
enum wasp_sample_wants {
    WASP_WANTS_LOADS = 1,
    WASP_WANTS_STORES = 2,
    WASP_WANTS_MISSES = 4
};

/* What a sampler is set up with: the values of the agent's options it needs
 * (the caller copies them: samplers do not know the options). */
typedef struct wasp_source_config {
    uint64_t period_ns;    /* CPU-time samplers: thread CPU time between samples */
    uint64_t pmu_period;   /* pmu: events between samples */
    const char *pmu_event; /* pmu: a libpfm4 event name; "" chosen per CPU */
    double period_jitter;  /* each interval uniform in (1 +- this) x the period; 0: fixed */
} wasp_source_config;

typedef struct wasp_source {
    const char *name;  /* "perf", "timer" or "pmu": the option value and the report's word */
    const char *label; /* what `wasp doctor` calls it: "sampler perf" */
    const char *how;   /* how it samples, for doctor's "works" line: "perf task-clock: ..." */
    /* Whether this machine has what the sampler needs at all (a PMU), with
     * the options it would run with; asked before any proof, so that `auto`
     * skips it without a failure to report. NULL: always a candidate. */
    int (*present)(const wasp_source_config *c);
    const char *absent_why; /* when present() says 0: why, as one clause */
    char detail[256];  /* e.g. "thread CPU-time timer, period 1ms" or the PMU event */
    /* Process-wide set-up; returns 0 or -1 with a reason in err. */
    int (*init)(struct wasp_source *s, const wasp_source_config *c, char *err, size_t errlen);
    /* Per-thread event for the calling thread (tid) with sig_data for t. */
    int (*open_thread)(struct wasp_source *s, wasp_sampler_thread *t, char *err, size_t errlen);
    void (*close_thread)(struct wasp_source *s, wasp_sampler_thread *t);
    /* In the handler: the sample this signal carries. Returns 1, or 0 if none. */
    int (*take)(struct wasp_source *s, wasp_sampler_thread *t, const ucontext_t *uc,
                wasp_address_sample *out);
    /* In the handler: sample thread t every ns of its CPU time from now on
     * (backoff). Returns 0 or -1. NULL: the period cannot change. */
    int (*set_period)(struct wasp_source *s, wasp_sampler_thread *t, uint64_t ns);
    /* In the handler, at every sample of t: arm the next interval, drawn
     * around t's period (jitter.h). NULL: the interval is fixed. */
    void (*tick)(struct wasp_source *s, wasp_sampler_thread *t);
    int time_based;    /* 1: period is thread CPU time in ns; 0: a count of PMU events */
    int uses_perf;     /* 1: needs perf_event_open (a refusal explains its failure) */
    /* What the analyses want sampled (wasp_sample_wants bits), set before
     * init: a PMU source picks its event from it. */
    unsigned wants;
    /* Private settings. */
    uint64_t period;
    uint32_t jitter;        /* the intervals' spread in 1/65536ths of the period (jitter.h) */
    const char *detail_how; /* CPU-time samplers: the detail's first words (cputime.c) */
    uint64_t pmu_config[4]; /* type, config, config1, config2 */
    int pmu_precise;
} wasp_source;

extern wasp_source wasp_soft_source;
extern wasp_source wasp_timer_source;
extern wasp_source wasp_pmu_source;

/* Every sampler, NULL-terminated, the preferred first (samplers.c): `auto`
 * takes the first present one that proves itself (agent/probe.c, wasp
 * doctor); a forced sampler= is the one of that name. */
extern wasp_source *const wasp_samplers[];
/* Whether this machine has what s needs with options c (its present hook;
 * a sampler without one always does). */
int wasp_source_present(const wasp_source *s, const wasp_source_config *c);

/* The CPU-time samplers' shared parts (cputime.c): take() = the instruction
 * at the interrupted PC; init's period and detail ("HOW: thread CPU-time
 * timer every N us, ..."). */
int wasp_cputime_take(wasp_source *s, wasp_sampler_thread *t, const ucontext_t *uc,
                      wasp_address_sample *out);
void wasp_cputime_describe(wasp_source *s, const wasp_source_config *c, const char *how);
/* A described CPU-time sampler's period changed before any thread opens it
 * (the analyses' choice, made once the watch engine is known). */
void wasp_cputime_set_period(wasp_source *s, uint64_t period_ns);

/* Randomised intervals (interval.c, around jitter.h): seed t's generator
 * (open_thread, on an ordinary thread); the next interval around mean, in
 * the handler (ASYNC-SIGNAL-SAFE); the words the detail adds for s's
 * spread: ", randomised ±50%" or "" when the interval is fixed. */
void wasp_sampler_seed(wasp_sampler_thread *t);
uint64_t wasp_sampler_next(const wasp_source *s, wasp_sampler_thread *t, uint64_t mean);
/* The interval to arm now, at a sample that came `late` (the source's units)
 * after the interval it ended: re-arming counts from now, not from when
 * the interval ended, so the lateness is taken off the interval armed, a
 * WASP_INTERVAL_KEPT-th of it from each of the samples it serves (at most
 * half of it; the rest off later ones), which keeps the mean interval the
 * period. */
uint64_t wasp_sampler_after(const wasp_source *s, wasp_sampler_thread *t, uint64_t mean,
                            uint64_t late);
/* Perf events (perf_rearm.c): arm t->fd's next interval around mean with
 * PERF_EVENT_IOC_PERIOD, the lateness read from the event's count. 0 or -1. */
int wasp_perf_rearm(const wasp_source *s, wasp_sampler_thread *t, uint64_t mean);
/* At a sample (a source's tick): wasp_perf_rearm when a new interval is due
 * (wasp_sampler_redraw), else the interval in effect goes on. */
void wasp_perf_tick(const wasp_source *s, wasp_sampler_thread *t, uint64_t mean);
const char *wasp_sampler_jitter_words(const wasp_source *s, char *buf, size_t len);
/* At a sample of t (ASYNC-SIGNAL-SAFE): 1 when a new interval is to be
 * drawn and armed now, 0 when the one in effect is kept for this one too
 * (the kernel reloads it at each expiry, counted from the expiry: exact,
 * and no system call). A drawn interval serves WASP_INTERVAL_KEPT samples
 * in a row; re-arming costs two system calls, ~10 us on our VMs. */
enum { WASP_INTERVAL_KEPT = 4 };
int wasp_sampler_redraw(wasp_sampler_thread *t);

/* Initialise a source with c and prove it on the calling thread: open it at
 * a short period and burn CPU until a sample arrives (at most ~200 ms of
 * CPU). Returns 0, or -1 with why[] saying what failed (without advice on a
 * perf refusal: wasp_perf_refusal). Installs the handler. */
int wasp_source_prove(wasp_source *s, const wasp_source_config *c, char *why, size_t len);

/* 1 when the machine exposes a hardware PMU (a "cpu" event source). */
int wasp_pmu_available(void);

/* Whether perf events can be opened here: 0, or -1 with a sentence saying
 * why not and what to do (paranoid level, seccomp, no perf support). */
int wasp_perf_refusal(char *why, size_t len);
/* kernel.perf_event_paranoid, -1 when unreadable. */
int wasp_perf_paranoid(void);

/* perf_event_open(2): glibc has no wrapper. */
int wasp_perf_open(void *attr, pid_t tid, int cpu, int group, unsigned long flags);

#endif
