/*
 * `wasp diff` of a view (view.h, diff_part.h): the diff parts an analysis
 * with a view needs, built from it: one for its view and one for its view's
 * sub (locks' blocked time), each a section of the diff (diff.h) with its
 * own total. Rows are matched by their key columns, valued by the value
 * column, tested for noise on the evidence column; a changed row shows its
 * key columns (text, JSON, and the HTML diff's columns and details).
 */
#include "cli/render/view.h"

#include "catalog/ids.h"
#include "cli/diff/diff_part.h"
#include "cli/render/report_part.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The view section compares: its analysis's, or that view's sub at the
 * section's level; NULL when there is none. */
static const wasp_view *view_at(int section)
{
    const wasp_view *v = wasp_view_of(section % WASP_ANALYSES);
    for (int level = section / WASP_ANALYSES; v && level > 0; level--)
        v = v->sub;
    return v;
}

static int collect(wasp_diff_builder *b, const wasp_profile *p, int section, int side)
{
    const wasp_view *v = view_at(section);
    int id = section % WASP_ANALYSES;
    wasp_view_total t = wasp_view_totals(v, p, id);
    wasp_diff_set_total(b, section, side, t.total, t.fraction);
    if (t.has_samples)
        wasp_diff_set_samples(b, section, side, t.samples, t.observations);
    int value = wasp_view_column_with(v, WASP_VIEW_VALUE), evidence = wasp_view_column_with(v, WASP_VIEW_EVIDENCE);
    if (evidence < 0)
        evidence = value;
    int ncol = wasp_view_ncolumns(v->columns);
    uint32_t n;
    uint32_t *order = v->rank(p, id, &t, &n);
    if (!order) {
        wasp_view_release(v, &t);
        return -1;
    }
    bool insn = wasp_diff_with_insn(b);
    wasp_view_cell x[WASP_VIEW_COLUMNS];
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        v->cells(p, id, order[i], &t, x);
        if (!(x[value].num > 0))
            continue; /* nothing found there */
        wasp_diff_key k;
        wasp_diff_key_begin(&k, section);
        for (int c = 0; c < ncol; c++) {
            if (!(v->columns[c].roles & WASP_VIEW_KEY))
                continue;
            switch (v->columns[c].kind) {
            case WASP_VIEW_FLAG:
                wasp_diff_key_number(&k, x[c].flag);
                break;
            case WASP_VIEW_CONTEXT:
                wasp_diff_key_context(&k, p, x[c].ctx, insn);
                break;
            case WASP_VIEW_STRING:
                wasp_diff_key_string(&k, x[c].str ? x[c].str : "");
                break;
            case WASP_VIEW_SITE:
                wasp_diff_key_site(&k, p, x[c].site);
                break;
            default:
                wasp_diff_key_number(&k, x[c].num);
            }
        }
        /* an evidence column the profile does not have (NAN: an older alloc
         * profile's catches) leaves the value as the evidence */
        double ev = isfinite(x[evidence].num) ? x[evidence].num : x[value].num;
        rc = wasp_diff_add(b, section, side, &k, order[i], i + 1, x[value].num, ev);
    }
    free(order);
    wasp_view_release(v, &t);
    return rc;
}

/* Row index of section's view in p: the view, its analysis (*id), its
 * totals (*t, released by the caller) and the row's cells. */
static const wasp_view *row_cells(const wasp_profile *p, int section, uint32_t index, int *id,
                                  wasp_view_total *t, wasp_view_cell *x)
{
    const wasp_view *v = view_at(section);
    *id = section % WASP_ANALYSES;
    *t = wasp_view_totals(v, p, *id);
    v->cells(p, *id, index, t, x);
    return v;
}

/* The lines under a changed row: its true flags, its strings (or the
 * view's diff_text), its sites, its contexts (keys and those marked DIFF). */
