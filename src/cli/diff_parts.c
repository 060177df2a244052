/*
 * The registry of diff parts (diff_part.h), from analysis/list.h.
 */
#include "analysis/registry.h"
#include "cli/diff_part.h"

WASP_REGISTRY(wasp_diff_part, wasp_diff_, wasp_diff_part_of)
