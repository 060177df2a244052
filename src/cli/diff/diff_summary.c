/*
 * The diff's first screen (diff_summary.h; docs/diff.md, "The summary"):
 * the two profiles' summaries (report_summary.c) compared place by place.
 * For each analysis, the places of the first findings of either side, each
 * with what the report says of it before and after and its cost in CPU on
 * both sides. A fix is judged there: the pairs' full calling contexts,
 * which the sections below match, differ between runs of a real program
 * (deep stacks, other callers), while the place a developer changed stays.
 *
 * A place missing from one side's findings still has a cost there when its
 * cost is its line's (the CPU samples counted at the line, cpu_lines.h,
 * and its part of the native method it calls where its access ran, as the
 * summary counts it): the lines are looked up by method name and line
 * number. The change of the CPU share is tested as the sections' entries
 * are (diff_noise.c: the two-proportion test), its variance widened by what
 * runs add to a line's share (WASP_DIFF_SUMMARY_RUN_VARIANCE: the JIT's
 * inlining moves samples between lines), Holm over the places of the
 * summary.
 */
#include "cli/diff/diff_summary.h"

#include "catalog/names.h"
#include "cli/commands/diff.h"
#include "cli/diff/diff_part.h"
#include "cli/render/native_share.h"
#include "cli/render/summary_items.h"
#include "cli/render/units.h"
#include "profile/cpu_lines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Findings looked at per side: a place first on one side is searched for
 * among these on the other. */
enum { LOOKED_AT = 32, ROWS = 2 * WASP_SUMMARY_PER_ANALYSIS };

typedef struct row {
    const wasp_summary_item *side[2]; /* NULL: not among that side's findings */
    int rank[2];                      /* 1-based; 0: absent */
    bool cpu_known[2];
    double cpu[2], samples[2], draws[2];
    double p_value;
    bool tested, significant;
} row;

typedef struct analysis_rows {
    int id;
    wasp_summary_item *items[2];
    int nitems[2];
    row rows[ROWS];
    int n;
} analysis_rows;

typedef struct summary_diff {
    const wasp_profile *p[2];
    wasp_native_shares *shares[2]; /* how each profile's native methods' CPU divides */
    analysis_rows an[WASP_ANALYSES];
    int n;
} summary_diff;

static bool same_place(const wasp_summary_item *a, const wasp_summary_item *b)
{
    if (strcmp(a->key, b->key) != 0)
        return false;
    if (!a->created || !b->created)
        return a->created == b->created;
    return strcmp(a->created, b->created) == 0;
}

/* The named frame of side s's item, NULL when none. */
static const char *frame_name(const summary_diff *d, int s, const wasp_frame *f)
{
    return f ? wasp_profile_string(d->p[s], f->name) : NULL;
}

/* r's CPU on both sides counted the same way. When the present sides'
 * costs are their lines' (the place's line and its part of the native
 * method it calls where the access ran, report_summary.c): on each side the
 * samples at the place's line and its part of the native methods either
 * side names, looked up by name (one run's finding may end in the native
 * call, the other's not, so a cost taken from each finding as it is would
 * compare two things). Else each present side's own cost; an absent side's
 * is not known. */
static void row_cpu(const summary_diff *d, row *r)
{
    int any = r->side[1] ? 1 : 0;
    const wasp_summary_item *place = r->side[any];
    bool lines = place->at != NULL;
    for (int s = 0; s < 2; s++)
        lines &= !r->side[s] || r->side[s]->by_line;
    if (!lines) {
        for (int s = 0; s < 2; s++) {
            const wasp_summary_item *it = r->side[s];
            r->cpu_known[s] = it && it->measured && !it->waiting;
            if (r->cpu_known[s]) {
                r->cpu[s] = it->cpu;
                r->samples[s] = it->cpu_samples;
                r->draws[s] = it->cpu_draws;
            }
        }
        return;
    }
    const char *method = frame_name(d, any, place->at), *native[2];
    int32_t native_line[2] = {0, 0};
    for (int s = 0; s < 2; s++) {
        const wasp_frame *f = r->side[s] ? r->side[s]->native : NULL;
        native[s] = frame_name(d, s, f);
        native_line[s] = f ? f->line : 0;
    }
    if (native[0] && native[1] && strcmp(native[0], native[1]) == 0)
        native[1] = NULL;
    for (int s = 0; s < 2; s++) {
        const wasp_profile *p = d->p[s];
        double n = (double)wasp_profile_get_counter(p, WASP_CPU_SAMPLES);
        if (!wasp_profile_has_cpu_lines(p) || !(n > 0))
            continue;
        double k = wasp_profile_cpu_named(p, method, place->at->line);
        for (int i = 0; i < 2; i++)
            if (native[i])
                k += wasp_profile_cpu_named(p, native[i], native_line[i]) *
                     wasp_native_share(d->shares[s], native[i], method, place->at->line);
        r->cpu_known[s] = true;
        r->samples[s] = fmin(k, n);
        r->draws[s] = n;
        r->cpu[s] = r->samples[s] / n;
    }
}

