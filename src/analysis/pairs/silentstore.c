/*
 * Silent stores (JXPerf Sec. 4): a sampled store S1 leaves V1 in memory; the
 * watchpoint traps on the next store S2 only; S2 is silent when it leaves the
 * same value (floats within the threshold).
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
    w->v1 = w->cur = after;
    w->v1_known = 1;
}

static wasp_verdict on_trap(wasp_watch *w, int kind, uint64_t after, double threshold,
                            int *approx)
{
    if (!(kind & WASP_ACCESS_STORE)) /* W watchpoints trap on stores only */
        return WASP_VERDICT_WAIT;
    if (!w->v1_known)
        return WASP_VERDICT_DROP;
    return wasp_values_equal(w->v1, after, w->len, w->float_size, threshold, approx)
               ? WASP_VERDICT_WASTE
               : WASP_VERDICT_USEFUL;
}

const wasp_analysis_client wasp_silentstore_client = {
    .id = WASP_AN_SILENTSTORE,
    .samples = WASP_ACCESS_STORE,
    .watch_loads = 0,
    .on_sample = on_sample,
    .on_first_trap = on_first_trap,
    .on_trap = on_trap,
};