static void text_entry(const wasp_profile *p, int section, uint32_t index, FILE *out)
{
    int id;
    wasp_view_cell x[WASP_VIEW_COLUMNS];
    wasp_view_total t;
    const wasp_view *v = row_cells(p, section, index, &id, &t, x);
    int ncol = wasp_view_ncolumns(v->columns);
    if (v->diff_text)
        v->diff_text(p, id, index, &t, out);
    for (int c = 0; c < ncol; c++) {
        const wasp_view_column *col = &v->columns[c];
        if (!(col->roles & WASP_VIEW_KEY))
            continue;
        if (col->kind == WASP_VIEW_FLAG && x[c].flag && col->text)
            fprintf(out, "      %s\n", col->text);
        else if (col->kind == WASP_VIEW_STRING && !v->diff_text)
            fprintf(out, "      %s %s\n", col->title, x[c].str ? x[c].str : "");
        else if (col->kind == WASP_VIEW_SITE)
            wasp_diff_site_text(p, id, x[c].site, out);
    }
    for (int c = 0; c < ncol; c++)
        if ((v->columns[c].roles & (WASP_VIEW_KEY | WASP_VIEW_DIFF)) &&
            v->columns[c].kind == WASP_VIEW_CONTEXT)
            wasp_text_context(p, v->columns[c].text, x[c].ctx, out);
    wasp_view_release(v, &t);
}

static void json_entry(wasp_json *j, const wasp_profile *p, int section, uint32_t index)
{
    int id;
    wasp_view_cell x[WASP_VIEW_COLUMNS];
    wasp_view_total t;
    const wasp_view *v = row_cells(p, section, index, &id, &t, x);
    for (int c = 0; c < wasp_view_ncolumns(v->columns); c++) {
        if (!(v->columns[c].roles & (WASP_VIEW_KEY | WASP_VIEW_DIFF)))
            continue;
        if (v->columns[c].kind == WASP_VIEW_SITE) /* its class and frames */
            wasp_diff_site_json(j, p, id, x[c].site);
        else
            wasp_view_cell_json(j, p, v, id, &v->columns[c], &x[c], index, &t, 0);
    }
    wasp_view_release(v, &t);
}

/* A label without its colon ("watched:") or brackets ("(approximate)"),
 * kept in buf. */
static const char *bare(const char *s, char *buf, size_t n)
{
    size_t len = strlen(s);
    if (len >= 2 && s[0] == '(' && s[len - 1] == ')')
        snprintf(buf, n, "%.*s", (int)(len - 2), s + 1);
    else if (len >= 1 && s[len - 1] == ':')
        snprintf(buf, n, "%.*s", (int)(len - 1), s);
    else
        snprintf(buf, n, "%s", s);
    return buf;
}

enum { LABEL_MAX = 96 };

/* A context's place, "D.damp(D.java:38)"; "(no frames)". */
static void place_text(const wasp_profile *p, uint32_t ctx, FILE *out)
{
    char buf[WASP_FRAME_LABEL_MAX];
    const wasp_frame *at = ctx < p->ncontexts ? wasp_place_frame(p, &p->contexts[ctx]) : NULL;
    if (at)
        wasp_frame_label(p, at, buf, sizeof buf);
    fputs(at ? buf : "(no frames)", out);
}

/* A row's key columns on one line: strings as "title value", a site as
 * "class C at PLACE", a context as "label PLACE" (its place alone, not its
 * frames), "; " between them. */
static void text_brief(const wasp_profile *p, int section, uint32_t index, FILE *out)
{
    int id;
    wasp_view_cell x[WASP_VIEW_COLUMNS];
    wasp_view_total t;
    const wasp_view *v = row_cells(p, section, index, &id, &t, x);
    const char *sep = "";
    char label[LABEL_MAX];
    for (int c = 0; c < wasp_view_ncolumns(v->columns); c++) {
        const wasp_view_column *col = &v->columns[c];
        if (!(col->roles & WASP_VIEW_KEY) || col->kind == WASP_VIEW_FLAG)
            continue;
        fputs(sep, out);
        sep = "; ";
        if (col->kind == WASP_VIEW_STRING) {
            fprintf(out, "%s %s", col->title, x[c].str ? x[c].str : "");
        } else if (col->kind == WASP_VIEW_SITE) {
            fprintf(out, "class %s at ", wasp_site_class(p, &p->sites[x[c].site]));
            place_text(p, p->sites[x[c].site].ctx, out);
        } else if (col->kind == WASP_VIEW_CONTEXT) {
            fprintf(out, "%s ", col->text ? bare(col->text, label, sizeof label) : col->title);
            place_text(p, x[c].ctx, out);
        } else {
            fprintf(out, "%s %g", col->title, x[c].num);
        }
    }
    wasp_view_release(v, &t);
}

