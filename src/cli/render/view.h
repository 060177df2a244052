/*
 * An analysis's results described once (issue 39): a view. Its rows come
 * out ranked by one function; its columns say what each row holds — keys
 * (what the row is: contexts, a flag, a name) and measures (bytes, counts,
 * shares, each marked when it is an estimate) — and how a text line shows
 * them. The generic renderers (view.c: text, JSON, flame-graph stacks;
 * view_diff.c: `wasp diff`; view_html.c + html/view.js: the HTML section)
 * draw every view; an analysis gives its view in its report part
 * (report_part.h, `.view`, WASP_VIEW_REPORT) and writes no renderer code,
 * only hooks where a table cannot say it (its headline, why it is empty).
 *
 * The model is Linux perf's sort_entry columns, which drive its stdio, TUI
 * and GTK output from one description.
 */
#ifndef WASP_CLI_VIEW_H
#define WASP_CLI_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands/diff.h"
#include "cli/render/json_writer.h"
#include "profile/profile.h"

/* What a cell holds, and so how every format writes it. */
typedef enum wasp_view_kind {
    WASP_VIEW_SHARE,   /* a fraction 0..1 of the view's total: "41.0%" */
    WASP_VIEW_BYTES,   /* "4.0 KiB" */
    WASP_VIEW_COUNT,   /* "1,579" */
    WASP_VIEW_FLAG,    /* true or false: text prints the column's text when true */
    WASP_VIEW_CONTEXT, /* a calling context: JSON {frames, instruction} */
    WASP_VIEW_STRING,
    WASP_VIEW_SITE,       /* an allocation site (cell.site): JSON its class, by,
                           * allocations and bytes; a key is its class and frames */
    WASP_VIEW_ALLOCATION, /* a site's allocation frames (cell.site): JSON {frames} */
    WASP_VIEW_LIST,       /* a nested list (the column's `list` view, its rows
                           * those of the row: rank_in): JSON an array */
    WASP_VIEW_HOOK,       /* a member the view's json_member hook writes */
    WASP_VIEW_SECONDS,    /* a duration in seconds: "320 ms", "1.6 s" */
} wasp_view_kind;

/* A column's roles (bits). */
enum {
    WASP_VIEW_KEY = 1,      /* part of what the row is: diff matches rows by the keys */
    WASP_VIEW_VALUE = 2,    /* the measure rows are ranked by and diff compares (one) */
    WASP_VIEW_EVIDENCE = 4, /* the samples the value rests on (diff's noise test; one) */
    WASP_VIEW_ESTIMATE = 8, /* a statistical estimate, not a count of events */
    WASP_VIEW_INLINE = 16,  /* a context whose frames and instruction are members of
                             * the row itself, not of a member of its own */
    WASP_VIEW_WHOLE = 32,   /* JSON writes a whole number without ".0" (a counter) */
    WASP_VIEW_ALL = 64,     /* a nested list shown whole in JSON, whatever --top */
    WASP_VIEW_HIDDEN = 128, /* not shown in the report (a diff value, a weight) */
    WASP_VIEW_DIFF = 256,   /* not a key, but a changed row in the diff shows it */
    WASP_VIEW_LEAF = 512,   /* a string naming the row: the leaf frame (of kind
                             * `frame`, named `text` then the string: "lock C")
                             * of its paths in flame graphs and stacks */
    WASP_VIEW_WEIGHT = 1024, /* stacks weigh the row's contexts by this, not the value
                              * (replicas' comparison contexts: equal comparisons) */
    WASP_VIEW_OPTIONAL = 2048, /* the text leaves the measure out when it is NAN
                                * (objects' remote share on one NUMA node) */
};

typedef struct wasp_view_column {
    const char *member; /* its JSON member; the flame graphs' side for a context */
    const char *title;  /* its heading in tables (HTML, the diff's columns) */
    wasp_view_kind kind;
    unsigned roles;
    /* Text. A measure or flag goes on the row's line: sep, then the value
     * right-aligned in width (left-aligned when negative), then " unit"
     * (plural: `units`, else unit + "s", unless the value is 1); a true flag
     * prints `text` instead. A context prints on lines of its own: "      TEXT
     * INSN" and its frames. NULL text and unit with width 0: not in the text.
     * A nested list (LIST) prints under its row, for every view (view.c,
     * list_text): the heading line `text` (NULL: none), its first `width`
     * rows (0: none in the text), each its measures on a line, then its
     * context's instruction, its frames under it; then "... N more UNITs". */
    const char *sep;
    int width;
    const char *text, *unit;
    const struct wasp_view *list; /* LIST: the nested rows' view */
    const char *frame;            /* LEAF: the kind of its frame ("field"); a context:
                                   * its side in stacks (NULL: the member) */
    const char *units;            /* the plural of unit (NULL: unit + "s") */
} wasp_view_column;

