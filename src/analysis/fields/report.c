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
#include "cli/diff/diff_part.h"
#include "cli/render/html_part.h"
#include "cli/render/report_part.h"
#include "cli/render/view.h"
#include "cli/render/units.h"
#include "profile/part.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TEXT_CONTEXTS = 3, TEXT_CLASSES = 10, LABEL_MAX = 512 };

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

/* The heading: the samples, their areas, what was not named and where. */
static void text_head(const wasp_profile *p, int id, int top, FILE *out)
{
    (void)id;
    (void)top;
    wasp_field_ranking r;
    if (wasp_field_rank(p, &r) != 0)
        return;
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], d[WASP_UNIT_BUF];
    double all = 0;
    for (int i = 0; i < WASP_AREA_COUNT; i++)
        all += r.area[i];
    fputs("\nJava fields at sampled addresses (Inoue & Nakatani)\n", out);
    if (!(all > 0)) {
        fputs("  no access samples recorded\n", out);
        wasp_field_ranking_free(&r);
        return;
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
    wasp_field_ranking_free(&r);
}

/* A member's line and its first contexts. */
static int member_text(const wasp_profile *p, int id, uint32_t index, uint32_t rank,
                       int rank_width, const wasp_view_total *t, FILE *out)
{
    (void)id;
    (void)rank_width; /* two wide, as it always was */
    const wasp_field_ranking *r = t->state;
    const wasp_field_group *g = &r->members[index];
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], label[512];
    member_label(p, g, label, sizeof label);
    fprintf(out, "\n  #%-2" PRIu32 " %s of heap samples  %s   loads %s  stores %s   ", rank,
            wasp_fmt_percent(wasp_share(g->loads + g->stores, r->heap), a, sizeof a), label,
            wasp_fmt_count(g->loads, b, sizeof b), wasp_fmt_count(g->stores, c, sizeof c));
    areas_text(g->area, g->loads + g->stores, out);
    fputc('\n', out);
    return 0; /* then its contexts (the view's list) */
}

/* After the members: the classes, the first TEXT_CLASSES. */
static void classes_text(const wasp_profile *p, int id, const wasp_view_total *t, FILE *out)
{
    (void)id;
    const wasp_field_ranking *r = t->state;
    double all = 0;
    for (int i = 0; i < WASP_AREA_COUNT; i++)
        all += r->area[i];
    if (!(all > 0))
        return;
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF];
    fputs("\n  classes by sampled accesses:\n", out);
    uint32_t nclasses = r->nclasses < TEXT_CLASSES ? r->nclasses : TEXT_CLASSES;
    for (uint32_t i = 0; i < nclasses; i++) {
        const wasp_field_group *g = &r->classes[i];
        fprintf(out, "    %7s  %s   loads %s  stores %s\n",
                wasp_fmt_percent(wasp_share(g->loads + g->stores, r->heap), a, sizeof a),
                p->strings[g->cls], wasp_fmt_count(g->loads, b, sizeof b),
                wasp_fmt_count(g->stores, c, sizeof c));
    }
}

/* The diff's line of a changed member: "class C, field f" (or its offset). */
static void diff_text(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                      FILE *out)
{
    (void)id;
    const wasp_field_group *g = &((const wasp_field_ranking *)t->state)->members[index];
    if (g->offset == WASP_FIELD_ELEMENTS)
        fprintf(out, "      class %s, field []\n", p->strings[g->cls]);
    else if (*p->strings[g->member])
        fprintf(out, "      class %s, field %s\n", p->strings[g->cls], p->strings[g->member]);
    else
        fprintf(out, "      class %s, offset %u\n", p->strings[g->cls], (unsigned)g->offset);
}

/* ---- the view: members ranked by sampled accesses, each with its
 * contexts; then the classes and the samples not named ---- */

/* What a rendering computes once: the ranking and the members' labels
 * (the rows' leaf frames). */
struct ranked {
    wasp_field_ranking r; /* first: the state is also the ranking */
    char (*labels)[LABEL_MAX];
};

static void release(void *state)
{
    struct ranked *k = state;
    wasp_field_ranking_free(&k->r);
    free(k->labels);
    free(k);
}

static wasp_view_total total(const wasp_profile *p, int id)
{
    (void)id;
    struct ranked *k = calloc(1, sizeof *k);
    if (k && wasp_field_rank(p, &k->r) != 0) {
        free(k);
        k = NULL;
    }
    if (k && !(k->labels = malloc((k->r.nmembers ? k->r.nmembers : 1) * sizeof *k->labels))) {
        release(k);
        k = NULL;
    }
    for (uint32_t i = 0; k && i < k->r.nmembers; i++)
        member_label(p, &k->r.members[i], k->labels[i], LABEL_MAX);
    return (wasp_view_total){k ? k->r.heap : 0, 0, false, 0, 0, k};
}

static uint32_t *rank(const wasp_profile *p, int id, const wasp_view_total *t, uint32_t *n)
{
    (void)p;
    (void)id;
    const wasp_field_ranking *r = t->state;
    return r ? wasp_view_in_order(r->nmembers, n) : NULL; /* the ranking's order */
}