/* Whether p shows the section's view (its analysis being shown). */
static bool shown(const wasp_profile *p, int section)
{
    const wasp_view *v = view_at(section);
    return !v->shown || v->shown(p, section % WASP_ANALYSES);
}

/* The view's diff_summary, given its analysis's id. */
static void summary(const wasp_diff_analysis *a, int section, FILE *out)
{
    view_at(section)->diff_summary(a, section % WASP_ANALYSES, out);
}

static struct built {
    const wasp_view *from; /* the view it was built from */
    wasp_diff_part part;
    char labels[WASP_DIFF_COLUMNS][LABEL_MAX];
} built[WASP_DIFF_SECTIONS];

/* The HTML diff's columns (key strings and contexts) and details (true
 * flags, strings, contexts). */
static void layout(const wasp_view *v, struct built *o)
{
    int nc = 0, nd = 0;
    for (int c = 0; c < wasp_view_ncolumns(v->columns); c++) {
        const wasp_view_column *col = &v->columns[c];
        if (!(col->roles & (WASP_VIEW_KEY | WASP_VIEW_DIFF)))
            continue;
        if (col->kind == WASP_VIEW_SITE) { /* as WASP_DIFF_SITE_LAYOUT */
            static const wasp_diff_column site[] = {{"class", "class", false},
                                                     {"allocated at", "allocation", true}};
            for (int k = 0; k < 2 && nc < WASP_DIFF_COLUMNS && nd < WASP_DIFF_COLUMNS; k++) {
                o->part.columns[nc++] = site[k];
                o->part.details[nd++] = (wasp_diff_detail){site[k].title, site[k].member,
                                                           site[k].context, NULL};
            }
            continue;
        }
        bool ctx = col->kind == WASP_VIEW_CONTEXT;
        if ((ctx || col->kind == WASP_VIEW_STRING) && nc < WASP_DIFF_COLUMNS)
            o->part.columns[nc++] = (wasp_diff_column){col->title, col->member, ctx};
        if (nd >= WASP_DIFF_COLUMNS || !(ctx || col->kind == WASP_VIEW_STRING ||
                                         col->kind == WASP_VIEW_FLAG))
            continue; /* numbers are in the entry's line */
        const char *label = col->text && col->kind != WASP_VIEW_STRING
                                ? bare(col->text, o->labels[nd], LABEL_MAX) : col->title;
        o->part.details[nd++] = (wasp_diff_detail){
            label, col->kind == WASP_VIEW_FLAG ? NULL : col->member, ctx,
            col->kind == WASP_VIEW_FLAG ? col->member : NULL};
    }
}

/* A sub view says no diff words of its own (locks' blocked time): one row
 * is named by what a row is ("class"), the unit by the value column's
 * member ("seconds"). A view without key columns has nothing its rows could
 * be matched by: no part. */
const wasp_diff_part *wasp_view_diff_part(int section)
{
    const wasp_view *v = section >= 0 && section < WASP_DIFF_SECTIONS ? view_at(section) : NULL;
    if (!v || wasp_view_column_with(v, WASP_VIEW_KEY) < 0)
        return NULL;
    struct built *o = &built[section];
    if (o->from != v) {
        int value = wasp_view_column_with(v, WASP_VIEW_VALUE);
        const char *unit = v->unit ? v->unit : value >= 0 ? v->columns[value].member : "";
        o->part = (wasp_diff_part){
            .title = v->title, .entry = v->entry ? v->entry : v->what, .what = v->what,
            .whats = v->whats, .of = v->of, .unit = unit,
            .member = section >= WASP_ANALYSES ? (v->member ? v->member : "sub") : NULL,
            .value_bytes = value >= 0 && v->columns[value].kind == WASP_VIEW_BYTES,
            .has_fraction = v->has_fraction, .collect = collect, .shown = shown,
            .summary = v->diff_summary ? summary : NULL, .text_entry = text_entry,
            .text_brief = text_brief,
            .json_entry = json_entry};
        layout(v, o);
        o->from = v;
    }
    return &o->part;
}
