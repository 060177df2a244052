/* The CPU of a creation in a method the place calls (report_creating_line.h). */
#include "analysis/alloc/report_creating_line.h"

#include <math.h>

#include "analysis/alloc/profile.h"
#include "cli/render/report_part.h"
#include "profile/cpu_lines.h"

static bool same_line(const wasp_frame *a, const wasp_frame *b)
{
    return a && b && a->name == b->name && a->line == b->line;
}

double wasp_alloc_callee_line_cpu(const wasp_profile *p, uint32_t ctx, uint32_t cls)
{
    if (ctx >= p->ncontexts || !wasp_profile_has_cpu_lines(p))
        return NAN;
    const wasp_context *c = &p->contexts[ctx];
    const wasp_frame *at = wasp_created_place(p, c, cls), *in = wasp_created_inner(p, c, cls);
    if (!at || !in || in->kind != WASP_FRAME_JAVA || in->line < 0)
        return NAN;
    /* The creations sampled at that line (any class: the line's samples are
     * all of them), and those under the place. */
    uint32_t n;
    const wasp_alloc_entry *e = wasp_profile_allocs(p, &n);
    double all = 0, through = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].ctx >= p->ncontexts)
            continue;
        const wasp_context *x = &p->contexts[e[i].ctx];
        if (!same_line(wasp_created_inner(p, x, e[i].cls), in))
            continue;
        all += e[i].samples;
        if (wasp_context_passes(p, x, (uint32_t)(at - p->frames)))
            through += e[i].samples;
    }
    if (!(all > 0))
        return NAN;
    /* Inlined into the place, the callee's samples are the place's too:
     * the larger of the two is the creation's, never their sum. */
    double callee = wasp_profile_cpu_at(p, in->name, in->line) * through / all;
    return callee > wasp_profile_cpu_at(p, at->name, at->line) ? callee : NAN;
}