/* The row of a place first on side s (its i-th finding), unless there is
 * one already. */
static void add_row(summary_diff *d, analysis_rows *a, int s, int i)
{
    const wasp_summary_item *it = &a->items[s][i];
    for (int k = 0; k < a->n; k++)
        if (a->rows[k].side[s] == it)
            return;
    row *r = &a->rows[a->n++];
    *r = (row){.p_value = 1};
    r->side[s] = it;
    r->rank[s] = i + 1;
    for (int j = 0; j < a->nitems[1 - s]; j++)
        if (same_place(it, &a->items[1 - s][j])) {
            r->side[1 - s] = &a->items[1 - s][j];
            r->rank[1 - s] = j + 1;
            break;
        }
    row_cpu(d, r);
    r->tested = r->cpu_known[0] && r->cpu_known[1];
    if (r->tested)
        r->p_value = wasp_diff_p_value_widened(r->samples[0], r->draws[0], r->samples[1],
                                               r->draws[1], WASP_DIFF_SUMMARY_RUN_VARIANCE);
}

static int by_p(const void *x, const void *y)
{
    double a = (*(row *const *)x)->p_value, b = (*(row *const *)y)->p_value;
    return a < b ? -1 : a > b;
}

/* Holm over every tested row, WASP_DIFF_ALPHA family-wise. */
static void test_rows(summary_diff *d)
{
    row *order[WASP_ANALYSES * ROWS];
    int m = 0;
    for (int i = 0; i < d->n; i++)
        for (int k = 0; k < d->an[i].n; k++)
            if (d->an[i].rows[k].tested)
                order[m++] = &d->an[i].rows[k];
    qsort(order, (size_t)m, sizeof *order, by_p);
    for (int k = 0; k < m; k++) {
        if (!(order[k]->p_value <= WASP_DIFF_ALPHA / (double)(m - k)))
            break;
        order[k]->significant = true;
    }
}

static bool in_summary(const wasp_profile *p, int id)
{
    const wasp_report_part *part = wasp_report_part_of(id);
    return part && part->summary && part->shown && part->shown(p, id);
}

static void release(summary_diff *d)
{
    wasp_native_shares_free(d->shares[0]);
    wasp_native_shares_free(d->shares[1]);
    for (int i = 0; i < d->n; i++) {
        free(d->an[i].items[0]);
        free(d->an[i].items[1]);
    }
}

/* 0, or -1 when out of memory (d released). */
static int build(summary_diff *d, const wasp_profile *before, const wasp_profile *after)
{
    *d = (summary_diff){.p = {before, after}};
    for (int s = 0; s < 2; s++)
        if (!(d->shares[s] = wasp_native_shares_of(d->p[s]))) {
            release(d);
            return -1;
        }
    for (int id = 0; id < WASP_ANALYSES; id++) {
        if (!in_summary(before, id) && !in_summary(after, id))
            continue;
        analysis_rows *a = &d->an[d->n++];
        *a = (analysis_rows){.id = id};
        for (int s = 0; s < 2; s++) {
            a->items[s] = malloc(LOOKED_AT * sizeof *a->items[s]);
            if (!a->items[s] ||
                (a->nitems[s] = wasp_summary_items(d->p[s], d->shares[s], id, a->items[s],
                                                    LOOKED_AT)) < 0) {
                release(d);
                return -1;
            }
        }
        for (int s = 0; s < 2; s++)
            for (int i = 0; i < a->nitems[s] && i < WASP_SUMMARY_PER_ANALYSIS; i++)
                add_row(d, a, s, i);
    }
    test_rows(d);
    return 0;
}

static const char *verdict(const row *r)
{
    return !r->tested ? "not tested" : r->significant ? "significant" : "within noise";
}

/* ---- text ---- */

