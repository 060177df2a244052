/*
 * The registry of diff parts (diff_part.h), from catalog/list.h; an
 * analysis drawn by a view has an empty one there.
 */
#include "catalog/registry.h"
#include "cli/diff/diff_part.h"
#include "cli/render/view.h"

static const wasp_diff_part *registered(int id);
WASP_REGISTRY(wasp_diff_part, wasp_diff_, registered)

/* An analysis with a view has the diff part built from it (view_diff.c). */
const wasp_diff_part *wasp_diff_part_of(int id)
{
    const wasp_diff_part *built = wasp_view_diff_part(id);
    return built ? built : registered(id);
}
