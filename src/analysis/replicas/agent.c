/*
 * Object replicas (OJXPerf) in the agent: the per-site comparison counts that
 * rank --verify-top, the whole-object verification when the run stops, and
 * the comparisons and checks in the profile. Not for signal handlers.
 */
#include <stdio.h>

#include "agent/agent_part.h"
#include "agent/alloc.h"
#include "analysis/replicas/profile.h"
#include "analysis/replicas/comparisons.h"
#include "analysis/replicas/verify.h"

static int setup(const wasp_options *o, char *why, size_t len)
{
    if (wasp_replica_comparisons_init() != 0) {
        snprintf(why, len, "out of memory for the replica comparison counts");
        return -1;
    }
    wasp_replica_verify_start(o->verify_top, wasp_replica_comparisons());
    return 0;
}

static void stop(jvmtiEnv *jvmti, JNIEnv *env, const wasp_options *o)
{
    (void)jvmti;
    (void)o;
    wasp_replica_verify_stop(env);
}

/* Comparisons, and of the equal ones those of zero words (c). */
static void add_comparisons(wasp_profile *p, uint32_t site, uint32_t ctx, const wasp_rsite *e)
{
    wasp_profile_add_replica(p, site, ctx, e->a, e->b);
    if (e->c > 0)
        wasp_profile_add_replica_zeros(p, site, ctx, e->c);
}

static void fold_thread(wasp_dump *d, const wasp_thread *t, int id)
{
    wasp_dump_site_table(d, &t->rec, id, add_comparisons, NULL);
}

static void finish(wasp_dump *d, int id)
{
    (void)id;
    uint32_t nchecks;
    const wasp_replica_check *checks = wasp_replica_verify_checks(&nchecks);
    for (uint32_t i = 0; i < nchecks; i++) {
        wasp_replica_check c = checks[i];
        c.site = c.pairs ? wasp_dump_site(d, c.site) : UINT32_MAX;
        if (c.site != UINT32_MAX)
            wasp_profile_set_replica_check(wasp_dump_profile(d), &c);
    }
}

const wasp_agent_part wasp_agent_replicas = {
    .setup = setup,
    .stop = stop,
    .fold_thread = fold_thread,
    .finish = finish,
};
