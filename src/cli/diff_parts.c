/*
 * The registry of diff parts (diff_part.h), from analysis/list.h; an
 * analysis drawn by a view has an empty one there.
 */
#include "analysis/registry.h"
#include "cli/diff_part.h"
#include "cli/view.h"

static const wasp_diff_part *registered(int id);
WASP_REGISTRY(wasp_diff_part, wasp_diff_, registered)

/* An analysis with a view has the diff part built from it (view_diff.c). */
const wasp_diff_part *wasp_diff_part_of(int id)
{
    const wasp_diff_part *built = wasp_view_diff_part(id);
    return built ? built : registered(id);
}
