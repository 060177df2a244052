/*
 * The pair analyses (JXPerf) in the report: three parts sharing this code,
 * each drawn by a view (cli/render/view.h) of its <watch, trap> pairs ranked by
 * wasteful bytes: text (each context printed like a Java stack trace, leaf
 * first, with the leaf instruction above it, as in JXPerf's Figure 4), JSON
 * (a member of "analyses" per analysis), diff, HTML and flame graphs. The
 * hooks: the text heading (F_prog), why there are no pairs, the diff's line.
 */
#include "catalog/names.h"
#include "analysis/pairs/profile.h"
#include "analysis/pairs/report_summary.h"
#include "cli/diff/diff_part.h"
#include "cli/render/html_part.h"
#include "cli/render/report_part.h"
#include "cli/render/view.h"
#include "cli/render/units.h"

#include <inttypes.h>
#include <stdlib.h>

static const char *const titles[WASP_AN_COUNT] = {"Dead stores", "Silent stores", "Silent loads"};
static const char *const verbs[WASP_AN_COUNT] = {"stored", "stored", "loaded"};
static const char *const adjectives[WASP_AN_COUNT] = {"dead", "silent", "silent"};

/* ---- shown ---- */

static bool has_data(const wasp_profile *p, wasp_analysis a)
{
    wasp_totals t = wasp_profile_totals(p, a);
    if (t.bytes != 0 || t.wasted != 0 || t.wasted_approx != 0 || t.pairs != 0)
        return true;
    uint32_t n;
    const wasp_pair *q = wasp_profile_pairs(p, &n);
    for (uint32_t i = 0; i < n; i++)
        if (q[i].analysis == (uint32_t)a)
            return true;
    return false;
}

/* Named in meta "events", or with any data (a merge may bring in analyses
 * the first run's "events" does not name). */
static bool shown(const wasp_profile *p, int id)
{
    return has_data(p, (wasp_analysis)id) ||
           wasp_events_name(wasp_profile_get_meta(p, "events"), wasp_analysis_id_name(id));
}

/* ---- text ---- */

static void header_text(const wasp_profile *p, FILE *out)
{
    char a[WASP_UNIT_BUF];
    if (wasp_has_counter(p, "classified"))
        fprintf(out, "  %-10s %s classified\n", "pairs",
                wasp_fmt_u64(wasp_profile_get_counter(p, "classified"), a, sizeof a));
}

/* One line saying why an analysis has no pairs, from the sampler's counters. */
static void why_no_pairs(const wasp_profile *p, int id, FILE *out)
{
    wasp_analysis a = (wasp_analysis)id;
    char buf[WASP_UNIT_BUF];
    const char *why;
    const char *disabled = wasp_profile_get_meta(p, "disabled_reason");
    if (disabled && *disabled) {
        fputs("  no pairs classified: profiling was disabled (the header says why)\n", out);
        return;
    }
    if (wasp_profile_get_counter(p, "samples") == 0)
        why = "no pairs classified: no samples were taken";
    else if (wasp_has_counter(p, "samples.memory") &&
             wasp_profile_get_counter(p, "samples.memory") == 0)
        why = "no pairs classified: no sample landed on a memory access";
    else if (wasp_profile_get_counter(p, "armed") == 0)
        why = "no pairs classified: no samples were armed";
    else if (wasp_profile_get_counter(p, "trapped") == 0)
        why = "no pairs classified: no watchpoint trapped";
    else if (wasp_profile_totals(p, a).pairs > 0) {
        fprintf(out, "  no %s pairs: none of the %s classified pairs was %s\n", adjectives[a],
                wasp_fmt_count(wasp_profile_totals(p, a).pairs, buf, sizeof buf), adjectives[a]);
        return;
    } else
        why = "no pairs classified for this analysis";
    fprintf(out, "  %s \xe2\x80\x94 see counters\n", why);
}

