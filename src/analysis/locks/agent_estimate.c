/*
 * The agent's part of the acquisitions estimate (see agent_estimate.h).
 */
#include "analysis/locks/agent_estimate.h"

#include "agent/log.h"
#include "analysis/locks/cas_cost.h"
#include "analysis/locks/estimate.h"
#include "watch/mechanisms.h"

/* The calibration's CPU budget: the agent's start-up must stay short. */
static const uint64_t BUDGET_NS = 10 * 1000 * 1000;

static double cas_ns; /* 0: not measured */

void wasp_locks_estimate_setup(void)
{
    /* The sampler is not chosen yet (the analyses set up first): measured
     * whatever it will be, a few milliseconds; a PMU's estimate needs none. */
    cas_ns = wasp_lock_cas_cost_ns(BUDGET_NS);
    if (cas_ns > 0)
        wasp_log("locks: an uncontended compare-and-swap costs %.2f ns of CPU here; acquisitions "
                 "are estimated from it", cas_ns);
    else
        wasp_log("locks: the cost of a compare-and-swap could not be measured; acquisitions are "
                 "not estimated");
}

void wasp_locks_estimate_meta(wasp_profile *p)
{
    const wasp_source *src = wasp_chosen()->source;
    if (!src)
        return;
    if (src->time_based && cas_ns > 0) {
        wasp_profile_set_meta_rounded(p, "locks_cas_ns", cas_ns, "%.2f");
        return;
    }
    if (!src->time_based && wasp_lock_pmu_detail_counts_cas(src->detail))
        wasp_profile_set_meta_rounded(p, "locks_events_per_sample", (double)src->period, "%.0f");
}
