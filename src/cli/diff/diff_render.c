/*
 * `wasp diff` output (diff.h): text for people, JSON for tools. Each changed
 * entry says what happened first ("VANISHED  Dead store pair #1 before:
 * 46.6% of stored bytes -> 0"), then what its section's diff part
 * (diff_part.h) shows of it, from the side where it is present (after when
 * both). A sub view's section follows its analysis's: in the text after it,
 * in the JSON as a member of its object (as the report's JSON has it).
 * Nothing here names an analysis.
 */
#include "catalog/names.h"
#include "cli/commands/diff.h"
#include "cli/diff/diff_part.h"
#include "cli/diff/diff_summary.h"
#include "cli/render/render.h"
#include "cli/render/report_part.h"
#include "cli/render/units.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A quantity in its unit: bytes, or a count. */
static const char *fmt_value(const wasp_diff_part *part, double v, char *buf, size_t n)
{
    if (part->value_bytes)
        return wasp_fmt_bytes(v, buf, n);
    return wasp_fmt_count(v, buf, n);
}

/* The changes of section id (every section when id < 0) by kind: the
 * significant ones per wasp_diff_change, those within noise, the unchanged. */
struct tally {
    uint32_t significant[WASP_DIFF_UNCHANGED], total, noise, unchanged;
};

static struct tally tally_of(const wasp_diff *d, int id)
{
    struct tally t = {{0}, 0, 0, 0};
    for (uint32_t i = 0; i < d->n; i++) {
        const wasp_diff_entry *e = &d->entries[i];
        wasp_diff_change c = wasp_diff_change_of(e);
        if (id >= 0 && e->section != id)
            continue;
        if (c == WASP_DIFF_UNCHANGED)
            t.unchanged++;
        else if (e->significant) {
            t.significant[c]++;
            t.total++;
        } else
            t.noise++;
    }
    return t;
}

/* "3 significant changes (2 vanished, 1 shrank); 38 within noise". */
static void tally_text(const struct tally *t, FILE *out)
{
    fprintf(out, "%" PRIu32 " significant change%s", t->total, t->total == 1 ? "" : "s");
    const char *sep = " (";
    for (int c = 0; c < WASP_DIFF_UNCHANGED; c++)
        if (t->significant[c]) {
            fprintf(out, "%s%" PRIu32 " %s", sep, t->significant[c],
                    wasp_diff_change_name((wasp_diff_change)c));
            sep = ", ";
        }
    fprintf(out, "%s; %" PRIu32 " within noise", t->total ? ")" : "", t->noise);
    if (t->unchanged)
        fprintf(out, "; %" PRIu32 " unchanged", t->unchanged);
}

/* The tally's sentence of section id (every one when id < 0). */
static void tally_line(const wasp_diff *d, int id, FILE *out)
{
    struct tally t = tally_of(d, id);
    tally_text(&t, out);
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
    /* A side armed too few samples for its fractions to mean much: its
     * changes are mostly noise, and the noise test knows only part of it. */
    char thin[WASP_THIN_WARNING_MAX];
    for (int s = 0; s < 2; s++)
        if (wasp_report_thin_evidence(d->side[s], thin, sizeof thin))
            fprintf(out, "  %-7s %s: %s\n", "warning", label[s], thin);
    fprintf(out, "  %-7s %s\n", "matched",
            names->by_line ? "by source line (frames; the leaf instruction ignored)"
                           : "by instruction (frames and leaf instruction)");
    fprintf(out, "  %-7s ", "changes");
    tally_line(d, -1, out);
    fprintf(out, " (a test of each share of samples, %g%% family-wise; docs/diff.md)\n",
            100 * WASP_DIFF_ALPHA);
}

/* The part's summary, or "TOTAL0 -> TOTAL1 UNIT". */
static void summary(const wasp_diff *d, int id, FILE *out)
{
    const wasp_diff_part *part = wasp_diff_part_of(id);
    const wasp_diff_analysis *a = &d->an[id];
    if (part->summary) {
        part->summary(a, id, out);
        return;
    }
    char t0[WASP_UNIT_BUF], t1[WASP_UNIT_BUF];
    fprintf(out, "%s " WASP_DIFF_ARROW " %s %s", fmt_value(part, a->total[0], t0, sizeof t0),
            fmt_value(part, a->total[1], t1, sizeof t1), part->unit);
}

static void text_analysis_line(const wasp_diff *d, int id, FILE *out)
{
    const wasp_diff_analysis *a = &d->an[id];
    fprintf(out, "\n%s:", wasp_diff_part_of(id)->title);
    for (int s = 0; s < 2; s++)
        if (!a->shown[s])
            fprintf(out, " (not profiled %s)", s ? "after" : "before");
    fputc(' ', out);
    summary(d, id, out);
    fputs("\n  ", out);
    tally_line(d, id, out);
    fputc('\n', out);
}

/* "#1 before", "#3 after", "#1 before, #2 after". */
static void text_ranks(const wasp_diff_entry *e, FILE *out)
{
    if (e->rank[0])
        fprintf(out, "#%" PRIu32 " before", e->rank[0]);
    if (e->rank[1])
        fprintf(out, "%s#%" PRIu32 " after", e->rank[0] ? ", " : "", e->rank[1]);
}