/* A column with no text layout of its own (JSON, HTML, diff; the text's
 * hooks write it). Designated, so a field added later starts zeroed without
 * a warning from any compiler. */
#define WASP_VIEW_COL(m, t, k, r) {.member = (m), .title = (t), .kind = (k), .roles = (r)}

enum { WASP_VIEW_COLUMNS = 20 };

/* One cell's value. */
typedef union wasp_view_cell {
    double num;      /* SHARE, BYTES, COUNT; NAN: none (JSON null, text "n/a") */
    bool flag;       /* FLAG */
    uint32_t ctx;    /* CONTEXT */
    uint32_t site;   /* SITE, ALLOCATION */
    const char *str; /* STRING */
} wasp_view_cell;

/* The view's totals: what its shares are of, and the samples behind it. */
typedef struct wasp_view_total {
    double total;        /* the denominator of the rows' shares */
    double fraction;     /* the program-level measure (has_fraction) */
    bool has_samples;    /* samples and observations are given (else the total
                          * is samples, one observation each) */
    double samples;      /* the samples it rests on */
    double observations; /* the independent observations they are (0: as many) */
    void *state;         /* what the view computed once for a rendering (a ranking
                          * the rows index), freed by its release; NULL: none */
} wasp_view_total;

typedef struct wasp_view {
    /* Words: the diff's heading ("Dead stores"), one changed row ("Dead
     * store pair"), a row and rows ("pair", "pairs"), what shares are of
     * ("of stored bytes"), the unit of the value and the total. */
    const char *title, *entry, *what, *whats, *of, *unit;
    const char *rows; /* the JSON member of the ranked rows ("pairs") */
    const char *more; /* the text's "... N more MORE" (NULL: what, whats) */
    const char *none; /* a nested list: after its heading when it has no rows */
    bool has_fraction;
    wasp_view_column columns[WASP_VIEW_COLUMNS]; /* ends at the first without member */
    wasp_view_column head[WASP_VIEW_COLUMNS];    /* the totals' members (JSON, HTML) */
    /* The rows of analysis id ranked, most first: indices the other hooks
     * take; *n their count. Caller frees; NULL when out of memory. */
    uint32_t *(*rank)(const wasp_profile *p, int id, const wasp_view_total *t, uint32_t *n);
    /* A nested list's or a further table's view: the rows of its parent row
     * `parent` (a further table: of the view's), ranked. */
    uint32_t *(*rank_in)(const wasp_profile *p, int id, uint32_t parent, const wasp_view_total *t,
                         uint32_t *n);
    /* Row index's cells, one per column; t: the view's totals (computed
     * once per rendering; a nested list's are its parent view's). */
    void (*cells)(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                  wasp_view_cell *out);
    /* The totals, and the head's cells (one per head column). */
    wasp_view_total (*total)(const wasp_profile *p, int id);
    void (*release)(void *state); /* frees total's state (NULL: none to free) */
    /* Further tables after the rows (fields' classes): views of their own
     * whose rank_in ranks them; their rows are JSON arrays `rows`, objects on
     * one line when `compact`. */
    const struct wasp_view *tables[2];
    bool tables_first; /* JSON: the further tables before the rows (alloc's classes) */
    /* A further view after the tables, with totals and rows of its own
     * (locks' blocked time): the JSON object `sub->member`, its text after
     * this one's, its HTML after this one's; left out when sub->shown says
     * so (NULL: always). The diff compares it as a section of its own, with
     * its own total (view_diff.c; words it lacks: entry is what, unit the
     * value column's member). */
    const struct wasp_view *sub;
    const char *member;
    bool (*shown)(const wasp_profile *p, int id);
    bool compact;
    bool whole; /* a further table shown whole in JSON, whatever --top (locks' functions) */
    bool weighed_only; /* stacks leave out its rows of no weight (locks' release-only contexts) */
    void (*head_cells)(const wasp_profile *p, int id, const wasp_view_total *t,
                       wasp_view_cell *out);
    /* Hooks, only where a table cannot say it. text_head: the section's
     * heading lines ("\nDead stores: 46.6% of ..."), given --top; text_empty:
     * why there are no rows; text_row: a row's lines where the generic line
     * cannot say them (0, or -1 when out of memory); json_member: a HOOK
     * column's member (index UINT32_MAX: of the head; 0, or -1); diff_summary: the diff's line after the heading. */
    void (*text_head)(const wasp_profile *p, int id, int top, FILE *out);
    /* text_tail: lines after the rows (further tables, in the text's own words). */
    void (*text_tail)(const wasp_profile *p, int id, const wasp_view_total *t, FILE *out);
    int (*text_row)(const wasp_profile *p, int id, uint32_t index, uint32_t rank, int rank_width,
                    const wasp_view_total *t, FILE *out);
    /* diff_text: the first lines under a changed row, where "title value"
     * of its keys would not say it (fields: "class C, field f"). */
    void (*diff_text)(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                      FILE *out);
    int (*json_member)(wasp_json *j, const wasp_profile *p, int id, uint32_t index,
                       const wasp_view_total *t, const char *member, int top);
    void (*text_empty)(const wasp_profile *p, int id, FILE *out);
    void (*diff_summary)(const wasp_diff_analysis *a, int id, FILE *out);
} wasp_view;