/* The section's heading: F_prog, exact and approximate waste, the samples. */
static void text_head(const wasp_profile *p, int id, int top, FILE *out)
{
    (void)top;
    wasp_analysis a = (wasp_analysis)id;
    wasp_totals t = wasp_profile_totals(p, a);
    char f[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF];
    fprintf(out, "\n%s: %s of %s %s (F_prog)\n", titles[a],
            wasp_fmt_percent(wasp_fraction_prog(p, a), f, sizeof f),
            wasp_fmt_bytes(t.bytes, b, sizeof b), verbs[a]);
    double exact = t.bytes > 0 ? t.wasted / t.bytes : 0;
    fprintf(out, "  exact %s (%s)", wasp_fmt_percent(exact, f, sizeof f),
            wasp_fmt_bytes(t.wasted, b, sizeof b));
    if (a != WASP_AN_DEADSTORE || t.wasted_approx != 0) {
        double approx = t.bytes > 0 ? t.wasted_approx / t.bytes : 0;
        fprintf(out, ", approximate (float/double within threshold) %s (%s)",
                wasp_fmt_percent(approx, f, sizeof f),
                wasp_fmt_bytes(t.wasted_approx, b, sizeof b));
    }
    /* Weighted: the samples the classified pairs stand for (a window's many
     * pairs share one sample's weight; the header counts the pairs). */
    fprintf(out, "; classified pairs stand for %s sample%s\n", wasp_fmt_count(t.pairs, c, sizeof c),
            t.pairs == 1 ? "" : "s");
}

/* ---- the view: <watch, trap> pairs ranked by wasteful bytes ---- */

static uint32_t *rank(const wasp_profile *p, int id, const wasp_view_total *t, uint32_t *n)
{
    (void)t;
    return wasp_profile_sorted_pairs(p, (wasp_analysis)id, n);
}

static void cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                  wasp_view_cell *x)
{
    (void)id;
    (void)t;
    const wasp_pair *q = wasp_profile_pair(p, index);
    x[0].num = wasp_fraction_pair(p, q);
    x[1].num = q->bytes;
    x[2].num = q->count;
    x[3].flag = (q->flags & WASP_PAIR_APPROX) != 0;
    x[4].ctx = q->watch_ctx;
    x[5].ctx = q->trap_ctx;
}

/* The independent observations behind analysis a's classified pairs: each
 * armed sample stands for the samples since the previous one (its weight),
 * and the pairs stand for the weights. The pair analyses share the armed
 * counter, so the mean weight is theirs together. 0 when unknown. */
static double observations(const wasp_profile *p, wasp_analysis a)
{
    double weights = 0, armed = (double)wasp_profile_get_counter(p, "armed");
    for (int k = 0; k < WASP_AN_COUNT; k++)
        weights += wasp_profile_totals(p, (wasp_analysis)k).pairs;
    return armed > 0 && weights > 0 ? wasp_profile_totals(p, a).pairs * armed / weights : 0;
}

static wasp_view_total total(const wasp_profile *p, int id)
{
    wasp_analysis a = (wasp_analysis)id;
    wasp_totals t = wasp_profile_totals(p, a);
    return (wasp_view_total){t.bytes, wasp_fraction_prog(p, a), true, t.pairs, observations(p, a),
                             NULL};
}

static void head_cells(const wasp_profile *p, int id, const wasp_view_total *totals,
                       wasp_view_cell *x)
{
    (void)totals;
    wasp_totals t = wasp_profile_totals(p, (wasp_analysis)id);
    x[0].num = wasp_fraction_prog(p, (wasp_analysis)id);
    x[1].num = t.bytes;
    x[2].num = t.wasted;
    x[3].num = t.wasted_approx;
    x[4].num = t.pairs;
}

/* "F_prog 46.6% -> 0.0% (-46.6 points); 4.3 KiB -> 4.9 KiB stored bytes". */
static void diff_summary(const wasp_diff_analysis *a, int id, FILE *out)
{
    char f0[WASP_UNIT_BUF], f1[WASP_UNIT_BUF], t0[WASP_UNIT_BUF], t1[WASP_UNIT_BUF];
    fprintf(out,
            "F_prog %s " WASP_DIFF_ARROW " %s (%+.1f points); %s " WASP_DIFF_ARROW " %s %s bytes",
            wasp_fmt_percent(a->fraction[0], f0, sizeof f0),
            wasp_fmt_percent(a->fraction[1], f1, sizeof f1),
            100 * (a->fraction[1] - a->fraction[0]), wasp_fmt_bytes(a->total[0], t0, sizeof t0),
            wasp_fmt_bytes(a->total[1], t1, sizeof t1), verbs[id]);
}

