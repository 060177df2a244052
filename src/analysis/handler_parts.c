/*
 * The registry of handler parts, from analysis/list.h.
 *
 * ASYNC-SIGNAL-SAFE: a constant table.
 */
#include "analysis/handler_part.h"

#define WASP_ANALYSIS(name) extern const wasp_handler_part wasp_handler_##name;
#include "analysis/list.h"
#undef WASP_ANALYSIS

static const wasp_handler_part *const parts[WASP_ANALYSES] = {
#define WASP_ANALYSIS(name) &wasp_handler_##name,
#include "analysis/list.h"
#undef WASP_ANALYSIS
};

const wasp_handler_part *wasp_handler_part_of(int id)
{
    return id >= 0 && id < WASP_ANALYSES ? parts[id] : NULL;
}
