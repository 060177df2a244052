/* A native method's CPU apportioned to its callers' places (native_share.h). */
#include "cli/render/native_share.h"

#include "catalog/names.h"
#include "cli/render/render.h"
#include "cli/render/report_part.h"

#include <stdlib.h>
#include <string.h>

typedef struct tallied {
    const char *native, *method; /* strings of the profile tallied */
    int32_t line;
    double weight;
} tallied;

struct wasp_native_shares {
    wasp_stack_sink sink;
    tallied *rows; /* by native, method, line once sorted; equal ones summed */
    size_t n, cap;
};

static int add(wasp_stack_sink *sink, const wasp_profile *p, const wasp_stack *st)
{
    wasp_native_shares *s = (wasp_native_shares *)sink;
    if (!(st->samples > 0) || st->ctx >= p->ncontexts)
        return 0;
    const wasp_context *c = &p->contexts[st->ctx];
    const wasp_frame *native = wasp_inner_java_frame(p, c), *at = wasp_place_frame(p, c);
    if (!native || native->line >= 0 || !at)
        return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        tallied *g = realloc(s->rows, cap * sizeof *g);
        if (!g)
            return -1;
        s->rows = g;
        s->cap = cap;
    }
    s->rows[s->n++] = (tallied){wasp_profile_string(p, native->name),
                                wasp_profile_string(p, at->name), at->line, st->samples};
    return 0;
}

static int compare_strings(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int by_key(const void *x, const void *y)
{
    const tallied *a = x, *b = y;
    int c = compare_strings(a->native, b->native);
    if (!c)
        c = compare_strings(a->method, b->method);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

wasp_native_shares *wasp_native_shares_of(const wasp_profile *p)
{
    wasp_native_shares *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->sink.emit = add;
    uint32_t shown = wasp_report_shown_analyses(p);
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_report_part *part = wasp_report_part_of(id);
        if ((shown & (1u << id)) && part->stacks && part->stacks(p, id, &s->sink) != 0) {
            wasp_native_shares_free(s);
            return NULL;
        }
    }
    if (s->n)
        qsort(s->rows, s->n, sizeof *s->rows, by_key);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (k && by_key(&s->rows[k - 1], &s->rows[i]) == 0)
            s->rows[k - 1].weight += s->rows[i].weight;
        else
            s->rows[k++] = s->rows[i];
    }
    s->n = k;
    return s;
}

void wasp_native_shares_free(wasp_native_shares *s)
{
    if (s)
        free(s->rows);
    free(s);
}

double wasp_native_share(const wasp_native_shares *s, const char *native, const char *method,
                         int32_t line)
{
    if (!s)
        return 1;
    size_t lo = 0, hi = s->n; /* the first row of native: rows are sorted by it */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (compare_strings(s->rows[mid].native, native) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    double all = 0, here = 0;
    for (size_t i = lo; i < s->n && compare_strings(s->rows[i].native, native) == 0; i++) {
        const tallied *t = &s->rows[i];
        all += t->weight;
        if (t->line == line && compare_strings(t->method, method) == 0)
            here += t->weight;
    }
    return all > 0 ? here / all : 1;
}