#define PAIR_VIEW(title_, entry_, verb_)                                                           \
    {                                                                                              \
        .title = title_, .entry = entry_, .what = "pair", .whats = "pairs",                        \
        .of = "of " verb_ " bytes", .unit = "bytes", .rows = "pairs", .has_fraction = true,        \
        .columns = {{"fraction", "F", WASP_VIEW_SHARE, 0, " ", 6, NULL, NULL},                     \
                    {"bytes", "bytes", WASP_VIEW_BYTES, WASP_VIEW_VALUE, "  ", 9, NULL, NULL},     \
                    {"count", "samples", WASP_VIEW_COUNT, WASP_VIEW_EVIDENCE | WASP_VIEW_ESTIMATE, \
                     "  ", 0, NULL, "sample"},                                                     \
                    {"approximate", "approximate", WASP_VIEW_FLAG, WASP_VIEW_KEY, "  ", 0,         \
                     "(approximate: float/double within threshold)", NULL},                       \
                    {"watch", "watched at", WASP_VIEW_CONTEXT, WASP_VIEW_KEY, NULL, 0, "watched:",  \
                     NULL},                                                                        \
                    {"trap", "trapped at", WASP_VIEW_CONTEXT, WASP_VIEW_KEY, NULL, 0,              \
                     "trapped at:", NULL}},                                                        \
        .head = {{"fraction", "F_prog", WASP_VIEW_SHARE, 0, NULL, 0, NULL, NULL},                  \
                 {"bytes", verb_, WASP_VIEW_BYTES, 0, NULL, 0, NULL, NULL},                        \
                 {"wasted_bytes", "exact", WASP_VIEW_BYTES, 0, NULL, 0, NULL, NULL},               \
                 {"wasted_bytes_approx", "approximate", WASP_VIEW_BYTES, 0, NULL, 0, NULL, NULL},  \
                 {"pairs_classified", "samples behind the classified pairs", WASP_VIEW_COUNT,      \
                  WASP_VIEW_ESTIMATE, NULL, 0, NULL, NULL}},                                       \
        .rank = rank, .cells = cells, .total = total, .head_cells = head_cells,                    \
        .text_head = text_head, .text_empty = why_no_pairs, .diff_summary = diff_summary,          \
    }
static const wasp_view views[WASP_AN_COUNT] = {
    PAIR_VIEW("Dead stores", "Dead store pair", "stored"),
    PAIR_VIEW("Silent stores", "Silent store pair", "stored"),
    PAIR_VIEW("Silent loads", "Silent load pair", "loaded"),
};

#define PAIR_REPORT_PART(a, title_, hint_)                                                         \
    {                                                                                              \
        .shown = shown, .counts_armed = true, .header_text = header_text,                          \
        .json_place = WASP_JSON_IN_ANALYSES, WASP_VIEW_REPORT(views[a]),                           \
        .summary = wasp_pairs_summary, .title = title_, .hint = hint_                              \
    }
const wasp_report_part wasp_report_deadstore = PAIR_REPORT_PART(WASP_AN_DEADSTORE,
    "Dead stores: values written and overwritten before anyone reads them",
    "remove the first store, or move it to the path that reads it (e.g. a reset or default "
    "written before a loop that writes every element again)");
const wasp_report_part wasp_report_silentstore = PAIR_REPORT_PART(WASP_AN_SILENTSTORE,
    "Silent stores: writes of the value already in memory",
    "skip the write when the value is unchanged, or hoist the recomputation of a value that "
    "does not change out of the loop");
const wasp_report_part wasp_report_silentload = PAIR_REPORT_PART(WASP_AN_SILENTLOAD,
    "Silent loads: reads of a value unchanged since the last read",
    "keep the value in a local, cache the result computed from it, or use a better lookup "
    "(a hash map instead of a linear search)");

/* Their diff parts and HTML sections are built from the views (view.h). */
const wasp_diff_part wasp_diff_deadstore = {0}, wasp_diff_silentstore = {0},
                     wasp_diff_silentload = {0};
const wasp_html_part wasp_html_deadstore = {0}, wasp_html_silentstore = {0},
                     wasp_html_silentload = {0};
