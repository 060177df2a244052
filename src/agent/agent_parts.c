/*
 * The registry of agent parts, from analysis/list.h. Not for signal handlers.
 */
#include "agent/agent_part.h"
#include "analysis/ids.h"
#include "analysis/registry.h"

WASP_REGISTRY(wasp_agent_part, wasp_agent_, wasp_agent_part_of)
