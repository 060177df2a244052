/*
 * Java fields at sampled addresses (Inoue and Nakatani) in the report: the
 * fields and arrays, then the classes, ranked by sampled accesses (loads and
 * stores apart), each field with the heap areas its objects were in and its
 * access contexts; what was sampled off the heap, by area; what could not be
 * named, by cause. JSON: the top-level "fields" member.
 */
#include "analysis/fields/profile.h"
#include "analysis/fields/ranking.h"
#include "analysis/fields/records.h"
#include "cli/report_part.h"
#include "cli/units.h"
#include "profile/part.h"

#include <inttypes.h>
#include <stdlib.h>

enum { TEXT_CONTEXTS = 3, TEXT_CLASSES = 10 };

static bool shown(const wasp_profile *p, int id)
{
    (void)id;
    return wasp_profile_has_fields(p);
}

/* "Cell.hits", "long[] elements", "Cell (several fields from hits)",
 * "Cell +20". */
static void member_label(const wasp_profile *p, const wasp_field_group *g, char *buf, size_t n)
{
    const char *cls = p->strings[g->cls], *m = p->strings[g->member];
    if (g->offset == WASP_FIELD_ELEMENTS)
        snprintf(buf, n, "%s elements", cls);
    else if (*m == '(') /* a header word, several fields */
        snprintf(buf, n, "%s %s", cls, m);
    else if (*m)
        snprintf(buf, n, "%s.%s", cls, m);
    else
        snprintf(buf, n, "%s +%" PRIu32, cls, g->offset);
}

/* "old 90%, eden 10%" (areas of at least 1%). */
static void areas_text(const double *area, double all, FILE *out)
{
    const char *sep = "";
    for (int a = 0; a < WASP_AREA_COUNT; a++) {
        if (!(all > 0) || area[a] < all / 100)
            continue;
        char pc[WASP_UNIT_BUF];
        fprintf(out, "%s%s %s", sep, wasp_heap_area_name(a), wasp_fmt_percent(area[a] / all, pc, sizeof pc));
        sep = ", ";
    }
}

static void counters_text(const wasp_profile *p, FILE *out)
{
    static const char *const causes[][2] = {
        {"fields.no_header", "no object header within reach"},
        {"fields.initializing", "an object being initialized: no class word yet"},
        {"fields.mismatch", "the access's width or kind does not fit the field at its offset"},
        {"fields.no_layout", "HotSpot's object layout not read"},
        {"fields.table_full", "a thread's table was full"},
        {"fields.class_set_full", "too many classes to name"},
    };
    const char *sep = "  not named: ";
    for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++) {
        uint64_t v = wasp_profile_get_counter(p, causes[i][0]);
        if (v) {
            fprintf(out, "%s%" PRIu64 " (%s)", sep, v, causes[i][1]);
            sep = ", ";
        }
    }
    double unnamed = 0;
    if (wasp_profile_get_meta_num(p, "fields_unnamed_classes", &unnamed) && unnamed > 0) {
        fprintf(out, "%s%.0f (class not among the JVM's loaded classes)", sep, unnamed);
        sep = ", ";
    }
    if (*sep == ',')
        fputc('\n', out);
    uint64_t recovered = wasp_profile_get_counter(p, "fields.by_allocation");
    if (recovered)
        fprintf(out, "  of those, %" PRIu64 " named by the bytecode allocating them (objects the JVM "
                "was still clearing)\n", recovered);
    uint64_t later = wasp_profile_get_counter(p, "fields.by_later_look");
    if (later)
        fprintf(out, "  named by a later look: %" PRIu64 " (no header yet at the sample: objects "
                "the JVM was still clearing)\n", later);
}

/* The contexts of heap samples whose object was not found, most first: where
 * a reader would look to see why. */