static void group_cells(const wasp_field_group *g, double heap, wasp_view_cell *x)
{
    x[0].num = g->loads;
    x[1].num = g->stores;
    x[2].num = wasp_share(g->loads + g->stores, heap);
    x[4].num = g->loads + g->stores;
}

static void member_cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                         wasp_view_cell *x)
{
    (void)id;
    const wasp_field_ranking *r = t->state;
    const wasp_field_group *g = &r->members[index];
    x[0].str = p->strings[g->cls];
    x[1].str = g->offset == WASP_FIELD_ELEMENTS ? "[]" : p->strings[g->member];
    x[2].num = g->offset == WASP_FIELD_ELEMENTS ? NAN : g->offset;
    x[3].str = ((const struct ranked *)t->state)->labels[index];
    group_cells(g, r->heap, &x[4]);
    x[10].ctx = g->nentries ? wasp_profile_fields(p, &(uint32_t){0})[g->entries[0]].ctx : 0;
}

/* "areas": samples by heap area, of the head (index UINT32_MAX) or of row
 * index of a view whose rows are groups (members, classes). */
static void json_areas(wasp_json *j, const char *key, const double *area)
{
    wasp_json_begin_object(j, key, true);
    for (int a = 0; a < WASP_AREA_COUNT; a++)
        if (area[a] > 0)
            wasp_json_double(j, wasp_heap_area_name(a), area[a]);
    wasp_json_end_object(j);
}

static int member_areas(wasp_json *j, const wasp_profile *p, int id, uint32_t index,
                        const wasp_view_total *t, const char *member, int top)
{
    (void)p;
    (void)id;
    (void)top;
    const wasp_field_ranking *r = t->state;
    json_areas(j, member, index == UINT32_MAX ? r->area : r->members[index].area);
    return 0;
}

static int class_areas(wasp_json *j, const wasp_profile *p, int id, uint32_t index,
                       const wasp_view_total *t, const char *member, int top)
{
    (void)p;
    (void)id;
    (void)top;
    json_areas(j, member, ((const wasp_field_ranking *)t->state)->classes[index].area);
    return 0;
}

static uint32_t *contexts_of(const wasp_profile *p, int id, uint32_t member,
                             const wasp_view_total *t, uint32_t *n)
{
    (void)p;
    (void)id;
    const wasp_field_group *g = &((const wasp_field_ranking *)t->state)->members[member];
    return wasp_view_copy(g->entries, g->nentries, n);
}

static void entry_cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                        wasp_view_cell *x)
{
    (void)id;
    (void)t;
    const wasp_field_entry *e = &wasp_profile_fields(p, &(uint32_t){0})[index];
    x[0].num = e->loads;
    x[1].num = e->stores;
    x[2].str = wasp_heap_area_name((int)e->area);
    x[3].ctx = e->ctx;
    x[4].num = e->loads + e->stores;
}

static uint32_t *classes(const wasp_profile *p, int id, uint32_t parent, const wasp_view_total *t,
                         uint32_t *n)
{
    (void)p;
    (void)id;
    (void)parent;
    return wasp_view_in_order(((const wasp_field_ranking *)t->state)->nclasses, n);
}

static void class_cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                        wasp_view_cell *x)
{
    (void)id;
    const wasp_field_ranking *r = t->state;
    x[0].str = p->strings[r->classes[index].cls];
    group_cells(&r->classes[index], r->heap, &x[1]);
}

/* The samples no class was named for (off the heap, or no header found),
 * by context, most first. */
static uint32_t *unnamed(const wasp_profile *p, int id, uint32_t parent, const wasp_view_total *t,
                         uint32_t *n)
{
    (void)id;
    (void)parent;
    (void)t;
    uint32_t all, k = 0;
    const wasp_field_entry *e = wasp_profile_fields(p, &all);
    wasp_ranked *r = malloc((all ? all : 1) * sizeof *r);
    if (!r)
        return NULL;
    for (uint32_t i = 0; i < all; i++)
        if (e[i].cls == 0) /* strings[0] is "": not named */
            r[k++] = (wasp_ranked){{wasp_profile_context_walked(p, e[i].ctx), /* unwalked last */
                                    e[i].loads + e[i].stores},
                                   {e[i].ctx, e[i].area},
                                   i};
    *n = k;
    return wasp_ranked_order(r, k);
}

static void unnamed_cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                          wasp_view_cell *x)
{
    (void)id;
    (void)t;
    const wasp_field_entry *e = &wasp_profile_fields(p, &(uint32_t){0})[index];
    x[0].str = wasp_heap_area_name((int)e->area);
    x[1].num = e->loads;
    x[2].num = e->stores;
    x[3].ctx = e->ctx;
    x[4].num = e->loads + e->stores;
}

static void head_cells(const wasp_profile *p, int id, const wasp_view_total *t, wasp_view_cell *x)
{
    (void)p;
    (void)id;
    const wasp_field_ranking *r = t->state;
    x[0].num = r->heap;
    x[1].num = r->named;
}

