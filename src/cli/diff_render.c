/*
 * `wasp diff` output (diff.h): text for people, JSON for tools. Each changed
 * entry says what happened first ("VANISHED  Dead store pair #1 before:
 * 46.6% of stored bytes -> 0"), then its contexts as the report prints them,
 * from the side where it is present (after when both).
 */
#include "analysis/names.h"
#include "cli/diff.h"
#include "cli/report_part.h"
#include "cli/units.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define ARROW "\xe2\x86\x92" /* → */

/* What each analysis's entries are and what their shares are of. */
static const struct an_words {
    const char *title, *entry, *of, *unit;
} words[WASP_ANALYSES] = {
    [WASP_ID_deadstore] = {"Dead stores", "Dead store pair", "of stored bytes", "bytes"},
    [WASP_ID_silentstore] = {"Silent stores", "Silent store pair", "of stored bytes", "bytes"},
    [WASP_ID_silentload] = {"Silent loads", "Silent load pair", "of loaded bytes", "bytes"},
    [WASP_ID_objects] = {"Objects", "Objects site", "of access samples", "samples"},
    [WASP_ID_replicas] = {"Object replicas", "Replica site", "of comparisons",
                          "equal comparisons"},
};

static bool is_pair(int id)
{
    return id < WASP_AN_COUNT;
}

/* A quantity in its unit: bytes for pairs, a count otherwise. */
static const char *fmt_value(int id, double v, char *buf, size_t n)
{
    if (is_pair(id))
        return wasp_fmt_bytes(v, buf, n);
    return wasp_fmt_count(v, buf, n);
}

/* The side whose profile shows an entry's contexts. */
static int shown_side(const wasp_diff_entry *e)
{
    return e->index[WASP_DIFF_AFTER] != UINT32_MAX ? WASP_DIFF_AFTER : WASP_DIFF_BEFORE;
}

/* ---- text ---- */

static void text_header(const wasp_diff *d, const wasp_diff_names *names, FILE *out)
{
    static const char *const label[2] = {"before", "after"};
    fputs("wasp diff\n", out);
    for (int s = 0; s < 2; s++) {
        const char *cmd = wasp_profile_get_meta(d->side[s], "java_command");
        fprintf(out, "  %-7s %s (%s)\n", label[s], names->file[s],
                cmd && *cmd ? cmd : "command not recorded");
    }
    fprintf(out, "  %-7s %s\n", "matched",
            names->by_line ? "by source line (frames; the leaf instruction ignored)"
                           : "by instruction (frames and leaf instruction)");
}

static void text_analysis_line(const wasp_diff *d, int id, FILE *out)
{
    const wasp_diff_analysis *a = &d->an[id];
    const struct an_words *w = &words[id];
    char f0[WASP_UNIT_BUF], f1[WASP_UNIT_BUF], t0[WASP_UNIT_BUF], t1[WASP_UNIT_BUF];
    fprintf(out, "\n%s:", w->title);
    for (int s = 0; s < 2; s++)
        if (!a->shown[s])
            fprintf(out, " (not profiled %s)", s ? "after" : "before");
    if (id == WASP_ID_objects) {
        fprintf(out, " %s " ARROW " %s access samples attributed\n",
                wasp_fmt_count(a->total[0], t0, sizeof t0),
                wasp_fmt_count(a->total[1], t1, sizeof t1));
        return;
    }
    fprintf(out, " %s %s " ARROW " %s (%+.1f points)",
            is_pair(id) ? "F_prog" : "equal values in",
            wasp_fmt_percent(a->fraction[0], f0, sizeof f0),
            wasp_fmt_percent(a->fraction[1], f1, sizeof f1),
            100 * (a->fraction[1] - a->fraction[0]));
    if (is_pair(id))
        fprintf(out, "; %s " ARROW " %s %s\n", wasp_fmt_bytes(a->total[0], t0, sizeof t0),
                wasp_fmt_bytes(a->total[1], t1, sizeof t1), w->of + 3);
    else
        fprintf(out, " of %s " ARROW " %s comparisons\n",
                wasp_fmt_count(a->total[0], t0, sizeof t0),
                wasp_fmt_count(a->total[1], t1, sizeof t1));
}

