/*
 * --format collapsed: one "frame;frame;frame VALUE" line per weighted context
 * (flamegraph.pl, speedscope, inferno), root first. Each line starts with the
 * analysis's name and its side in brackets ("deadstore;[watch];..."), so a
 * pair's two contexts stay apart. VALUE: bytes for the pair analyses, samples
 * for the others, as integers (docs/formats.md).
 */
#include "cli/render.h"
#include "cli/report_part.h"

#include <math.h>
#include <string.h>

enum { MAX_SERIES = 32 }; /* (analysis, side) series: 2 sides per analysis */

/* Rounding each line alone would make the lines' sum drift from the total:
 * per series, each line gets round(running sum) minus what was printed. */
struct series {
    const char *analysis, *side;
    double sum;
    long long printed;
};

struct collapsed {
    wasp_stack_sink sink;
    FILE *out;
    struct series series[MAX_SERIES];
    int nseries;
};

/* ';' separates frames and a line break ends the line: both are replaced.
 * Spaces stay (readers take the value after the last space). */
static void put_frame(const char *s, FILE *out)
{
    fputc(';', out);
    for (; *s; s++)
        fputc(*s == ';' ? ',' : *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

static struct series *series_of(struct collapsed *c, const wasp_stack *s)
{
    for (int i = 0; i < c->nseries; i++)
        if (strcmp(c->series[i].analysis, s->analysis) == 0 &&
            strcmp(c->series[i].side, s->side) == 0)
            return &c->series[i];
    if (c->nseries == MAX_SERIES)
        return NULL;
    c->series[c->nseries] = (struct series){s->analysis, s->side, 0, 0};
    return &c->series[c->nseries++];
}

static int emit(wasp_stack_sink *sink, const wasp_profile *p, const wasp_stack *s)
{
    struct collapsed *c = (struct collapsed *)sink;
    struct series *r = series_of(c, s);
    if (!r)
        return -1;
    r->sum += s->by_bytes ? s->bytes : s->samples;
    /* Measures are finite and not negative (the reader checks), but may be
     * beyond what a long long holds: the running total stops there. */
    long long total = r->sum < 9e18 ? llround(r->sum) : 9000000000000000000LL;
    long long value = total - r->printed;
    r->printed = total;

    fputs(s->analysis, c->out); /* a plain word: nothing to replace */
    fprintf(c->out, ";[%s]", s->side);
    const wasp_context *ctx = &p->contexts[s->ctx];
    char label[WASP_FRAME_LABEL_MAX];
    for (uint32_t k = 0; k < ctx->nframes; k++) {
        wasp_frame_label(p, &p->frames[p->frame_refs[ctx->first + k]], label, sizeof label);
        put_frame(label, c->out);
    }
    if (s->leaf)
        put_frame(s->leaf, c->out);
    fprintf(c->out, " %lld\n", value);
    return 0;
}

int wasp_render_collapsed(const wasp_profile *p, int top, FILE *out)
{
    (void)top;
    struct collapsed c = {.sink = {emit}, .out = out};
    return wasp_report_stacks(p, &c.sink);
}
