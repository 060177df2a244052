/*
 * Object-centric profiling (DJXPerf) in the agent: each thread's samples per
 * allocation site and access context into the profile. The sites themselves
 * come from allocation tracking (agent/alloc_dump.c). Not for signal handlers.
 */
#include "agent/agent_part.h"
#include "analysis/objects/profile.h"

static void fold_thread(wasp_dump *d, const wasp_thread *t, int id)
{
    wasp_dump_site_table(d, &t->rec, id, wasp_profile_add_site_access);
}

const wasp_agent_part wasp_agent_objects = {.fold_thread = fold_thread};