/* "#1 before", "#3 after", "#1 before, #2 after". */
static void text_ranks(const wasp_diff_entry *e, FILE *out)
{
    if (e->rank[0])
        fprintf(out, "#%" PRIu32 " before", e->rank[0]);
    if (e->rank[1])
        fprintf(out, "%s#%" PRIu32 " after", e->rank[0] ? ", " : "", e->rank[1]);
}

static void text_entry(const wasp_diff *d, const wasp_diff_entry *e, FILE *out)
{
    static const char *const tags[] = {"VANISHED", "APPEARED", "SHRANK", "GREW", "SAME"};
    const struct an_words *w = &words[e->analysis];
    wasp_diff_change c = wasp_diff_change_of(e);
    char s0[WASP_UNIT_BUF], s1[WASP_UNIT_BUF], v0[WASP_UNIT_BUF], v1[WASP_UNIT_BUF];
    fprintf(out, "\n  %-9s %s ", tags[c], w->entry);
    text_ranks(e, out);
    const char *zero = is_pair(e->analysis) ? "0 B" : "0";
    fmt_value(e->analysis, e->value[0], v0, sizeof v0);
    fmt_value(e->analysis, e->value[1], v1, sizeof v1);
    wasp_fmt_percent(e->share[0], s0, sizeof s0);
    wasp_fmt_percent(e->share[1], s1, sizeof s1);
    if (c == WASP_DIFF_VANISHED)
        fprintf(out, ": %s %s " ARROW " 0 (%s " ARROW " %s)\n", s0, w->of, v0, zero);
    else if (c == WASP_DIFF_APPEARED)
        fprintf(out, ": 0 " ARROW " %s %s (%s " ARROW " %s)\n", s1, w->of, zero, v1);
    else
        fprintf(out, ": %s " ARROW " %s %s (%+.1f points; %s " ARROW " %s)\n", s0, s1, w->of,
                100 * (e->share[1] - e->share[0]), v0, v1);

    const wasp_profile *p = d->side[shown_side(e)];
    uint32_t i = e->index[shown_side(e)];
    if (is_pair(e->analysis)) {
        const wasp_pair *q = &p->pairs[i];
        if (q->flags & WASP_PAIR_APPROX)
            fputs("      (approximate: float/double within threshold)\n", out);
        wasp_text_context(p, "watched:", q->watch_ctx, out);
        wasp_text_context(p, "trapped at:", q->trap_ctx, out);
    } else {
        fprintf(out, "      class %s\n", wasp_site_class(p, &p->sites[i]));
        wasp_text_site_allocation(p, &p->sites[i], out);
    }
}

int wasp_diff_render_text(const wasp_diff *d, const wasp_diff_names *names, int top, FILE *out)
{
    text_header(d, names, out);
    bool any = false;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        if (!d->an[id].shown[0] && !d->an[id].shown[1])
            continue;
        any = true;
        text_analysis_line(d, id, out);
        uint32_t changed = 0, shown = 0;
        for (uint32_t i = 0; i < d->n; i++) {
            const wasp_diff_entry *e = &d->entries[i];
            if (e->analysis != id || wasp_diff_change_of(e) == WASP_DIFF_UNCHANGED)
                continue;
            changed++;
            if (top <= 0 || shown < (uint32_t)top) {
                text_entry(d, e, out);
                shown++;
            }
        }
        const char *what = is_pair(id) ? "pair" : "site";
        if (changed == 0)
            fprintf(out, "  no %s changed\n", is_pair(id) ? "pair" : "site");
        else if (changed > shown)
            fprintf(out, "\n  ... %" PRIu32 " more changed %s%s (--top N shows more)\n",
                    changed - shown, what, changed - shown == 1 ? "" : "s");
    }
    if (!any)
        fputs("\nno analysis in either profile\n", out);
    return 0;
}

/* ---- JSON ---- */

static void json_side(wasp_json *j, const wasp_diff *d, const wasp_diff_names *names, int s)
{
    wasp_json_begin_object(j, s ? "after" : "before", false);
    wasp_json_string(j, "file", names->file[s]);
    wasp_json_string(j, "java_command", wasp_profile_get_meta(d->side[s], "java_command"));
    wasp_json_string(j, "run_id", wasp_profile_get_meta(d->side[s], "run_id"));
    wasp_json_end_object(j);
}