static void unnamed_text(const wasp_profile *p, FILE *out)
{
    uint32_t n, k = 0;
    const wasp_field_entry *e = wasp_profile_fields(p, &n);
    uint32_t best[TEXT_CONTEXTS];
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].cls != 0 || !wasp_heap_area_in_heap((wasp_heap_area)e[i].area))
            continue;
        double s = e[i].loads + e[i].stores;
        uint32_t at = k < TEXT_CONTEXTS ? k++ : TEXT_CONTEXTS;
        while (at > 0 && s > e[best[at - 1]].loads + e[best[at - 1]].stores) {
            if (at < TEXT_CONTEXTS)
                best[at] = best[at - 1];
            at--;
        }
        if (at < TEXT_CONTEXTS)
            best[at] = i;
    }
    if (k)
        fputs("  where heap samples were not named:\n", out);
    for (uint32_t i = 0; i < k; i++) {
        char a[WASP_UNIT_BUF], lab[64];
        double s = e[best[i]].loads + e[best[i]].stores;
        snprintf(lab, sizeof lab, "%s sample%s", wasp_fmt_count(s, a, sizeof a), s == 1 ? "" : "s");
        wasp_text_context(p, lab, e[best[i]].ctx, out);
    }
}

static int text(const wasp_profile *p, int id, int top, FILE *out)
{
    (void)id;
    wasp_field_ranking r;
    if (wasp_field_rank(p, &r) != 0)
        return -1;
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], d[WASP_UNIT_BUF];
    double all = 0;
    for (int i = 0; i < WASP_AREA_COUNT; i++)
        all += r.area[i];
    fputs("\nJava fields at sampled addresses (Inoue & Nakatani)\n", out);
    if (!(all > 0)) {
        fputs("  no access samples recorded\n", out);
        wasp_field_ranking_free(&r);
        return 0;
    }
    fprintf(out, "  %s samples: %s in the Java heap (%s of them named), %s off it",
            wasp_fmt_count(all, a, sizeof a), wasp_fmt_count(r.heap, b, sizeof b),
            wasp_fmt_percent(wasp_share(r.named, r.heap), c, sizeof c),
            wasp_fmt_count(all - r.heap, d, sizeof d));
    fputs("\n  areas: ", out);
    areas_text(r.area, all, out);
    fputc('\n', out);
    counters_text(p, out);
    unnamed_text(p, out);
    uint32_t shown = wasp_report_shown(top, r.nmembers);
    for (uint32_t i = 0; i < shown; i++) {
        const wasp_field_group *g = &r.members[i];
        char label[512];
        member_label(p, g, label, sizeof label);
        fprintf(out, "\n  #%-2" PRIu32 " %s of heap samples  %s   loads %s  stores %s   ", i + 1,
                wasp_fmt_percent(wasp_share(g->loads + g->stores, r.heap), a, sizeof a), label,
                wasp_fmt_count(g->loads, b, sizeof b), wasp_fmt_count(g->stores, c, sizeof c));
        areas_text(g->area, g->loads + g->stores, out);
        fputc('\n', out);
        uint32_t nc = g->nentries < TEXT_CONTEXTS ? g->nentries : TEXT_CONTEXTS;
        const wasp_field_entry *e = wasp_profile_fields(p, &(uint32_t){0});
        for (uint32_t k = 0; k < nc; k++) {
            const wasp_field_entry *x = &e[g->entries[k]];
            char lab[64];
            snprintf(lab, sizeof lab, "%s sample%s", wasp_fmt_count(x->loads + x->stores, a, sizeof a),
                     x->loads + x->stores == 1 ? "" : "s");
            wasp_text_context(p, lab, x->ctx, out);
        }
        if (g->nentries > nc)
            fprintf(out, "      ... %" PRIu32 " more context%s\n", g->nentries - nc,
                    g->nentries - nc == 1 ? "" : "s");
    }
    if (r.nmembers > shown)
        fprintf(out, "\n  ... %" PRIu32 " more fields (--top N shows more)\n", r.nmembers - shown);
    fputs("\n  classes by sampled accesses:\n", out);
    uint32_t nclasses = r.nclasses < TEXT_CLASSES ? r.nclasses : TEXT_CLASSES;
    for (uint32_t i = 0; i < nclasses; i++) {
        const wasp_field_group *g = &r.classes[i];
        fprintf(out, "    %7s  %s   loads %s  stores %s\n",
                wasp_fmt_percent(wasp_share(g->loads + g->stores, r.heap), a, sizeof a),
                p->strings[g->cls], wasp_fmt_count(g->loads, b, sizeof b),
                wasp_fmt_count(g->stores, c, sizeof c));
    }
    wasp_field_ranking_free(&r);
    return 0;
}