#define COL WASP_VIEW_COL
/* loads, stores, share, areas, and their samples (loads + stores: the value) */
#define GROUP_COLUMNS(areas_title)                                                                 \
    COL("loads", "loads", WASP_VIEW_COUNT, WASP_VIEW_ESTIMATE),                                    \
        COL("stores", "stores", WASP_VIEW_COUNT, WASP_VIEW_ESTIMATE),                              \
        COL("share", "share", WASP_VIEW_SHARE, 0), COL("areas", areas_title, WASP_VIEW_HOOK, 0),   \
        COL("samples", "samples", WASP_VIEW_COUNT, WASP_VIEW_VALUE | WASP_VIEW_ESTIMATE)

static const wasp_view contexts = {
    .columns = {COL("loads", "loads", WASP_VIEW_COUNT, 0),
                COL("stores", "stores", WASP_VIEW_COUNT, 0),
                COL("area", "area", WASP_VIEW_STRING, 0),
                COL("access", "accessed at", WASP_VIEW_CONTEXT, WASP_VIEW_INLINE),
                {"samples", "samples", WASP_VIEW_COUNT, WASP_VIEW_VALUE, NULL, 0, NULL, "sample",
                 NULL, NULL, NULL}},
    .rank_in = contexts_of, .cells = entry_cells,
};

static const wasp_view class_table = {
    .title = "Classes", .rows = "classes", .compact = true,
    .columns = {COL("class", "class", WASP_VIEW_STRING, 0), GROUP_COLUMNS("areas")},
    .rank_in = classes, .cells = class_cells, .json_member = class_areas,
};

static const wasp_view unnamed_table = {
    .title = "Not named", .rows = "unnamed",
    .columns = {COL("area", "area", WASP_VIEW_STRING, 0),
                COL("loads", "loads", WASP_VIEW_COUNT, 0),
                COL("stores", "stores", WASP_VIEW_COUNT, 0),
                COL("at", "sampled at", WASP_VIEW_CONTEXT, WASP_VIEW_INLINE),
                COL("samples", "samples", WASP_VIEW_COUNT, WASP_VIEW_VALUE)},
    .rank_in = unnamed, .cells = unnamed_cells,
};

static const wasp_view view = {
    .title = "Fields", .entry = "Member", .what = "member", .whats = "members", .more = "fields",
    .of = "of heap samples", .unit = "samples", .rows = "fields",
    .columns = {COL("class", "class", WASP_VIEW_STRING, WASP_VIEW_KEY),
                COL("field", "field", WASP_VIEW_STRING, WASP_VIEW_KEY),
                COL("offset", "offset", WASP_VIEW_COUNT, WASP_VIEW_KEY),
                {"member", "member", WASP_VIEW_STRING, WASP_VIEW_LEAF, NULL, 0, NULL, NULL, NULL,
                 "field"},
                GROUP_COLUMNS("areas"),
                {"contexts", "accessed", WASP_VIEW_LIST, WASP_VIEW_ALL, NULL, TEXT_CONTEXTS, NULL,
                 "context", &contexts, NULL, NULL},
                {"hottest", "hottest at", WASP_VIEW_CONTEXT, WASP_VIEW_DIFF | WASP_VIEW_HIDDEN,
                 NULL, 0, "hottest at:", NULL, NULL}},
    .head = {COL("heap_samples", "heap samples", WASP_VIEW_COUNT, 0),
             COL("named", "named", WASP_VIEW_COUNT, 0), COL("areas", "areas", WASP_VIEW_HOOK, 0)},
    .tables = {&class_table, &unnamed_table},
    .rank = rank, .cells = member_cells, .total = total, .release = release,
    .head_cells = head_cells, .text_head = text_head, .text_row = member_text,
    .text_tail = classes_text, .json_member = member_areas, .diff_text = diff_text,
};

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
        snprintf(f.what, sizeof f.what, "accesses %s: %s of the heap samples (%s load%s, %s "
                 "store%s)", label, wasp_fmt_percent(f.share, a, sizeof a),
                 wasp_fmt_count(g->loads, b, sizeof b), g->loads == 1 ? "" : "s",
                 wasp_fmt_count(g->stores, c, sizeof c), g->stores == 1 ? "" : "s");
        rc = sink->emit(sink, p, &f);
    }
    wasp_field_ranking_free(&r);
    return rc;
}

const wasp_report_part wasp_report_fields = {
    WASP_VIEW_REPORT(view),
    .summary = summary,
    .title = "Hot fields: the classes' fields and arrays the program accesses most",
    .hint = "access these less often (keep the value in a local), or place what is accessed "
            "together in one object or array",
    .shown = shown,
    .counter_prefix = "fields.",
    .json_place = WASP_JSON_TOP_LEVEL,
};

/* Its diff part and HTML section are built from the view (cli/render/view.h). */
const wasp_diff_part wasp_diff_fields = {0};
const wasp_html_part wasp_html_fields = {0};
