/*
 * Lock acquisitions estimated from acquiring samples (issue 41). A sample
 * at an acquiring compare-and-swap stands for
 *   - on a CPU-time sampler, period / c acquisitions, c the CPU time one
 *     uncontended acquiring compare-and-swap costs, measured by the agent
 *     before sampling starts (cas_cost.h; meta locks_cas_ns);
 *   - on a PMU sampler whose event counts every retired memory instruction
 *     (a `lock cmpxchg` among them), the event period N (meta
 *     locks_events_per_sample): N x samples is an unbiased count.
 * docs/locks.md, "Acquisitions (estimated)", has what was measured.
 */
#ifndef WASP_ANALYSIS_LOCKS_ESTIMATE_H
#define WASP_ANALYSIS_LOCKS_ESTIMATE_H

#include <stdbool.h>

typedef struct wasp_profile wasp_profile;

/* Acquisitions one acquiring sample of p stands for; NAN when p does not
 * say (an older profile, a PMU event that does not count the instruction,
 * a calibration that failed). */
double wasp_lock_acquisitions_per_sample(const wasp_profile *p);

/* Whether each sample of the libpfm4 event `name` is one of every N
 * retired instructions of a kind that includes `lock cmpxchg` on memory
 * (Intel's MEM_INST_RETIRED / MEM_UOPS_RETIRED loads, stores or any, and
 * INST_RETIRED). Not AMD's ibs_op: it counts cycles (or micro-ops, several
 * to a locked instruction), not instructions. */
bool wasp_lock_event_counts_cas(const char *name);
/* The same for a PMU source's detail ("pmu: NAME every N events..."); false
 * for any other detail. */
bool wasp_lock_pmu_detail_counts_cas(const char *detail);

#endif
