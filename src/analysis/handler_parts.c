/*
 * The registry of handler parts, from analysis/list.h.
 *
 * ASYNC-SIGNAL-SAFE: a constant table.
 */
#include "analysis/handler_part.h"
#include "analysis/registry.h"

WASP_REGISTRY(wasp_handler_part, wasp_handler_, wasp_handler_part_of)
