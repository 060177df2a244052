/*
 * The generic renderers of a view (view.h): its text section, its JSON
 * member and its flame-graph stacks, from the one ranking and the columns.
 */
#include "cli/render/view.h"

#include "catalog/ids.h"
#include "catalog/names.h"
#include "cli/render/report_part.h"
#include "cli/render/units.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const wasp_view *overrides[WASP_ANALYSES];

const wasp_view *wasp_view_of(int id)
{
    if (id >= 0 && id < WASP_ANALYSES && overrides[id])
        return overrides[id];
    const wasp_report_part *part = wasp_report_part_of(id);
    return part ? part->view : NULL;
}

void wasp_view_override(int id, const wasp_view *v)
{
    if (id >= 0 && id < WASP_ANALYSES)
        overrides[id] = v;
}

wasp_view_total wasp_view_totals(const wasp_view *v, const wasp_profile *p, int id)
{
    return v->total ? v->total(p, id) : (wasp_view_total){0, 0, false, 0, 0, NULL};
}

void wasp_view_release(const wasp_view *v, wasp_view_total *t)
{
    if (v->release && t->state)
        v->release(t->state);
    t->state = NULL;
}

/* The totals of a rendering (*t, released by the caller) and the rows ranked
 * (caller frees); NULL, with *t released, when out of memory. */
static uint32_t *begin(const wasp_view *v, const wasp_profile *p, int id, wasp_view_total *t,
                       uint32_t *n)
{
    *t = wasp_view_totals(v, p, id);
    uint32_t *order = v->rank(p, id, t, n);
    if (!order)
        wasp_view_release(v, t);
    return order;
}

uint32_t *wasp_view_in_order(uint32_t n, uint32_t *out_n)
{
    uint32_t *o = malloc((n ? n : 1) * sizeof *o);
    for (uint32_t i = 0; o && i < n; i++)
        o[i] = i;
    *out_n = n;
    return o;
}

uint32_t *wasp_view_range(uint32_t first, uint32_t n, uint32_t *out_n)
{
    uint32_t *o = wasp_view_in_order(n, out_n);
    for (uint32_t i = 0; o && i < n; i++)
        o[i] += first;
    return o;
}

uint32_t *wasp_view_copy(const uint32_t *order, uint32_t n, uint32_t *out_n)
{
    uint32_t *o = malloc((n ? n : 1) * sizeof *o);
    if (o && n)
        memcpy(o, order, n * sizeof *o);
    *out_n = n;
    return o;
}

int wasp_view_ncolumns(const wasp_view_column *c)
{
    int n = 0;
    while (n < WASP_VIEW_COLUMNS && c[n].member)
        n++;
    return n;
}

int wasp_view_column_with(const wasp_view *v, unsigned role)
{
    for (int i = 0; i < wasp_view_ncolumns(v->columns); i++)
        if (v->columns[i].roles & role)
            return i;
    return -1;
}

/* ---- text ---- */

static const char *fmt_number(wasp_view_kind kind, double v, char *buf, size_t n)
{
    switch (kind) {
    case WASP_VIEW_SHARE:
        return wasp_fmt_percent(v, buf, n);
    case WASP_VIEW_BYTES:
        return wasp_fmt_bytes(v, buf, n);
    case WASP_VIEW_SECONDS:
        return wasp_fmt_duration_ns(v > 0 ? (uint64_t)(v * 1e9 + 0.5) : 0, buf, n);
    default:
        return wasp_fmt_count(v, buf, n);
    }
}

/* A measure's or flag's part of the row's line. */
static void cell_text(const wasp_view_column *c, const wasp_view_cell *x, FILE *out)
{
    char b[WASP_UNIT_BUF];
    switch (c->kind) {
    case WASP_VIEW_FLAG:
        if (x->flag && c->text)
            fprintf(out, "%s%s", c->sep ? c->sep : "", c->text);
        return;
    case WASP_VIEW_STRING: /* a LEAF's text is its frame's prefix, not for the line */
        if ((c->text && !(c->roles & WASP_VIEW_LEAF)) || c->width)
            fprintf(out, "%s%*s", c->sep ? c->sep : "", c->width, x->str ? x->str : "");
        return;
    case WASP_VIEW_SHARE:
    case WASP_VIEW_BYTES:
    case WASP_VIEW_COUNT:
    case WASP_VIEW_SECONDS:
        if ((!c->text && !c->unit && !c->width) ||
            ((c->roles & WASP_VIEW_OPTIONAL) && isnan(x->num)))
            return;
        fprintf(out, "%s%s%*s", c->sep ? c->sep : "", c->text ? c->text : "", c->width,
                isnan(x->num) ? "n/a" : fmt_number(c->kind, x->num, b, sizeof b));
        if (c->unit)
            fprintf(out, " %s%s", x->num == 1 || !c->units ? c->unit : c->units,
                    x->num == 1 || c->units ? "" : "s");
        return;
    default: /* contexts print under the line; the rest only in tables */
        return;
    }
}