static void json_areas(wasp_json *j, const char *key, const double *area)
{
    wasp_json_begin_object(j, key, true);
    for (int a = 0; a < WASP_AREA_COUNT; a++)
        if (area[a] > 0)
            wasp_json_double(j, wasp_heap_area_name(a), area[a]);
    wasp_json_end_object(j);
}

static void json_group(wasp_json *j, const wasp_profile *p, const wasp_field_group *g, double heap,
                       bool member)
{
    wasp_json_string(j, "class", p->strings[g->cls]);
    if (member) {
        wasp_json_string(j, "field", g->offset == WASP_FIELD_ELEMENTS ? "[]" : p->strings[g->member]);
        if (g->offset == WASP_FIELD_ELEMENTS)
            wasp_json_null(j, "offset");
        else
            wasp_json_double(j, "offset", g->offset);
    }
    wasp_json_double(j, "loads", g->loads);
    wasp_json_double(j, "stores", g->stores);
    wasp_json_double(j, "share", wasp_share(g->loads + g->stores, heap));
    json_areas(j, "areas", g->area);
}

static int unnamed_json(wasp_json *j, const wasp_profile *p, uint32_t index, const void *arg)
{
    (void)arg;
    const wasp_field_entry *x = &wasp_profile_fields(p, &(uint32_t){0})[index];
    wasp_json_begin_object(j, NULL, false);
    wasp_json_string(j, "area", wasp_heap_area_name((int)x->area));
    wasp_json_double(j, "loads", x->loads);
    wasp_json_double(j, "stores", x->stores);
    wasp_json_context_fields(j, p, x->ctx);
    wasp_json_end_object(j);
    return 0;
}

/* The samples no class was named for (off the heap, or no header found),
 * by context, most first: "unnamed". */
static int json_unnamed(wasp_json *j, const wasp_profile *p, int top)
{
    uint32_t n, k = 0;
    const wasp_field_entry *e = wasp_profile_fields(p, &n);
    wasp_ranked *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (e[i].cls == 0) /* strings[0] is "": not named */
            r[k++] = (wasp_ranked){{wasp_profile_context_walked(p, e[i].ctx), /* unwalked last */
                                    e[i].loads + e[i].stores},
                                   {e[i].ctx, e[i].area},
                                   i};
    uint32_t *order = wasp_ranked_order(r, k);
    if (!order)
        return -1;
    return wasp_json_ranked(j, p, "unnamed", order, k, top, unnamed_json, NULL);
}

