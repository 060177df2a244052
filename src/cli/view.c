/*
 * The generic renderers of a view (view.h): its text section, its JSON
 * member and its flame-graph stacks, from the one ranking and the columns.
 */
#include "cli/view.h"

#include "analysis/ids.h"
#include "analysis/names.h"
#include "cli/report_part.h"
#include "cli/units.h"

#include <inttypes.h>
#include <stdlib.h>

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
    case WASP_VIEW_STRING:
        if (c->text || c->width)
            fprintf(out, "%s%*s", c->sep ? c->sep : "", c->width, x->str ? x->str : "");
        return;
    case WASP_VIEW_CONTEXT:
        return;
    default:
        if (!c->text && !c->unit && !c->width)
            return;
        fprintf(out, "%s%s%*s", c->sep ? c->sep : "", c->text ? c->text : "", c->width,
                fmt_number(c->kind, x->num, b, sizeof b));
        if (c->unit)
            fprintf(out, " %s%s", c->unit, x->num == 1 ? "" : "s");
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

int wasp_view_text(const wasp_profile *p, int id, int top, FILE *out)
{
    const wasp_view *v = wasp_view_of(id);
    if (v->text_head)
        v->text_head(p, id, out);
    uint32_t n;
    uint32_t *order = v->rank(p, id, &n);
    if (!order)
        return -1;
    if (n == 0 && v->text_empty)
        v->text_empty(p, id, out);
    uint32_t shown = wasp_report_shown(top, n);
    int width = snprintf(NULL, 0, "%" PRIu32, shown);
    wasp_view_cell x[WASP_VIEW_COLUMNS];
    for (uint32_t i = 0; i < shown; i++) {
        v->cells(p, id, order[i], x);
        row_text(p, v, x, i + 1, width, out);
    }
    if (n > shown)
        fprintf(out, "\n  ... %" PRIu32 " more %s (--top N shows more)\n", n - shown,
                n - shown == 1 ? v->what : v->whats);
    free(order);
    return 0;
}

/* ---- JSON ---- */

void wasp_view_cells_json(wasp_json *j, const wasp_profile *p, const wasp_view_column *c,
                          const wasp_view_cell *x, unsigned roles)
{
    for (int i = 0; i < wasp_view_ncolumns(c); i++) {
        if (roles && !(c[i].roles & roles))
            continue;
        switch (c[i].kind) {
        case WASP_VIEW_FLAG:
            wasp_json_bool(j, c[i].member, x[i].flag);
            break;
        case WASP_VIEW_CONTEXT:
            wasp_json_context(j, p, c[i].member, x[i].ctx);
            break;
        case WASP_VIEW_STRING:
            wasp_json_string(j, c[i].member, x[i].str);
            break;
        default:
            wasp_json_double(j, c[i].member, x[i].num);
        }
    }
}

int wasp_view_json(wasp_json *j, const wasp_profile *p, int id, int top)
{
    const wasp_view *v = wasp_view_of(id);
    uint32_t n;
    uint32_t *order = v->rank(p, id, &n);
    if (!order)
        return -1;
    wasp_view_cell x[WASP_VIEW_COLUMNS];
    wasp_json_begin_object(j, wasp_analysis_id_name(id), false);
    if (v->head_cells) {
        v->head_cells(p, id, x);
        wasp_view_cells_json(j, p, v->head, x, 0);
    }
    wasp_json_begin_array(j, v->rows, false);
    uint32_t shown = wasp_report_shown(top, n);
    for (uint32_t i = 0; i < shown; i++) {
        v->cells(p, id, order[i], x);
        wasp_json_begin_object(j, NULL, false);
        wasp_view_cells_json(j, p, v->columns, x, 0);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    wasp_json_end_object(j);
    free(order);
    return 0;
}

/* ---- stacks ---- */

/* Each row's contexts, weighted by its value (by bytes when the value is
 * bytes) and its evidence, in the rows' order. */
int wasp_view_stacks(const wasp_profile *p, int id, wasp_stack_sink *sink)
{
    const wasp_view *v = wasp_view_of(id);
    int value = wasp_view_column_with(v, WASP_VIEW_VALUE), evidence = wasp_view_column_with(v, WASP_VIEW_EVIDENCE);
    int ncol = wasp_view_ncolumns(v->columns);
    bool by_bytes = value >= 0 && v->columns[value].kind == WASP_VIEW_BYTES;
    uint32_t n;
    uint32_t *order = v->rank(p, id, &n);
    if (!order)
        return -1;
    int rc = 0;
    wasp_view_cell x[WASP_VIEW_COLUMNS];
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        v->cells(p, id, order[i], x);
        for (int c = 0; c < ncol && rc == 0; c++) {
            if (v->columns[c].kind != WASP_VIEW_CONTEXT)
                continue;
            wasp_stack s = {wasp_analysis_id_name(id), v->columns[c].member, x[c].ctx, NULL,
                            by_bytes ? x[value].num : 0,
                            evidence >= 0 ? x[evidence].num : value >= 0 ? x[value].num : 0,
                            by_bytes};
            rc = sink->emit(sink, p, &s);
        }
    }
    free(order);
    return rc;
}

/* ---- the description (for the HTML section) ---- */

static const char *const kinds[] = {"share", "bytes", "count", "flag", "context", "string"};

static void describe_columns(wasp_json *j, const char *key, const wasp_view_column *c)
{
    wasp_json_begin_array(j, key, false);
    for (int i = 0; i < wasp_view_ncolumns(c); i++) {
        wasp_json_begin_object(j, NULL, true);
        wasp_json_string(j, "member", c[i].member);
        wasp_json_string(j, "title", c[i].title);
        wasp_json_string(j, "kind", kinds[c[i].kind]);
        wasp_json_bool(j, "key", (c[i].roles & WASP_VIEW_KEY) != 0);
        wasp_json_bool(j, "value", (c[i].roles & WASP_VIEW_VALUE) != 0);
        wasp_json_bool(j, "evidence", (c[i].roles & WASP_VIEW_EVIDENCE) != 0);
        wasp_json_bool(j, "estimate", (c[i].roles & WASP_VIEW_ESTIMATE) != 0);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
}

void wasp_view_describe(wasp_json *j, const char *key, const wasp_view *v)
{
    wasp_json_begin_object(j, key, false);
    wasp_json_string(j, "rows", v->rows);
    wasp_json_string(j, "what", v->what);
    wasp_json_string(j, "of", v->of);
    describe_columns(j, "columns", v->columns);
    describe_columns(j, "head", v->head);
    wasp_json_end_object(j);
}
