/*
 * A thread's sampling period, changed from the SIGTRAP handler
 * (sampler_period.c):
 *  - backoff: past its handler budget, the thread samples half as often for
 *    good, so that no setting can starve the program;
 *  - pacing: while the watchpoint budget refuses every sample (budget.h) and
 *    the enabled analyses use samples only to arm watches, each sample is a
 *    signal spent for nothing, so the thread samples less often until one
 *    finds the budget open again.
 * A sample weighs the CPU time it stands for, in periods asked for
 * (wasp_sample_weight), so the fractions stay unbiased whatever the period.
 *
 * ASYNC-SIGNAL-SAFE: everything but wasp_pacing_enable runs in the handler.
 */
#ifndef WASP_SAMPLER_PERIOD_H
#define WASP_SAMPLER_PERIOD_H

#include <stdint.h>

#include "watch/thread_state.h"

/* The longest pace: samples at most this many times rarer (2^shift). */
enum { WASP_PACE_MAX_SHIFT = 5 };

/* Whether pacing may run: set before sampling starts, when every enabled
 * analysis samples only to arm watches (the pair analyses). */
void wasp_pacing_enable(int on);
/* A session starts: no backoff seen yet (wasp_sampler_max_period). */
void wasp_sampler_period_reset(void);

/* t's sample was handled in `spent` ns of its CPU time: back off when the
 * handler passed its budget. */
void wasp_sampler_backoff(wasp_thread *t, uint64_t spent);

/* After t's sample: `refused` when the watchpoint budget refused to arm it,
 * `open` when the budget let it through. Adjusts t's pace. */
void wasp_pace(wasp_thread *t, int refused, int open);

/* The next pace shift from the current one: a refused sample doubles the
 * period (up to WASP_PACE_MAX_SHIFT), an open budget brings it back to the
 * asked-for one, anything else keeps it. Pure. */
int wasp_pace_next(int shift, int refused, int open);

/* The weight of t's next sample: its period now over the period asked for
 * (1 for samplers without a time period). */
double wasp_sample_weight(const wasp_thread *t);

/* The longest sampling period backoff set (0: none raised); pacing is not
 * counted. */
uint64_t wasp_sampler_max_period(void);

#endif