static int json(wasp_json *j, const wasp_profile *p, int id, int top)
{
    (void)id;
    wasp_field_ranking r;
    if (wasp_field_rank(p, &r) != 0)
        return -1;
    const wasp_field_entry *e = wasp_profile_fields(p, &(uint32_t){0});
    wasp_json_begin_object(j, "fields", false);
    wasp_json_double(j, "heap_samples", r.heap);
    wasp_json_double(j, "named", r.named);
    json_areas(j, "areas", r.area);
    wasp_json_begin_array(j, "fields", false);
    uint32_t shown = wasp_report_shown(top, r.nmembers);
    for (uint32_t i = 0; i < shown; i++) {
        const wasp_field_group *g = &r.members[i];
        wasp_json_begin_object(j, NULL, false);
        json_group(j, p, g, r.heap, true);
        wasp_json_begin_array(j, "contexts", false);
        for (uint32_t k = 0; k < g->nentries; k++) {
            const wasp_field_entry *x = &e[g->entries[k]];
            wasp_json_begin_object(j, NULL, false);
            wasp_json_double(j, "loads", x->loads);
            wasp_json_double(j, "stores", x->stores);
            wasp_json_string(j, "area", wasp_heap_area_name((int)x->area));
            wasp_json_context_fields(j, p, x->ctx);
            wasp_json_end_object(j);
        }
        wasp_json_end_array(j);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    wasp_json_begin_array(j, "classes", false);
    shown = wasp_report_shown(top, r.nclasses);
    for (uint32_t i = 0; i < shown; i++) {
        wasp_json_begin_object(j, NULL, true);
        json_group(j, p, &r.classes[i], r.heap, false);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    int rc = json_unnamed(j, p, top);
    wasp_json_end_object(j);
    wasp_field_ranking_free(&r);
    return rc;
}

/* Each named member's access contexts, the member as the leaf frame. */
static int stacks(const wasp_profile *p, int id, wasp_stack_sink *sink)
{
    (void)id;
    wasp_field_ranking r;
    if (wasp_field_rank(p, &r) != 0)
        return -1;
    const wasp_field_entry *e = wasp_profile_fields(p, &(uint32_t){0});
    int rc = 0;
    for (uint32_t i = 0; i < r.nmembers && rc == 0; i++) {
        char label[512];
        member_label(p, &r.members[i], label, sizeof label);
        for (uint32_t k = 0; k < r.members[i].nentries && rc == 0; k++) {
            const wasp_field_entry *x = &e[r.members[i].entries[k]];
            wasp_stack s = {"fields", "access", x->ctx, label, 0, x->loads + x->stores, false};
            rc = sink->emit(sink, p, &s);
        }
    }
    wasp_field_ranking_free(&r);
    return rc;
}

/* ---- summary ---- */

/* The members (fields, array elements) with the most heap samples, each at
 * its busiest context; each sample is one of the program's CPU samples. */
static int summary(const wasp_profile *p, int id, int max, wasp_finding_sink *sink)
{
    (void)id;
    wasp_field_ranking r;
    if (wasp_field_rank(p, &r) != 0)
        return -1;
    const wasp_field_entry *e = wasp_profile_fields(p, &(uint32_t){0});
    int rc = 0;
    for (uint32_t i = 0; i < r.nmembers && i < (uint32_t)max && rc == 0; i++) {
        const wasp_field_group *g = &r.members[i];
        double s = g->loads + g->stores;
        if (!(s > 0) || !g->nentries)
            break;
        wasp_finding f = {.ctx = e[g->entries[0]].ctx, .share = wasp_share(s, r.heap), .cpu = s,
                          .evidence = s * wasp_report_taken_per_due(p)};
        char label[160], a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF];
        member_label(p, g, label, sizeof label);
        snprintf(f.what, sizeof f.what, "accesses %s: %s of the heap samples (%s loads, %s "
                 "stores)", label, wasp_fmt_percent(f.share, a, sizeof a),
                 wasp_fmt_count(g->loads, b, sizeof b), wasp_fmt_count(g->stores, c, sizeof c));
        rc = sink->emit(sink, p, &f);
    }
    wasp_field_ranking_free(&r);
    return rc;
}

const wasp_report_part wasp_report_fields = {
    .summary = summary,
    .title = "Hot fields: the classes' fields and arrays the program accesses most",
    .hint = "access these less often (keep the value in a local), or place what is accessed "
            "together in one object or array",
    .shown = shown,
    .counter_prefix = "fields.",
    .text = text,
    .json_place = WASP_JSON_TOP_LEVEL,
    .json = json,
    .stacks = stacks,
};