/* A row's lines: "\n  #RANK" and its measures, then its contexts. */
static void row_text(const wasp_profile *p, const wasp_view *v, const wasp_view_cell *x,
                     uint32_t rank, int rank_width, FILE *out)
{
    int n = wasp_view_ncolumns(v->columns);
    fprintf(out, "\n  #%-*" PRIu32, rank_width, rank);
    for (int i = 0; i < n; i++)
        cell_text(&v->columns[i], &x[i], out);
    fputc('\n', out);
    for (int i = 0; i < n; i++)
        if (v->columns[i].kind == WASP_VIEW_CONTEXT && v->columns[i].text)
            wasp_text_context(p, v->columns[i].text, x[i].ctx, out);
}

/* List column c of row `parent` (c->width > 0): its heading, its first
 * c->width rows (of a weighed_only list, those of positive value), each its
 * measures on a line with its context's instruction and the context's
 * frames under it, then "... N more". Under a heading they are indented
 * below it. 0, or -1 when out of memory. */
static int list_text(const wasp_profile *p, const wasp_view_column *c, int id, uint32_t parent,
                     const wasp_view_total *t, FILE *out)
{
    const wasp_view *v = c->list;
    uint32_t n, k = 0;
    uint32_t *order = v->rank_in(p, id, parent, t, &n);
    if (!order)
        return -1;
    int value = wasp_view_column_with(v, WASP_VIEW_VALUE), ncol = wasp_view_ncolumns(v->columns);
    int ctx = -1, indent = c->text ? 8 : 6;
    wasp_view_cell x[WASP_VIEW_COLUMNS];
    for (uint32_t i = 0; i < n; i++) {
        if (v->weighed_only && value >= 0)
            v->cells(p, id, order[i], t, x);
        if (!v->weighed_only || value < 0 || x[value].num > 0)
            order[k++] = order[i];
    }
    for (int i = 0; i < ncol && ctx < 0; i++)
        if (v->columns[i].kind == WASP_VIEW_CONTEXT)
            ctx = i;
    const char *none = k ? NULL : v->none;
    if (c->text)
        fprintf(out, "      %s%s%s\n", c->text, none ? " " : "", none ? none : "");
    uint32_t shown = k < (uint32_t)c->width ? k : (uint32_t)c->width;
    for (uint32_t i = 0; i < shown && ctx >= 0; i++) {
        char label[256] = "";
        FILE *m = fmemopen(label, sizeof label - 1, "w");
        if (!m)
            break;
        v->cells(p, id, order[i], t, x);
        for (int col = 0; col < ncol; col++)
            cell_text(&v->columns[col], &x[col], m);
        fclose(m);
        /* under a heading: the label, the instruction after it, frames below
         * it; else as every context of a row is labelled */
        if (!c->text) {
            wasp_text_context(p, label, x[ctx].ctx, out);
            continue;
        }
        const wasp_context *cx = &p->contexts[x[ctx].ctx];
        const char *insn = wasp_context_insn(p, cx);
        fprintf(out, "%*s%s%s%s\n", indent, "", label, insn ? "   " : "", insn ? insn : "");
        wasp_text_frames(p, cx, indent + 2, out);
    }
    if (k > shown)
        fprintf(out, "%*s... %" PRIu32 " more %s%s\n", indent, "", k - shown, c->unit,
                k - shown == 1 ? "" : "s");
    free(order);
    return 0;
}

