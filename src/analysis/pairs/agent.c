/*
 * The pair analyses in the agent: each thread's classified pairs of one
 * analysis and its totals (the denominators of its fractions) into the
 * profile. Not for signal handlers.
 */
#include "agent/agent_part.h"
#include "analysis/pairs/profile.h"

static void fold_thread(wasp_dump *d, const wasp_thread *t, int id)
{
    const wasp_records *r = &t->rec;
    wasp_profile *p = wasp_dump_profile(d);
    for (uint32_t i = 0; i < r->cap_pairs && r->npairs; i++) {
        const wasp_rpair *rp = &r->pairs[i];
        if (!rp->watch_ctx || rp->analysis != id)
            continue;
        uint32_t w = wasp_dump_context(d, r, rp->watch_ctx);
        uint32_t tr = wasp_dump_context(d, r, rp->trap_ctx);
        wasp_profile_add_pair(p, (wasp_analysis)id, rp->flags, w, tr, rp->bytes, rp->count);
    }
    wasp_profile_add_totals(p, (wasp_analysis)id, &r->totals[id]);
}

const wasp_agent_part wasp_agent_deadstore = {.fold_thread = fold_thread};
const wasp_agent_part wasp_agent_silentstore = {.fold_thread = fold_thread};
const wasp_agent_part wasp_agent_silentload = {.fold_thread = fold_thread};