static void text_entry(const wasp_diff *d, const wasp_diff_entry *e, bool verbose, FILE *out)
{
    static const char *const tags[] = {"VANISHED", "APPEARED", "SHRANK", "GREW", "SAME"};
    const wasp_diff_part *part = wasp_diff_part_of(e->section);
    wasp_diff_change c = wasp_diff_change_of(e);
    char s0[WASP_UNIT_BUF], s1[WASP_UNIT_BUF], v0[WASP_UNIT_BUF], v1[WASP_UNIT_BUF];
    fprintf(out, "\n  %-9s %s ", tags[c], part->entry);
    text_ranks(e, out);
    const char *zero = part->value_bytes ? "0 B" : "0";
    fmt_value(part, e->value[0], v0, sizeof v0);
    fmt_value(part, e->value[1], v1, sizeof v1);
    wasp_fmt_percent(e->share[0], s0, sizeof s0);
    wasp_fmt_percent(e->share[1], s1, sizeof s1);
    if (c == WASP_DIFF_VANISHED)
        fprintf(out, ": %s %s " WASP_DIFF_ARROW " 0 (%s " WASP_DIFF_ARROW " %s)", s0, part->of,
                v0, zero);
    else if (c == WASP_DIFF_APPEARED)
        fprintf(out, ": 0 " WASP_DIFF_ARROW " %s %s (%s " WASP_DIFF_ARROW " %s)", s1, part->of,
                zero, v1);
    else
        fprintf(out, ": %s " WASP_DIFF_ARROW " %s %s (%+.1f points; %s " WASP_DIFF_ARROW " %s)",
                s0, s1, part->of, 100 * (e->share[1] - e->share[0]), v0, v1);
    fputs(e->significant ? "\n" : "  [within noise]\n", out);
    const wasp_profile *p = d->side[shown_side(e)];
    if (!e->significant && !verbose && part->text_brief) {
        fputs("      ", out);
        part->text_brief(p, e->section, e->index[shown_side(e)], out);
        fputc('\n', out);
    } else if (part->text_entry) {
        part->text_entry(p, e->section, e->index[shown_side(e)], out);
    }
}

static bool section_shown(const wasp_diff *d, int section)
{
    return d->an[section].shown[0] || d->an[section].shown[1];
}

/* Section s: its heading, then its first --top changes. */
static void text_section(const wasp_diff *d, int s, int top, bool verbose, FILE *out)
{
    text_analysis_line(d, s, out);
    uint32_t changed = 0, shown = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        const wasp_diff_entry *e = &d->entries[i];
        if (e->section != s || wasp_diff_change_of(e) == WASP_DIFF_UNCHANGED)
            continue;
        changed++;
        if (top <= 0 || shown < (uint32_t)top) {
            text_entry(d, e, verbose, out);
            shown++;
        }
    }
    const wasp_diff_part *part = wasp_diff_part_of(s);
    if (changed == 0)
        fprintf(out, "  no %s changed\n", part->what);
    else if (changed > shown)
        fprintf(out, "\n  ... %" PRIu32 " more changed %s (--top N shows more)\n",
                changed - shown, changed - shown == 1 ? part->what : part->whats);
}

int wasp_diff_render_text(const wasp_diff *d, const wasp_diff_names *names, int top, FILE *out)
{
    text_header(d, names, out);
    if (wasp_diff_summary_text(d->side[0], d->side[1], out) != 0)
        return -1;
    bool any = false;
    for (int id = 0; id < WASP_ANALYSES; id++)
        for (int s = id; s < WASP_DIFF_SECTIONS; s += WASP_ANALYSES) /* its view, its sub */
            if (section_shown(d, s)) {
                any = true;
                text_section(d, s, top, names->verbose, out);
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
    char thin[WASP_THIN_WARNING_MAX];
    wasp_json_begin_array(j, "warnings", true);
    if (wasp_report_thin_evidence(d->side[s], thin, sizeof thin))
        wasp_json_string(j, NULL, thin);
    wasp_json_end_array(j);
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
    wasp_json_double(j, "samples_before", e->samples[0]);
    wasp_json_double(j, "samples_after", e->samples[1]);
    wasp_json_double(j, "p_value", e->p_value);
    wasp_json_bool(j, "significant", e->significant);
    const wasp_diff_part *part = wasp_diff_part_of(e->section);
    if (part->json_entry)
        part->json_entry(j, d->side[shown_side(e)], e->section, e->index[shown_side(e)]);
    wasp_json_end_object(j);
}

/* A member `key` holding what print writes of section id, as text writes
 * it (for the HTML diff). */
static void json_printed(wasp_json *j, const char *key,
                         void (*print)(const wasp_diff *d, int id, FILE *out), const wasp_diff *d,
                         int id)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem) {
        print(d, id, mem);
        if (fclose(mem) != 0) {
            free(text);
            text = NULL;
        }
    }
    wasp_json_string(j, key, text ? text : "");
    free(text);
}

