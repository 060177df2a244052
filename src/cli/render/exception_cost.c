/* The CPU spent filling in exceptions' stack traces (exception_cost.h). */
#include "cli/render/exception_cost.h"
#include "catalog/names.h"
#include "cli/render/report_part.h"
#include "profile/cpu_lines.h"

#include <string.h>

#define FILL_IN "java.lang.Throwable.fillInStackTrace"

enum { PLACES = 32 }; /* distinct places tallied; more fall out of the count */

typedef struct tally {
    wasp_stack_sink sink;
    const wasp_frame *place[PLACES];
    double weight[PLACES], all;
    uint32_t nplaces;
} tally;

static bool fills_in(const wasp_profile *p, const wasp_context *c)
{
    for (uint32_t k = 0; k < c->nframes; k++) {
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + k]];
        const char *name = wasp_profile_string(p, f->name);
        if (f->kind == WASP_FRAME_JAVA && name && strcmp(name, FILL_IN) == 0)
            return true;
    }
    return false;
}

static int add(wasp_stack_sink *sink, const wasp_profile *p, const wasp_stack *s)
{
    tally *t = (tally *)sink;
    if (!(s->samples > 0) || s->ctx >= p->ncontexts || !fills_in(p, &p->contexts[s->ctx]))
        return 0;
    const wasp_frame *at = wasp_place_frame(p, &p->contexts[s->ctx]);
    t->all += s->samples;
    uint32_t i = 0;
    while (i < t->nplaces && !(t->place[i]->name == at->name && t->place[i]->line == at->line))
        i++;
    if (i == t->nplaces && t->nplaces < PLACES)
        t->place[t->nplaces++] = at;
    if (i < t->nplaces)
        t->weight[i] += s->samples;
    return 0;
}

static double samples_at_fill_in(const wasp_profile *p)
{
    double k = 0;
    for (uint32_t i = 0; i < p->cpu_lines.n; i++) {
        const char *name = wasp_profile_string(p, p->cpu_lines.rows[i].name);
        if (name && strcmp(name, FILL_IN) == 0)
            k += p->cpu_lines.rows[i].samples;
    }
    return k;
}

int wasp_exception_cost_of(const wasp_profile *p, uint32_t shown, wasp_exception_cost *c)
{
    *c = (wasp_exception_cost){0};
    double n = (double)wasp_profile_get_counter(p, WASP_CPU_SAMPLES);
    if (!wasp_profile_has_cpu_lines(p) || !(n > 0))
        return 0;
    c->samples = samples_at_fill_in(p);
    if (c->samples > n)
        c->samples = n;
    c->share = c->samples / n;
    wasp_wilson95(c->samples, n, &c->lo, &c->hi);
    if (!(c->samples > 0))
        return 0;
    tally t = {.sink = {add}};
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_report_part *part = wasp_report_part_of(id);
        if ((shown & (1u << id)) && part && part->stacks && part->stacks(p, id, &t.sink) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < t.nplaces; i++)
        if (!c->place || t.weight[i] > c->at_place) {
            c->place = t.place[i];
            c->at_place = t.weight[i];
        }
    c->stacks = t.all;
    return 0;
}
