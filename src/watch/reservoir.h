/*
 * The reservoir policy for debug registers (JXPerf Sec. 5.2) with
 * proportional attribution (Witch): each slot keeps the weight of the samples
 * it has seen since it was last free and the weight its current watchpoint
 * stands for. A trap credits the pair with that weight, so replaced samples
 * are not lost from the fractions. A sample weighs the CPU time it stands
 * for, in periods asked for: 1, or more while its thread samples less often
 * (watch/sampler_period.h); the lottery keeps each sample with a chance in
 * proportion to its weight.
 *
 * Slots are shared by analyses; a sample's weight is shared only among slots
 * of its own analysis, so each analysis's fractions stay unbiased.
 *
 * ASYNC-SIGNAL-SAFE: pure arithmetic on caller-owned arrays.
 */
#ifndef WASP_RESERVOIR_H
#define WASP_RESERVOIR_H

#include <stdint.h>

typedef struct wasp_reservoir_slot {
    uint8_t in_use;
    uint8_t analysis;
    double seen;    /* weight of the samples offered since this slot was last free */
    double weight;  /* weight of the samples the current watchpoint represents */
} wasp_reservoir_slot;

typedef struct wasp_reservoir_result {
    int slot;              /* slot to arm for the new sample, -1 for none */
    int replaced;          /* 1 when slot held a live watchpoint */
    double dropped_weight; /* weight lost (no slot of the sample's analysis, or
                              a replaced watchpoint of another analysis) */
} wasp_reservoir_result;

/* xorshift64*: a per-thread generator, state must be non-zero. */
uint64_t wasp_rng_next(uint64_t *state);
/* Uniform in [0, 1), from the same generator. */
double wasp_rng_uniform(uint64_t *state);

/* Offer a new sample of `analysis`, weighing w (> 0), to n slots. Updates seen/weight and, when
 * the result names a slot, sets that slot up for the new sample (in_use=1);
 * the caller arms the debug register (or calls wasp_reservoir_release if that
 * fails). */
wasp_reservoir_result wasp_reservoir_offer(wasp_reservoir_slot *slots, int n,
                                           int analysis, double w, uint64_t *rng);

/* A sample of `analysis`, weighing w, that arms nothing (the watchpoint budget is spent).
 * With a slot free it would have armed its own watchpoint: its weight is the
 * caller's to hand to the next sample armed (WASP_RESERVOIR_UNHELD). Given
 * to the live watchpoints instead, it went to whichever lived longest: a
 * page window whose reach is never spent (opened at start-up on a page of
 * DeadStoreEuler's never stored again) took the weight of every sample the
 * budget refused all run, and F_prog fell from 0.5 to 0.02 (1 run in 24).
 * When every slot is in use it runs the same lottery as an offer: the slot
 * that would have taken the sample is returned, for the caller to drop its
 * watchpoint with its weight (the sample cannot be armed in its place);
 * otherwise the sample's weight is shared by the live watchpoints of its
 * analysis, as for a sample the reservoir did not pick (-1), or, with none
 * of its analysis alive, is the caller's (WASP_RESERVOIR_UNHELD). Without
 * the lottery a watchpoint lived as long as the budget stayed spent and
 * took the weight of every sample meanwhile: one armed at start-up and
 * trapped at exit carried 82% of a control run's bytes. */
enum { WASP_RESERVOIR_UNHELD = -2 };
int wasp_reservoir_pass(wasp_reservoir_slot *slots, int n, int analysis, double w,
                        uint64_t *rng);

/* A slot's watchpoint trapped or was discarded: returns its weight and frees it
 * (probability back to 1.0). */
double wasp_reservoir_release(wasp_reservoir_slot *slot);

#endif