/* The view of analysis id (its report part's), NULL when it has none. */
const wasp_view *wasp_view_of(int id);
/* Tests: draw analysis id by v (NULL: by its own view again), so that a
 * toy view goes through every renderer. */
void wasp_view_override(int id, const wasp_view *v);
/* The number of columns (head: of head columns). */
int wasp_view_ncolumns(const wasp_view_column *c);
/* The index of the first column with role (a WASP_VIEW_* bit), -1 for none. */
int wasp_view_column_with(const wasp_view *v, unsigned role);

/* For rank and rank_in of rows a view's state holds ranked already: their
 * indices 0..n-1, or a copy of order[0..n) (*out_n = n; caller frees; NULL
 * when out of memory). */
uint32_t *wasp_view_in_order(uint32_t n, uint32_t *out_n);
uint32_t *wasp_view_copy(const uint32_t *order, uint32_t n, uint32_t *out_n);
/* Likewise first..first+n-1: a parent row's nested rows, held together and ranked. */
uint32_t *wasp_view_range(uint32_t first, uint32_t n, uint32_t *out_n);

/* A view whose state is a ranking of type TYPE (rank: 0, or -1; free_fn
 * frees its members): defines NAME_ranked(p), the ranking malloc'ed for a
 * total hook (NULL when out of memory), and NAME_release, its release hook. */
#define WASP_VIEW_RANKING(name, type, rank_fn, free_fn)                                            \
    static void name##_release(void *state)                                                        \
    {                                                                                              \
        free_fn(state);                                                                            \
        free(state);                                                                               \
    }                                                                                              \
    static type *name##_ranked(const wasp_profile *p)                                              \
    {                                                                                              \
        type *r = malloc(sizeof *r);                                                               \
        if (r && rank_fn(p, r) != 0) {                                                             \
            free(r);                                                                               \
            r = NULL;                                                                              \
        }                                                                                          \
        return r;                                                                                  \
    }

/* The generic renderers (report_part.h signatures). */
int wasp_view_text(const wasp_profile *p, int id, int top, FILE *out);
int wasp_view_json(wasp_json *j, const wasp_profile *p, int id, int top);
struct wasp_stack_sink;
int wasp_view_stacks(const wasp_profile *p, int id, struct wasp_stack_sink *sink);
/* One cell x of row index, column c, as a member of the object being
 * written. 0, or -1. */
int wasp_view_cell_json(wasp_json *j, const wasp_profile *p, const wasp_view *v, int id,
                        const wasp_view_column *c, const wasp_view_cell *x, uint32_t index,
                        const wasp_view_total *t, int top);
/* Row index of view v as members of the object being written: the columns
 * with a role in roles (0: all); nested lists limited by top. 0, or -1. */
int wasp_view_row_json(wasp_json *j, const wasp_profile *p, const wasp_view *v, int id,
                       uint32_t index, const wasp_view_total *t, unsigned roles, int top);
/* The totals of analysis id by view v (all zero without a total hook);
 * wasp_view_release frees their state. */
wasp_view_total wasp_view_totals(const wasp_view *v, const wasp_profile *p, int id);
void wasp_view_release(const wasp_view *v, wasp_view_total *t);
/* Writes the view's description as the JSON object `key` (the HTML
 * section's columns, html/view.js). */
void wasp_view_describe(wasp_json *j, const char *key, const wasp_view *v);
/* The script registering the HTML sections of the analyses in shown (bits
 * by id) that have a view (view_html.c); malloc'ed, NULL when out of memory. */
char *wasp_view_html_script(uint32_t shown);

/* The diff part built from the view of diff section `section` (diff.h: an
 * analysis's view, or its sub; view_diff.c); NULL when there is none. */
struct wasp_diff_part;
const struct wasp_diff_part *wasp_view_diff_part(int section);

/* A report part drawn by view v: `.view = &v` and the generic renderers. */
#define WASP_VIEW_REPORT(v)                                                                        \
    .view = &(v), .text = wasp_view_text, .json = wasp_view_json, .stacks = wasp_view_stacks

#endif
