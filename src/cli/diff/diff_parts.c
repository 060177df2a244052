/*
 * The registry of diff parts (diff_part.h), from catalog/list.h; an
 * analysis drawn by a view has an empty one there.
 */
#include "catalog/registry.h"
#include "cli/diff/diff_part.h"
#include "cli/render/view.h"

static const wasp_diff_part *registered(int id);
WASP_REGISTRY(wasp_diff_part, wasp_diff_, registered)

/* An analysis with a view has the diff parts built from it (view_diff.c),
 * one per section; a sub view's section has no registered part. */
const wasp_diff_part *wasp_diff_part_of(int section)
{
    const wasp_diff_part *built = wasp_view_diff_part(section);
    return built ? built : registered(section);
}