/* Row index's nested lists shown in the text, under its lines. */
static int lists_text(const wasp_profile *p, const wasp_view *v, int id, uint32_t index,
                      const wasp_view_total *t, FILE *out)
{
    int rc = 0;
    for (int i = 0; i < wasp_view_ncolumns(v->columns) && rc == 0; i++)
        if (v->columns[i].kind == WASP_VIEW_LIST && v->columns[i].width > 0)
            rc = list_text(p, &v->columns[i], id, index, t, out);
    return rc;
}

/* View v's section: its heading, rows, "... more", tail; then its sub's. */
static int view_text(const wasp_profile *p, const wasp_view *v, int id, int top, FILE *out)
{
    if (v->shown && !v->shown(p, id))
        return 0;
    if (v->text_head)
        v->text_head(p, id, top, out);
    uint32_t n;
    wasp_view_total t;
    uint32_t *order = begin(v, p, id, &t, &n);
    if (!order)
        return -1;
    if (n == 0 && v->text_empty)
        v->text_empty(p, id, out);
    uint32_t shown = wasp_report_shown(top, n);
    int width = snprintf(NULL, 0, "%" PRIu32, shown);
    wasp_view_cell x[WASP_VIEW_COLUMNS];
    int rc = 0;
    for (uint32_t i = 0; i < shown && rc == 0; i++) {
        if (v->text_row) {
            rc = v->text_row(p, id, order[i], i + 1, width, &t, out);
        } else {
            v->cells(p, id, order[i], &t, x);
            row_text(p, v, x, i + 1, width, out);
        }
        if (rc == 0)
            rc = lists_text(p, v, id, order[i], &t, out);
    }
    if (rc == 0 && n > shown)
        fprintf(out, "\n  ... %" PRIu32 " more %s (--top N shows more)\n", n - shown,
                v->more ? v->more : n - shown == 1 ? v->what : v->whats);
    if (rc == 0 && v->text_tail)
        v->text_tail(p, id, &t, out);
    free(order);
    wasp_view_release(v, &t);
    return rc == 0 && v->sub ? view_text(p, v->sub, id, top, out) : rc;
}

int wasp_view_text(const wasp_profile *p, int id, int top, FILE *out)
{
    return view_text(p, wasp_view_of(id), id, top, out);
}

/* ---- JSON ---- */

static int ranked_json(wasp_json *j, const wasp_profile *p, const wasp_view *v, int id,
                       const char *key, uint32_t *order, uint32_t n, const wasp_view_total *t,
                       int top);

int wasp_view_cell_json(wasp_json *j, const wasp_profile *p, const wasp_view *v, int id,
                        const wasp_view_column *c, const wasp_view_cell *x, uint32_t index,
                        const wasp_view_total *t, int top)
{
    switch (c->kind) {
    case WASP_VIEW_FLAG:
        wasp_json_bool(j, c->member, x->flag);
        break;
    case WASP_VIEW_CONTEXT:
        if (c->roles & WASP_VIEW_INLINE)
            wasp_json_context_fields(j, p, x->ctx);
        else
            wasp_json_context(j, p, c->member, x->ctx);
        break;
    case WASP_VIEW_STRING:
        wasp_json_string(j, c->member, x->str);
        break;
    case WASP_VIEW_SITE:
        wasp_json_site_fields(j, p, &p->sites[x->site]);
        break;
    case WASP_VIEW_ALLOCATION:
        wasp_json_site_allocation(j, p, &p->sites[x->site]);
        break;
    case WASP_VIEW_LIST: {
        uint32_t n;
        uint32_t *order = c->list->rank_in(p, id, index, t, &n);
        if (!order)
            return -1;
        return ranked_json(j, p, c->list, id, c->member, order, n, t,
                           c->roles & WASP_VIEW_ALL ? 0 : top);
    }
    case WASP_VIEW_HOOK:
        return v->json_member(j, p, id, index, t, c->member, top);
    default:
        if ((c->roles & WASP_VIEW_WHOLE) && x->num >= 0 && x->num < 1e18 && x->num == floor(x->num))
            wasp_json_u64(j, c->member, (uint64_t)x->num);
        else
            wasp_json_double(j, c->member, x->num); /* NAN: null */
    }
    return 0;
}

