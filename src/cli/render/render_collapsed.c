/*
 * --format collapsed: one "frame;frame;frame VALUE" line per weighted context
 * (flamegraph.pl, speedscope, inferno), root first. Each line starts with the
 * analysis's name and its side in brackets ("deadstore;[watch];..."), so a
 * pair's two contexts stay apart. VALUE: bytes for the pair analyses, samples
 * for the others, as integers (docs/formats.md).
 *
 * A flame graph adds every line, and a pair's two sides weigh the same bytes:
 * by default only one analysis and side are written (the first analysis
 * shown, its first side: a pair's watched one), so that the graph's total is
 * a true one. --analysis and --side choose another, or all of them.
 */
#include "catalog/names.h"
#include "cli/commands/cli_util.h"
#include "cli/render/render.h"
#include "cli/commands/report.h"
#include "cli/render/report_part.h"
#include "cli/render/stack_series.h"

#include <string.h>

enum { MAX_ANALYSES_SEEN = 32 };

/* The sides each analysis's stacks came in, in order of first appearance
 * (a pair's watch, then its trap). */
struct sides {
    const char *analysis, *side[2];
};

struct collapsed {
    wasp_stack_sink sink;
    FILE *out;
    /* Rounding each line alone would make the lines' sum drift from the
     * total: per series, each line gets its share of the rounded running sum. */
    wasp_series_set series;
    const char *analysis; /* the one written; NULL: every one */
    int side;             /* wasp_report_side */
    struct sides sides[MAX_ANALYSES_SEEN];
    int nsides;
};

/* The survey before writing: each analysis's sides, until what is chosen is
 * known (it then stops: emit's -1, done set). */
struct survey {
    wasp_stack_sink sink;
    struct collapsed *c;
    bool all;  /* every analysis: a survey to the end */
    bool done;
};

static struct sides *sides_of(struct collapsed *c, const char *analysis)
{
    for (int i = 0; i < c->nsides; i++)
        if (strcmp(c->sides[i].analysis, analysis) == 0)
            return &c->sides[i];
    return NULL;
}

static int survey_emit(wasp_stack_sink *sink, const wasp_profile *p, const wasp_stack *s)
{
    (void)p;
    struct survey *v = (struct survey *)sink;
    struct collapsed *c = v->c;
    if (!v->all && !c->analysis)
        c->analysis = s->analysis; /* the default: the first analysis shown */
    struct sides *d = sides_of(c, s->analysis);
    if (!d) {
        if (c->nsides == MAX_ANALYSES_SEEN)
            return -1;
        d = &c->sides[c->nsides++];
        *d = (struct sides){s->analysis, {s->side, NULL}};
    } else if (!d->side[1] && strcmp(d->side[0], s->side) != 0)
        d->side[1] = s->side;
    v->done = !v->all && strcmp(c->analysis, s->analysis) == 0 &&
              (c->side == WASP_SIDE_WATCHED || d->side[1]);
    return v->done ? -1 : 0;
}

/* Is s among the stacks chosen? An analysis with one side shows it for
 * either choice of side. */
static bool chosen(struct collapsed *c, const wasp_stack *s)
{
    if (c->analysis && strcmp(c->analysis, s->analysis) != 0)
        return false;
    if (c->side == WASP_SIDE_ALL)
        return true;
    const struct sides *d = sides_of(c, s->analysis);
    const char *side = d ? d->side[c->side == WASP_SIDE_TRAPPED && d->side[1]] : NULL;
    return side && strcmp(side, s->side) == 0;
}

/* ';' separates frames and a line break ends the line: both are replaced.
 * Spaces stay (readers take the value after the last space). */
static void put_frame(const char *s, FILE *out)
{
    fputc(';', out);
    for (; *s; s++)
        fputc(*s == ';' ? ',' : *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

static int emit(wasp_stack_sink *sink, const wasp_profile *p, const wasp_stack *s)
{
    struct collapsed *c = (struct collapsed *)sink;
    if (!chosen(c, s))
        return 0;
    wasp_series *r = wasp_series_of(&c->series, s);
    if (!r)
        return -1;
    long long value = wasp_series_part(r, 0, s->by_bytes ? s->bytes : s->samples);

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

int wasp_render_collapsed_choice(const wasp_profile *p, int analysis, int side, FILE *out)
{
    struct collapsed c = {.sink = {emit}, .out = out, .side = side};
    bool all = analysis == WASP_ANALYSES;
    if (!all && analysis >= 0)
        c.analysis = wasp_analysis_id_name(analysis);
    if (!all || side != WASP_SIDE_ALL) {
        struct survey v = {.sink = {survey_emit}, .c = &c, .all = all};
        if (wasp_report_stacks(p, &v.sink) != 0 && !v.done)
            return -1;
    }
    if (!all && (!c.analysis || !sides_of(&c, c.analysis))) {
        /* Nothing to draw: an empty graph, and why. */
        fprintf(stderr, "wasp: --format collapsed: no stacks of %s in this profile\n",
                c.analysis ? c.analysis : "any analysis");
        return 0;
    }
    return wasp_report_stacks(p, &c.sink);
}

int wasp_render_collapsed(const wasp_profile *p, int top, FILE *out)
{
    (void)top;
    return wasp_render_collapsed_choice(p, -1, WASP_SIDE_WATCHED, out);
}

int wasp_side_parse(const char *option, const char *value, wasp_report_side *out, char *err,
                    size_t errlen)
{
    static const char *const names[] = {[WASP_SIDE_WATCHED] = "watched",
                                        [WASP_SIDE_TRAPPED] = "trapped", [WASP_SIDE_ALL] = "all"};
    int i = wasp_cli_parse_choice(option, value, names, sizeof names / sizeof *names, err,
                                  errlen);
    if (i < 0)
        return -1;
    *out = (wasp_report_side)i;
    return 0;
}

int wasp_analysis_choice_parse(const char *option, const char *value, int *out, char *err,
                               size_t errlen)
{
    const char *names[WASP_ANALYSES + 1];
    for (int id = 0; id < WASP_ANALYSES; id++)
        names[id] = wasp_analysis_id_name(id);
    names[WASP_ANALYSES] = "all";
    int i = wasp_cli_parse_choice(option, value, names, WASP_ANALYSES + 1, err, errlen);
    if (i < 0)
        return -1;
    *out = i;
    return 0;
}
