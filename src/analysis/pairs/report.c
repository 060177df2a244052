/*
 * The pair analyses (JXPerf) in the report: three parts sharing this code.
 * Text: F_prog and the top <watch, trap> pairs, each context printed like a
 * Java stack trace (leaf first) with the leaf instruction above it, as in
 * JXPerf's Figure 4. JSON: a member of "analyses" per analysis.
 */
#include "analysis/names.h"
#include "analysis/pairs/profile.h"
#include "analysis/pairs/report_summary.h"
#include "cli/report_part.h"
#include "cli/units.h"

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
static void why_no_pairs(const wasp_profile *p, wasp_analysis a, FILE *out)
{
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

static int pair_text(const wasp_profile *p, uint32_t index, uint32_t rank, int rank_width,
                     const void *arg, FILE *out)
{
    (void)arg;
    const wasp_pair *q = wasp_profile_pair(p, index);
    char f[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF];
    fprintf(out, "\n  #%-*" PRIu32 " %6s  %9s  %s sample%s%s\n", rank_width, rank,
            wasp_fmt_percent(wasp_fraction_pair(p, q), f, sizeof f),
            wasp_fmt_bytes(q->bytes, b, sizeof b), wasp_fmt_count(q->count, c, sizeof c),
            q->count == 1 ? "" : "s",
            q->flags & WASP_PAIR_APPROX ? "  (approximate: float/double within threshold)" : "");
    wasp_text_context(p, "watched:", q->watch_ctx, out);
    wasp_text_context(p, "trapped at:", q->trap_ctx, out);
    return 0;
}

static int text(const wasp_profile *p, int id, int top, FILE *out)
{
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

    uint32_t n;
    uint32_t *order = wasp_profile_sorted_pairs(p, a, &n);
    if (!order)
        return -1;
    if (n == 0)
        why_no_pairs(p, a, out);
    return wasp_text_ranked(p, order, n, top, "pair", pair_text, NULL, out);
}

/* ---- JSON ---- */

static int pair_json(wasp_json *j, const wasp_profile *p, uint32_t index, const void *arg)
{
    (void)arg;
    const wasp_pair *q = wasp_profile_pair(p, index);
    wasp_json_begin_object(j, NULL, false);
    wasp_json_double(j, "fraction", wasp_fraction_pair(p, q));
    wasp_json_double(j, "bytes", q->bytes);
    wasp_json_double(j, "count", q->count);
    wasp_json_bool(j, "approximate", (q->flags & WASP_PAIR_APPROX) != 0);
    wasp_json_context(j, p, "watch", q->watch_ctx);
    wasp_json_context(j, p, "trap", q->trap_ctx);
    wasp_json_end_object(j);
    return 0;
}

static int json(wasp_json *j, const wasp_profile *p, int id, int top)
{
    wasp_analysis a = (wasp_analysis)id;
    wasp_totals t = wasp_profile_totals(p, a);
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_pairs(p, a, &n);
    if (!order)
        return -1;
    wasp_json_begin_object(j, wasp_analysis_id_name(a), false);
    wasp_json_double(j, "fraction", wasp_fraction_prog(p, a));
    wasp_json_double(j, "bytes", t.bytes);
    wasp_json_double(j, "wasted_bytes", t.wasted);
    wasp_json_double(j, "wasted_bytes_approx", t.wasted_approx);
    wasp_json_double(j, "pairs_classified", t.pairs);
    if (wasp_json_ranked(j, p, "pairs", order, n, top, pair_json, NULL) != 0)
        return -1;
    wasp_json_end_object(j);
    return 0;
}

/* ---- stacks ---- */

/* Each pair's watch and trap context, both weighted by the pair's bytes. */
static int stacks(const wasp_profile *p, int id, wasp_stack_sink *sink)
{
    wasp_analysis a = (wasp_analysis)id;
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_pairs(p, a, &n);
    if (!order)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const wasp_pair *q = wasp_profile_pair(p, order[i]);
        wasp_stack s = {wasp_analysis_id_name(a), "watch", q->watch_ctx, NULL, q->bytes, q->count,
                        true};
        rc = sink->emit(sink, p, &s);
        s.side = "trap";
        s.ctx = q->trap_ctx;
        if (rc == 0)
            rc = sink->emit(sink, p, &s);
    }
    free(order);
    return rc;
}

#define PAIR_REPORT_PART(title_, hint_)                                                            \
    {                                                                                              \
        .shown = shown, .counts_armed = true, .header_text = header_text, .text = text,           \
        .json_place = WASP_JSON_IN_ANALYSES, .json = json, .stacks = stacks,                       \
        .summary = wasp_pairs_summary, .title = title_, .hint = hint_                                         \
    }
const wasp_report_part wasp_report_deadstore = PAIR_REPORT_PART(
    "Dead stores: values written and overwritten before anyone reads them",
    "remove the first store, or move it to the path that reads it (e.g. a reset or default "
    "written before a loop that writes every element again)");
const wasp_report_part wasp_report_silentstore = PAIR_REPORT_PART(
    "Silent stores: writes of the value already in memory",
    "skip the write when the value is unchanged, or hoist the recomputation of a value that "
    "does not change out of the loop");
const wasp_report_part wasp_report_silentload = PAIR_REPORT_PART(
    "Silent loads: reads of a value unchanged since the last read",
    "keep the value in a local, cache the result computed from it, or use a better lookup "
    "(a hash map instead of a linear search)");
