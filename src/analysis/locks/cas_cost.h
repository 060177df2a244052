/*
 * What one uncontended acquiring compare-and-swap costs on this CPU, in
 * thread CPU time: c in the estimate acquisitions ~= acquiring samples x
 * period / c (estimate.h). Measured by the agent once, before sampling
 * starts (a few milliseconds of CPU).
 */
#ifndef WASP_ANALYSIS_LOCKS_CAS_COST_H
#define WASP_ANALYSIS_LOCKS_CAS_COST_H

#include <stdint.h>

/* Nanoseconds of CPU per compare-and-swap of the lock-shaped loop (cas_cost.c),
 * the fastest of its batches; 0 when it could not be measured (no thread CPU
 * clock, not x86-64). Spends at most budget_ns of CPU time. */
double wasp_lock_cas_cost_ns(uint64_t budget_ns);

#endif
