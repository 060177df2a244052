/*
 * Address sources: where memory-access samples come from. Two sources sit
 * behind this one interface, chosen at start-up:
 *   soft.c — a per-thread CPU-time timer; the instruction at the interrupted
 *            PC has not run yet and its address is computed from registers;
 *   pmu.c  — a hardware PMU (precise memory events with data addresses,
 *            event names through libpfm4), read from a per-thread ring buffer.
 *
 * open/close run on ordinary threads; take() runs in the SIGTRAP handler and
 * is ASYNC-SIGNAL-SAFE.
 */
#ifndef WASP_SOURCE_H
#define WASP_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "agent/options.h"
#include "watch/thread_state.h"

typedef struct wasp_address_sample {
    uint64_t pc;   /* the sampled instruction */
    uint64_t addr; /* its data address, when has_addr */
    int has_addr;  /* 0: compute the address from the registers (soft source) */
    int executed;  /* 1: the instruction has already run (PMU samples) */
} wasp_address_sample;

typedef struct wasp_source {
    const char *name;  /* "soft" or "pmu" */
    char detail[256];  /* e.g. "thread CPU-time timer, period 1ms" or the PMU event */
    /* Process-wide set-up; returns 0 or -1 with a reason in err. */
    int (*init)(struct wasp_source *s, const wasp_options *o, char *err, size_t errlen);
    /* Per-thread event for the calling thread (tid) with sig_data for t. */
    int (*open_thread)(struct wasp_source *s, wasp_thread *t, char *err, size_t errlen);
    void (*close_thread)(struct wasp_source *s, wasp_thread *t);
    /* In the handler: the sample this signal carries. Returns 1, or 0 if none. */
    int (*take)(struct wasp_source *s, wasp_thread *t, const ucontext_t *uc,
                wasp_address_sample *out);
    /* Private settings. */
    uint64_t period;
    uint64_t pmu_config[4]; /* type, config, config1, config2 */
    int pmu_precise;
} wasp_source;

extern wasp_source wasp_soft_source;
extern wasp_source wasp_pmu_source;

/* 1 when the machine exposes a hardware PMU (a "cpu" event source). */
int wasp_pmu_available(void);

/* perf_event_open(2): glibc has no wrapper. */
int wasp_perf_open(void *attr, pid_t tid, int cpu, int group, unsigned long flags);

#endif