static void text_cpu(const row *r, int s, FILE *out)
{
    char b[WASP_UNIT_BUF];
    if (r->cpu_known[s])
        fputs(wasp_fmt_percent(r->cpu[s], b, sizeof b), out);
    else
        fputs("n/a", out);
}

static void text_row(const row *r, FILE *out)
{
    const wasp_summary_item *it = r->side[1] ? r->side[1] : r->side[0];
    fprintf(out, "  %s", it->place);
    if (it->created)
        fprintf(out, " (%s objects)", it->created);
    fputs(": CPU ", out);
    text_cpu(r, 0, out);
    fputs(" " WASP_DIFF_ARROW " ", out);
    text_cpu(r, 1, out);
    fprintf(out, " of the run's CPU samples [%s]\n", verdict(r));
    static const char *const label[2] = {"before", "after"};
    for (int s = 0; s < 2; s++) {
        if (r->side[s])
            fprintf(out, "      %-6s #%d: %s\n", label[s], r->rank[s], r->side[s]->what);
        else
            fprintf(out, "      %-6s not among its first %d findings\n", label[s], LOOKED_AT);
    }
}

int wasp_diff_summary_text(const wasp_profile *before, const wasp_profile *after, FILE *out)
{
    summary_diff d;
    if (build(&d, before, after) != 0)
        return -1;
    if (d.n)
        fputs("\nSUMMARY: the places of each analysis's first findings, before and after, with "
              "their cost in CPU (docs/diff.md, \"The summary\")\n", out);
    for (int i = 0; i < d.n; i++) {
        const analysis_rows *a = &d.an[i];
        fprintf(out, "\n%s\n", wasp_report_part_of(a->id)->title);
        for (int k = 0; k < a->n; k++)
            text_row(&a->rows[k], out);
        if (a->n == 0)
            fputs("  nothing found on either side\n", out);
    }
    if (d.n)
        fputs("\nDETAIL\n", out);
    release(&d);
    return 0;
}

/* ---- JSON ---- */

static void json_side(wasp_json *j, const row *r, int s)
{
    wasp_json_begin_object(j, s ? "after" : "before", false);
    const wasp_summary_item *it = r->side[s];
    if (it)
        wasp_json_u64(j, "rank", (uint64_t)r->rank[s]);
    else
        wasp_json_null(j, "rank");
    wasp_json_string(j, "what", it ? it->what : NULL);
    wasp_json_double(j, "share", it ? it->share : NAN);
    wasp_json_double(j, "cpu_share", r->cpu_known[s] ? r->cpu[s] : NAN);
    wasp_json_double(j, "cpu_samples", r->cpu_known[s] ? r->samples[s] : NAN);
    wasp_json_double(j, "cpu_draws", r->cpu_known[s] ? r->draws[s] : NAN);
    wasp_json_end_object(j);
}

static void json_row(wasp_json *j, const row *r)
{
    const wasp_summary_item *it = r->side[1] ? r->side[1] : r->side[0];
    wasp_json_begin_object(j, NULL, false);
    wasp_json_string(j, "place", it->place);
    wasp_json_string(j, "class", it->created);
    json_side(j, r, 0);
    json_side(j, r, 1);
    wasp_json_double(j, "cpu_change", r->tested ? r->cpu[1] - r->cpu[0] : NAN);
    wasp_json_double(j, "p_value", r->tested ? r->p_value : NAN);
    wasp_json_bool(j, "tested", r->tested);
    wasp_json_bool(j, "significant", r->significant);
    wasp_json_end_object(j);
}

int wasp_diff_summary_json(wasp_json *j, const wasp_profile *before, const wasp_profile *after)
{
    summary_diff d;
    if (build(&d, before, after) != 0)
        return -1;
    int significant = 0;
    wasp_json_begin_object(j, "summary", false);
    wasp_json_begin_array(j, "analyses", false);
    for (int i = 0; i < d.n; i++) {
        const analysis_rows *a = &d.an[i];
        wasp_json_begin_object(j, NULL, false);
        wasp_json_string(j, "analysis", wasp_analysis_id_name(a->id));
        wasp_json_string(j, "title", wasp_report_part_of(a->id)->title);
        wasp_json_begin_array(j, "places", false);
        for (int k = 0; k < a->n; k++) {
            json_row(j, &a->rows[k]);
            significant += a->rows[k].significant;
        }
        wasp_json_end_array(j);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    wasp_json_u64(j, "significant_changes", (uint64_t)significant);
    wasp_json_end_object(j);
    release(&d);
    return 0;
}