static void json_rank(wasp_json *j, const char *key, uint32_t rank)
{
    if (rank)
        wasp_json_u64(j, key, rank);
    else
        wasp_json_null(j, key);
}

static void json_entry(wasp_json *j, const wasp_diff *d, const wasp_diff_entry *e)
{
    wasp_json_begin_object(j, NULL, false);
    wasp_json_string(j, "change", wasp_diff_change_name(wasp_diff_change_of(e)));
    json_rank(j, "rank_before", e->rank[0]);
    json_rank(j, "rank_after", e->rank[1]);
    wasp_json_double(j, "share_before", e->share[0]);
    wasp_json_double(j, "share_after", e->share[1]);
    wasp_json_double(j, "share_change", e->share[1] - e->share[0]);
    wasp_json_double(j, "value_before", e->value[0]);
    wasp_json_double(j, "value_after", e->value[1]);
    const wasp_profile *p = d->side[shown_side(e)];
    uint32_t i = e->index[shown_side(e)];
    if (is_pair(e->analysis)) {
        const wasp_pair *q = &p->pairs[i];
        wasp_json_bool(j, "approximate", (q->flags & WASP_PAIR_APPROX) != 0);
        wasp_json_context(j, p, "watch", q->watch_ctx);
        wasp_json_context(j, p, "trap", q->trap_ctx);
    } else {
        wasp_json_string(j, "class", wasp_site_class(p, &p->sites[i]));
        wasp_json_site_allocation(j, p, &p->sites[i]);
    }
    wasp_json_end_object(j);
}

static void json_analysis(wasp_json *j, const wasp_diff *d, int id, int top)
{
    const wasp_diff_analysis *a = &d->an[id];
    wasp_json_begin_object(j, wasp_analysis_id_name(id), false);
    wasp_json_string(j, "unit", words[id].unit);
    for (int s = 0; s < 2; s++) {
        wasp_json_begin_object(j, s ? "after" : "before", true);
        wasp_json_bool(j, "profiled", a->shown[s]);
        wasp_json_double(j, "total", a->total[s]);
        if (id != WASP_ID_objects)
            wasp_json_double(j, "fraction", a->fraction[s]);
        wasp_json_end_object(j);
    }
    if (id != WASP_ID_objects)
        wasp_json_double(j, "fraction_change", a->fraction[1] - a->fraction[0]);
    uint32_t changed = 0, unchanged = 0, shown = 0;
    wasp_json_begin_array(j, "changes", false);
    for (uint32_t i = 0; i < d->n; i++) {
        const wasp_diff_entry *e = &d->entries[i];
        if (e->analysis != id)
            continue;
        if (wasp_diff_change_of(e) == WASP_DIFF_UNCHANGED) {
            unchanged++;
            continue;
        }
        changed++;
        if (top <= 0 || shown < (uint32_t)top) {
            json_entry(j, d, e);
            shown++;
        }
    }
    wasp_json_end_array(j);
    wasp_json_u64(j, "changes_not_shown", changed - shown);
    wasp_json_u64(j, "unchanged", unchanged);
    wasp_json_end_object(j);
}

int wasp_diff_render_json(const wasp_diff *d, const wasp_diff_names *names, int top, FILE *out)
{
    wasp_json j;
    wasp_json_init(&j, out);
    wasp_json_begin_object(&j, NULL, false);
    wasp_json_string(&j, "format", "wasp-diff");
    wasp_json_u64(&j, "version", 1);
    json_side(&j, d, names, 0);
    json_side(&j, d, names, 1);
    wasp_json_string(&j, "matched_by", names->by_line ? "line" : "instruction");
    wasp_json_begin_object(&j, "analyses", false);
    for (int id = 0; id < WASP_ANALYSES; id++)
        if (d->an[id].shown[0] || d->an[id].shown[1])
            json_analysis(&j, d, id, top);
    wasp_json_end_object(&j);
    wasp_json_end_object(&j);
    fputc('\n', out);
    return 0;
}
