/*
 * The registry of agent parts, from analysis/list.h. Not for signal handlers.
 */
#include "agent/agent_part.h"
#include "analysis/ids.h"

#define WASP_ANALYSIS(name) extern const wasp_agent_part wasp_agent_##name;
#include "analysis/list.h"
#undef WASP_ANALYSIS

static const wasp_agent_part *const parts[WASP_ANALYSES] = {
#define WASP_ANALYSIS(name) &wasp_agent_##name,
#include "analysis/list.h"
#undef WASP_ANALYSIS
};

const wasp_agent_part *wasp_agent_part_of(int id)
{
    return id >= 0 && id < WASP_ANALYSES ? parts[id] : NULL;
}
