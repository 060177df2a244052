/*
 * Dead stores (JXPerf Sec. 4): a sampled store S1 is watched for loads and
 * stores; if the next access to the location is a store, S1 was dead.
 * A read-modify-write reads first, so it makes S1 useful.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler.
 */
#include "watch/pair_client.h"
#include "isa/isa.h"

static void on_sample(wasp_watch *w, uint64_t before, int before_ok)
{
    (void)w, (void)before, (void)before_ok;
}

static void on_first_trap(wasp_watch *w, uint64_t after)
{
    w->cur = after;
}

static wasp_verdict on_trap(wasp_watch *w, int kind, uint64_t after, double threshold,
                            int *approx)
{
    (void)w, (void)after, (void)threshold;
    *approx = 0;
    return (kind & WASP_ACCESS_LOAD) ? WASP_VERDICT_USEFUL : WASP_VERDICT_WASTE;
}

const wasp_analysis_client wasp_deadstore_client = {
    .id = WASP_AN_DEADSTORE,
    .samples = WASP_ACCESS_STORE,
    .watch_loads = 1,
    .on_sample = on_sample,
    .on_first_trap = on_first_trap,
    .on_trap = on_trap,
};
