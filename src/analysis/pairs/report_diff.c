/*
 * The pair analyses (JXPerf) in `wasp diff` (cli/diff_part.h): their
 * <watch, trap> pairs, keyed by the approximate flag and both contexts, each
 * valued by its wasteful bytes as a share of the bytes stored (loaded), and
 * tested for noise on the samples it stands for; F_prog before and after.
 * Three parts sharing this code.
 */
#include "analysis/pairs/profile.h"
#include "cli/diff_part.h"
#include "cli/report_part.h"
#include "cli/units.h"

#include <stdlib.h>

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

static int collect(wasp_diff_builder *b, const wasp_profile *p, int id, int side)
{
    wasp_analysis a = (wasp_analysis)id;
    wasp_totals t = wasp_profile_totals(p, a);
    wasp_diff_set_total(b, id, side, t.bytes, wasp_fraction_prog(p, a));
    wasp_diff_set_samples(b, id, side, t.pairs, observations(p, a));
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_pairs(p, a, &n);
    if (!order)
        return -1;
    int rc = 0;
    bool insn = wasp_diff_with_insn(b);
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const wasp_pair *r = wasp_profile_pair(p, order[i]);
        wasp_diff_key k;
        wasp_diff_key_begin(&k, id);
        wasp_diff_key_number(&k, r->flags);
        wasp_diff_key_context(&k, p, r->watch_ctx, insn);
        wasp_diff_key_context(&k, p, r->trap_ctx, insn);
        rc = wasp_diff_add(b, id, side, &k, order[i], i + 1, r->bytes, r->count);
    }
    free(order);
    return rc;
}

/* "F_prog 46.6% -> 0.0% (-46.6 points); 4.3 KiB -> 4.9 KiB stored bytes". */
static void summary(const wasp_diff_analysis *a, int id, FILE *out)
{
    char f0[WASP_UNIT_BUF], f1[WASP_UNIT_BUF], t0[WASP_UNIT_BUF], t1[WASP_UNIT_BUF];
    fprintf(out,
            "F_prog %s " WASP_DIFF_ARROW " %s (%+.1f points); %s " WASP_DIFF_ARROW " %s %s bytes",
            wasp_fmt_percent(a->fraction[0], f0, sizeof f0),
            wasp_fmt_percent(a->fraction[1], f1, sizeof f1),
            100 * (a->fraction[1] - a->fraction[0]), wasp_fmt_bytes(a->total[0], t0, sizeof t0),
            wasp_fmt_bytes(a->total[1], t1, sizeof t1),
            id == WASP_AN_SILENTLOAD ? "loaded" : "stored");
}

static void text_entry(const wasp_profile *p, int id, uint32_t index, FILE *out)
{
    (void)id;
    const wasp_pair *q = wasp_profile_pair(p, index);
    if (q->flags & WASP_PAIR_APPROX)
        fputs("      (approximate: float/double within threshold)\n", out);
    wasp_text_context(p, "watched:", q->watch_ctx, out);
    wasp_text_context(p, "trapped at:", q->trap_ctx, out);
}

static void json_entry(wasp_json *j, const wasp_profile *p, int id, uint32_t index)
{
    (void)id;
    const wasp_pair *q = wasp_profile_pair(p, index);
    wasp_json_bool(j, "approximate", (q->flags & WASP_PAIR_APPROX) != 0);
    wasp_json_context(j, p, "watch", q->watch_ctx);
    wasp_json_context(j, p, "trap", q->trap_ctx);
}

#define PAIR_DIFF_PART(title_, entry_, of_)                                                        \
    {                                                                                              \
        .title = title_, .entry = entry_, .what = "pair", .whats = "pairs", .of = of_,             \
        .unit = "bytes", .value_bytes = true, .has_fraction = true, .collect = collect,            \
        .summary = summary, .text_entry = text_entry, .json_entry = json_entry,                    \
        .columns = {{"watched at", "watch", true}, {"trapped at", "trap", true}},                  \
        .details = {{"approximate: float/double within threshold", NULL, false, "approximate"},    \
                    {"watched", "watch", true, NULL},                                              \
                    {"trapped at", "trap", true, NULL}},                                           \
    }

const wasp_diff_part wasp_diff_deadstore =
    PAIR_DIFF_PART("Dead stores", "Dead store pair", "of stored bytes");
const wasp_diff_part wasp_diff_silentstore =
    PAIR_DIFF_PART("Silent stores", "Silent store pair", "of stored bytes");
const wasp_diff_part wasp_diff_silentload =
    PAIR_DIFF_PART("Silent loads", "Silent load pair", "of loaded bytes");
