/* The share of an analysis's evidence in some of its stacks (evidence_share.h). */
#include "cli/render/evidence_share.h"
#include "cli/render/report_part.h"

#include <math.h>

typedef struct tally {
    wasp_stack_sink sink;
    wasp_context_pick pick;
    double all, picked;
} tally;

static int add(wasp_stack_sink *sink, const wasp_profile *p, const wasp_stack *s)
{
    tally *t = (tally *)sink;
    double w = s->by_bytes ? s->bytes : s->samples;
    if (!(w > 0) || s->ctx >= p->ncontexts)
        return 0;
    t->all += w;
    if (t->pick(p, &p->contexts[s->ctx]))
        t->picked += w;
    return 0;
}

double wasp_evidence_share(const wasp_profile *p, int id, wasp_context_pick pick)
{
    const wasp_report_part *part = wasp_report_part_of(id);
    tally t = {.sink = {add}, .pick = pick};
    if (!part || !part->stacks)
        return NAN;
    if (part->stacks(p, id, &t.sink) != 0)
        return -1;
    return t.all > 0 ? t.picked / t.all : NAN;
}