/* What the HTML diff shows of a change: its columns and what opens under it. */
static void json_layout(wasp_json *j, const wasp_diff_part *part)
{
    wasp_json_begin_array(j, "columns", false);
    for (int i = 0; i < WASP_DIFF_COLUMNS && part->columns[i].title; i++) {
        const wasp_diff_column *c = &part->columns[i];
        wasp_json_begin_object(j, NULL, true);
        wasp_json_string(j, "title", c->title);
        wasp_json_string(j, "member", c->member);
        wasp_json_bool(j, "context", c->context);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    wasp_json_begin_array(j, "details", false);
    for (int i = 0; i < WASP_DIFF_COLUMNS && part->details[i].label; i++) {
        const wasp_diff_detail *t = &part->details[i];
        wasp_json_begin_object(j, NULL, true);
        wasp_json_string(j, "label", t->label);
        wasp_json_string(j, "member", t->member);
        wasp_json_bool(j, "context", t->context);
        wasp_json_string(j, "when", t->when);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
}

/* "significant_changes", "significant" (by change), "within_noise" and the
 * tally's sentence, of section id (every one when id < 0). */
static void json_tally(wasp_json *j, const wasp_diff *d, int id)
{
    struct tally t = tally_of(d, id);
    wasp_json_u64(j, "significant_changes", t.total);
    wasp_json_begin_object(j, "significant", true);
    for (int c = 0; c < WASP_DIFF_UNCHANGED; c++)
        wasp_json_u64(j, wasp_diff_change_name((wasp_diff_change)c), t.significant[c]);
    wasp_json_end_object(j);
    wasp_json_u64(j, "within_noise", t.noise);
    json_printed(j, "changes_summary", tally_line, d, id);
}

/* Section id as the object `key`; then, inside it, its sub's section. */
static void json_section(wasp_json *j, const wasp_diff *d, int id, const char *key, int top)
{
    const wasp_diff_analysis *a = &d->an[id];
    const wasp_diff_part *part = wasp_diff_part_of(id);
    wasp_json_begin_object(j, key, false);
    wasp_json_string(j, "title", part->title);
    wasp_json_string(j, "unit", part->unit);
    json_printed(j, "summary", summary, d, id);
    for (int s = 0; s < 2; s++) {
        wasp_json_begin_object(j, s ? "after" : "before", true);
        wasp_json_bool(j, "profiled", a->shown[s]);
        wasp_json_double(j, "total", a->total[s]);
        wasp_json_double(j, "samples", a->samples[s]);
        wasp_json_double(j, "observations",
                         a->observations[s] > 0 ? a->observations[s] : a->samples[s]);
        if (part->has_fraction)
            wasp_json_double(j, "fraction", a->fraction[s]);
        wasp_json_end_object(j);
    }
    if (part->has_fraction)
        wasp_json_double(j, "fraction_change", a->fraction[1] - a->fraction[0]);
    json_layout(j, part);
    uint32_t changed = 0, unchanged = 0, shown = 0;
    wasp_json_begin_array(j, "changes", false);
    for (uint32_t i = 0; i < d->n; i++) {
        const wasp_diff_entry *e = &d->entries[i];
        if (e->section != id)
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
    json_tally(j, d, id);
    int sub = id + WASP_ANALYSES;
    if (sub < WASP_DIFF_SECTIONS && section_shown(d, sub))
        json_section(j, d, sub, wasp_diff_part_of(sub)->member, top);
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
    wasp_json_begin_object(&j, "noise_test", true);
    wasp_json_string(&j, "test", "two-proportion z-test with continuity correction, Holm");
    wasp_json_double(&j, "family_alpha", WASP_DIFF_ALPHA);
    wasp_json_end_object(&j);
    json_tally(&j, d, -1);
    if (wasp_diff_summary_json(&j, d->side[0], d->side[1]) != 0)
        return -1;
    wasp_json_begin_object(&j, "analyses", false);
    for (int id = 0; id < WASP_ANALYSES; id++)
        if (section_shown(d, id))
            json_section(&j, d, id, wasp_analysis_id_name(id), top);
    wasp_json_end_object(&j);
    wasp_json_end_object(&j);
    fputc('\n', out);
    return 0;
}

/* ---- shared by the parts of site analyses (diff_part.h) ---- */

void wasp_diff_site_text(const wasp_profile *p, int id, uint32_t site, FILE *out)
{
    (void)id;
    fprintf(out, "      class %s\n", wasp_site_class(p, &p->sites[site]));
    wasp_text_site_allocation(p, &p->sites[site], out);
}

void wasp_diff_site_json(wasp_json *j, const wasp_profile *p, int id, uint32_t site)
{
    (void)id;
    wasp_json_string(j, "class", wasp_site_class(p, &p->sites[site]));
    wasp_json_site_allocation(j, p, &p->sites[site]);
}

void wasp_diff_key_site(wasp_diff_key *k, const wasp_profile *p, uint32_t site)
{
    wasp_diff_key_string(k, wasp_profile_string(p, p->sites[site].class_name));
    wasp_diff_key_context(k, p, p->sites[site].ctx, false); /* allocations have no instruction */
}
