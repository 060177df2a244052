/*
 * The registry of agent parts, from catalog/list.h. Not for signal handlers.
 */
#include "agent/agent_part.h"
#include "catalog/ids.h"
#include "catalog/registry.h"

WASP_REGISTRY(wasp_agent_part, wasp_agent_, wasp_agent_part_of)
