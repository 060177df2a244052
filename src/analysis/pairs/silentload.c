/*
 * Silent loads (JXPerf Sec. 4): a sampled load L1 reads V1; the watchpoint
 * (loads and stores: x86 has no load-only watchpoint) waits for the next load
 * L2 of the location by this thread, letting stores pass while tracking the
 * value they leave; L2 is silent when it reads V1 again.
 *
 * What a load read: memory before the load — for a plain load that is also
 * memory after it; for a read-modify-write it is the value the previous
 * trapped access left (every access of this thread to the location traps).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler.
 */
#include "watch/pair_client.h"
#include "isa/isa.h"

enum { MAX_STORES_BETWEEN = 8 };

static void on_sample(wasp_watch *w, uint64_t before, int before_ok)
{
    w->v1 = before;
    w->v1_known = (uint8_t)before_ok;
}

static void on_first_trap(wasp_watch *w, uint64_t after)
{
    w->cur = after;
}

static wasp_verdict on_trap(wasp_watch *w, int kind, uint64_t after, double threshold,
                            int *approx)
{
    if (!(kind & WASP_ACCESS_LOAD)) {
        w->cur = after;
        return ++w->store_traps > MAX_STORES_BETWEEN ? WASP_VERDICT_DROP : WASP_VERDICT_WAIT;
    }
    if (!w->v1_known)
        return WASP_VERDICT_DROP;
    uint64_t loaded = (kind & WASP_ACCESS_STORE) ? w->cur : after;
    return wasp_values_equal(w->v1, loaded, w->len, w->float_size, threshold, approx)
               ? WASP_VERDICT_WASTE
               : WASP_VERDICT_USEFUL;
}

const wasp_analysis_client wasp_silentload_client = {
    .id = WASP_AN_SILENTLOAD,
    .samples = WASP_ACCESS_LOAD,
    .watch_loads = 1,
    .on_sample = on_sample,
    .on_first_trap = on_first_trap,
    .on_trap = on_trap,
};