int wasp_view_row_json(wasp_json *j, const wasp_profile *p, const wasp_view *v, int id,
                       uint32_t index, const wasp_view_total *t, unsigned roles, int top)
{
    wasp_view_cell x[WASP_VIEW_COLUMNS];
    v->cells(p, id, index, t, x);
    int rc = 0;
    for (int i = 0; i < wasp_view_ncolumns(v->columns) && rc == 0; i++)
        if (roles ? (v->columns[i].roles & roles) != 0
                  : !(v->columns[i].roles & WASP_VIEW_HIDDEN))
            rc = wasp_view_cell_json(j, p, v, id, &v->columns[i], &x[i], index, t, top);
    return rc;
}

/* The array `key` of the first --top rows of order[0..n); frees order. */
static int ranked_json(wasp_json *j, const wasp_profile *p, const wasp_view *v, int id,
                       const char *key, uint32_t *order, uint32_t n, const wasp_view_total *t,
                       int top)
{
    wasp_json_begin_array(j, key, false);
    uint32_t shown = wasp_report_shown(top, n);
    int rc = 0;
    for (uint32_t i = 0; i < shown && rc == 0; i++) {
        wasp_json_begin_object(j, NULL, v->compact);
        rc = wasp_view_row_json(j, p, v, id, order[i], t, 0, top);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    free(order);
    return rc;
}

/* View v as the object `key`: the head, the rows and further tables, its sub. */
static int view_json(wasp_json *j, const wasp_profile *p, const wasp_view *v, int id,
                     const char *key, int top)
{
    if (v->shown && !v->shown(p, id))
        return 0;
    uint32_t n;
    wasp_view_total t;
    uint32_t *order = begin(v, p, id, &t, &n);
    if (!order)
        return -1;
    wasp_json_begin_object(j, key, false);
    int rc = 0;
    if (v->head_cells) {
        wasp_view_cell x[WASP_VIEW_COLUMNS];
        v->head_cells(p, id, &t, x);
        for (int i = 0; i < wasp_view_ncolumns(v->head) && rc == 0; i++)
            rc = wasp_view_cell_json(j, p, v, id, &v->head[i], &x[i], UINT32_MAX, &t, top);
    }
    /* The rows, and the further tables before or after them. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == (v->tables_first ? 1 : 0)) {
            if (rc == 0)
                rc = ranked_json(j, p, v, id, v->rows, order, n, &t, top);
            else
                free(order);
            continue;
        }
        for (int k = 0; k < 2 && v->tables[k] && rc == 0; k++) {
            const wasp_view *w = v->tables[k];
            uint32_t m;
            uint32_t *rows = w->rank_in(p, id, 0, &t, &m);
            rc = rows ? ranked_json(j, p, w, id, w->rows, rows, m, &t, w->whole ? 0 : top) : -1;
        }
    }
    wasp_view_release(v, &t);
    if (rc == 0 && v->sub)
        rc = view_json(j, p, v->sub, id, v->sub->member, top);
    wasp_json_end_object(j);
    return rc;
}

int wasp_view_json(wasp_json *j, const wasp_profile *p, int id, int top)
{
    return view_json(j, p, wasp_view_of(id), id, wasp_analysis_id_name(id), top);
}

/* ---- stacks ---- */

/* Row index's contexts of view v to sink: its context columns and its
 * site's allocation path (the site's class the leaf frame, leaf: the
 * parent's), each weighted by the row's value (by bytes when the value is
 * bytes) and its weight (else evidence, else value); then its nested lists'
 * rows, likewise. A context's side: its frame, else its member. */
static int row_stacks(const wasp_profile *p, int id, const wasp_view *v, uint32_t index,
                      const wasp_view_total *t, const char *leaf, wasp_stack_sink *sink)
{
    int value = wasp_view_column_with(v, WASP_VIEW_VALUE);
    int weight = wasp_view_column_with(v, WASP_VIEW_WEIGHT);
    if (weight < 0)
        weight = wasp_view_column_with(v, WASP_VIEW_EVIDENCE);
    int ncol = wasp_view_ncolumns(v->columns);
    bool by_bytes = value >= 0 && v->columns[value].kind == WASP_VIEW_BYTES;
    wasp_view_cell x[WASP_VIEW_COLUMNS];
    v->cells(p, id, index, t, x);
    for (int c = 0; c < ncol; c++)
        if (v->columns[c].kind == WASP_VIEW_SITE)
            leaf = wasp_site_class(p, &p->sites[x[c].site]);
        else if (v->columns[c].roles & WASP_VIEW_LEAF)
            leaf = x[c].str;
    int rc = 0;
    for (int c = 0; c < ncol && rc == 0; c++) {
        const wasp_view_column *col = &v->columns[c];
        if (col->kind == WASP_VIEW_LIST) {
            uint32_t n;
            uint32_t *order = col->list->rank_in(p, id, index, t, &n);
            if (!order)
                return -1;
            for (uint32_t k = 0; k < n && rc == 0; k++)
                rc = row_stacks(p, id, col->list, order[k], t, leaf, sink);
            free(order);
            continue;
        }
        if ((col->kind != WASP_VIEW_CONTEXT && col->kind != WASP_VIEW_ALLOCATION) ||
            (col->roles & WASP_VIEW_HIDDEN))
            continue;
        wasp_stack s = {wasp_analysis_id_name(id), col->frame ? col->frame : col->member,
                        col->kind == WASP_VIEW_CONTEXT ? x[c].ctx : p->sites[x[c].site].ctx, leaf,
                        by_bytes ? x[value].num : 0,
                        weight >= 0 ? x[weight].num : value >= 0 ? x[value].num : 0,
                        by_bytes};
        if (!v->weighed_only || s.samples > 0 || s.bytes > 0)
            rc = sink->emit(sink, p, &s);
    }
    return rc;
}

int wasp_view_stacks(const wasp_profile *p, int id, wasp_stack_sink *sink)
{
    const wasp_view *v = wasp_view_of(id);
    uint32_t n;
    wasp_view_total t;
    uint32_t *order = begin(v, p, id, &t, &n);
    if (!order)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++)
        rc = row_stacks(p, id, v, order[i], &t, NULL, sink);
    free(order);
    wasp_view_release(v, &t);
    return rc;
}

/* ---- the description (for the HTML section) ---- */

static const char *const kinds[] = {"share",      "bytes", "count", "flag", "context", "string",
                                    "site", "allocation", "list", "hook", "seconds"};

static void describe_columns(wasp_json *j, const char *key, const wasp_view_column *c)
{
    wasp_json_begin_array(j, key, false);
    for (int i = 0; i < wasp_view_ncolumns(c); i++) {
        if (c[i].roles & WASP_VIEW_HIDDEN)
            continue;
        wasp_json_begin_object(j, NULL, true);
        wasp_json_string(j, "member", c[i].member);
        wasp_json_string(j, "title", c[i].title);
        wasp_json_string(j, "kind", kinds[c[i].kind]);
        wasp_json_bool(j, "key", (c[i].roles & WASP_VIEW_KEY) != 0);
        wasp_json_bool(j, "value", (c[i].roles & WASP_VIEW_VALUE) != 0);
        wasp_json_bool(j, "evidence", (c[i].roles & WASP_VIEW_EVIDENCE) != 0);
        wasp_json_bool(j, "estimate", (c[i].roles & WASP_VIEW_ESTIMATE) != 0);
        wasp_json_bool(j, "inline", (c[i].roles & WASP_VIEW_INLINE) != 0);
        if (c[i].roles & WASP_VIEW_LEAF) {
            wasp_json_string(j, "frame", c[i].frame);
            wasp_json_string(j, "prefix", c[i].text ? c[i].text : "");
        }
        if (c[i].list)
            describe_columns(j, "list", c[i].list->columns);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
}

void wasp_view_describe(wasp_json *j, const char *key, const wasp_view *v)
{
    wasp_json_begin_object(j, key, false);
    wasp_json_string(j, "rows", v->rows);
    wasp_json_string(j, "what", v->what);
    wasp_json_string(j, "whats", v->whats);
    wasp_json_string(j, "of", v->of);
    describe_columns(j, "columns", v->columns);
    describe_columns(j, "head", v->head);
    wasp_json_begin_array(j, "tables", false);
    for (int k = 0; k < 2 && v->tables[k]; k++) {
        wasp_json_begin_object(j, NULL, false);
        wasp_json_string(j, "rows", v->tables[k]->rows);
        wasp_json_string(j, "title", v->tables[k]->title);
        describe_columns(j, "columns", v->tables[k]->columns);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    if (v->member) { /* a sub: its heading and object */
        wasp_json_string(j, "title", v->title);
        wasp_json_string(j, "member", v->member);
    }
    if (v->sub)
        wasp_view_describe(j, "sub", v->sub);
    wasp_json_end_object(j);
}
