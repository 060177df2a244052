/*
 * The registry of handler parts (handler_part.h), from analysis/list.h.
 *
 * ASYNC-SIGNAL-SAFE: a constant table.
 */
#include "analysis/registry.h"
#include "watch/handler_part.h"

WASP_REGISTRY(wasp_handler_part, wasp_handler_, wasp_handler_part_of)
