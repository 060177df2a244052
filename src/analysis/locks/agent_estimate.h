/*
 * What the agent measures and records so that the report can estimate lock
 * acquisitions from acquiring samples (estimate.h): the cost of one
 * uncontended compare-and-swap for a CPU-time sampler, or the PMU event's
 * period when it counts the locked instructions. Not for signal handlers.
 */
#ifndef WASP_ANALYSIS_LOCKS_AGENT_ESTIMATE_H
#define WASP_ANALYSIS_LOCKS_AGENT_ESTIMATE_H

#include "profile/profile.h"

/* Before sampling starts: times the compare-and-swap loop (cas_cost.h,
 * under 10 ms of CPU) and logs the result once. Never fails: without a
 * cost there is no estimate. */
void wasp_locks_estimate_setup(void);
/* Its metadata: locks_cas_ns, or locks_events_per_sample. */
void wasp_locks_estimate_meta(wasp_profile *p);

#endif
