/* A view (cli/render/view.h) drawn by every format: a toy view, installed in place
 * of an analysis's (wasp_view_override), goes through the command's own
 * renderers — text, JSON, HTML, collapsed, pprof — and `wasp diff` (text,
 * JSON), and each shows its rows, ranked once, with its columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "catalog/ids.h"
#include "cli/commands/diff.h"
#include "cli/render/view.h"
#include "profile/profile.h"
#include "render_string.h"

/* The toy's rows: per profile, a name, a measure, a context and a site
 * each, and each row's parts (a nested list: a context each). */
enum { TOY_ROWS = 3, TOY_PARTS = 2 };
static struct toy {
    const wasp_profile *p;
    const char *name[TOY_ROWS];
    double bytes[TOY_ROWS];
    uint32_t ctx[TOY_ROWS], site[TOY_ROWS], part[TOY_ROWS * TOY_PARTS];
} toys[2];

static const struct toy *toy_of(const wasp_profile *p)
{
    return toys[0].p == p ? &toys[0] : &toys[1];
}

/* Ranked by bytes, most first (the rows are stored in no order). */
static uint32_t *rank(const wasp_profile *p, int id, const wasp_view_total *sum, uint32_t *n)
{
    (void)sum;
    (void)id;
    const struct toy *t = toy_of(p);
    uint32_t *o = malloc(TOY_ROWS * sizeof *o);
    for (uint32_t i = 0; i < TOY_ROWS; i++) {
        uint32_t at = i;
        while (at > 0 && t->bytes[o[at - 1]] < t->bytes[i]) {
            o[at] = o[at - 1];
            at--;
        }
        o[at] = i;
    }
    *n = TOY_ROWS;
    return o;
}

static wasp_view_total total(const wasp_profile *p, int id)
{
    (void)id;
    const struct toy *t = toy_of(p);
    double sum = 0;
    for (int i = 0; i < TOY_ROWS; i++)
        sum += t->bytes[i];
    return (wasp_view_total){sum, 0, false, 0, 0, NULL};
}

static void cells(const wasp_profile *p, int id, uint32_t i, const wasp_view_total *sum,
                  wasp_view_cell *x)
{
    (void)id;
    const struct toy *t = toy_of(p);
    x[0].num = t->bytes[i] / sum->total;
    x[1].num = t->bytes[i];
    x[2].num = t->bytes[i] / 8;
    x[3].flag = i == 0;
    x[4].str = t->name[i];
    x[5].ctx = t->ctx[i];
    x[6].num = i == 0 ? NAN : t->bytes[i] * 2; /* none for the first */
    x[7].site = t->site[i];
}

/* A row's parts: indices row * TOY_PARTS + k, the second first. */
static uint32_t *parts_of(const wasp_profile *p, int id, uint32_t row, const wasp_view_total *t,
                          uint32_t *n)
{
    (void)t;
    (void)p;
    (void)id;
    uint32_t *o = malloc(TOY_PARTS * sizeof *o);
    for (uint32_t k = 0; k < TOY_PARTS; k++)
        o[k] = row * TOY_PARTS + (TOY_PARTS - 1 - k);
    *n = TOY_PARTS;
    return o;
}

static void part_cells(const wasp_profile *p, int id, uint32_t i, const wasp_view_total *sum,
                       wasp_view_cell *x)
{
    (void)id;
    (void)sum;
    x[0].num = 1 + i % TOY_PARTS;
    x[1].ctx = toy_of(p)->part[i];
}

static const wasp_view parts = {
    .columns = {{"weight", "weight", WASP_VIEW_COUNT, WASP_VIEW_VALUE, NULL, 0, NULL, "weight",
                 NULL},
                {"at", "part at", WASP_VIEW_CONTEXT, WASP_VIEW_INLINE, NULL, 0, NULL, NULL, NULL}},
    .rank_in = parts_of, .cells = part_cells,
};

static void head_cells(const wasp_profile *p, int id, const wasp_view_total *sum,
                       wasp_view_cell *x)
{
    (void)p;
    (void)id;
    x[0].num = sum->total;
}

static const wasp_view toy = {
    .title = "Toys", .entry = "Toy row", .what = "toy", .whats = "toys", .of = "of toy bytes",
    .unit = "bytes", .rows = "toys",
    .columns = {{"share", "share", WASP_VIEW_SHARE, 0, " ", 6, NULL, NULL},
                {"bytes", "bytes", WASP_VIEW_BYTES, WASP_VIEW_VALUE, "  ", 9, NULL, NULL},
                {"words", "words", WASP_VIEW_COUNT, WASP_VIEW_EVIDENCE | WASP_VIEW_ESTIMATE,
                 "  ", 0, NULL, "word"},
                {"first", "first", WASP_VIEW_FLAG, WASP_VIEW_KEY, "  ", 0, "(the first toy)", NULL},
                {"name", "name", WASP_VIEW_STRING, WASP_VIEW_KEY, "  ", 0, "", NULL},
                {"at", "made at", WASP_VIEW_CONTEXT, WASP_VIEW_KEY, NULL, 0, "made at:", NULL},
                {"price", "price", WASP_VIEW_BYTES, 0, "  ", 0, "price ", NULL},
                {"maker", "maker", WASP_VIEW_SITE, 0, NULL, 0, NULL, NULL},
                /* the text shows a row's first part and how many more */
                {"parts", "parts", WASP_VIEW_LIST, 0, NULL, 1, "parts:", "part", &parts}},
    .head = {{"toy_bytes", "toy bytes", WASP_VIEW_BYTES, 0, NULL, 0, NULL, NULL}},
    .rank = rank, .cells = cells, .total = total, .head_cells = head_cells,
};

/* A profile of the toy: three rows, each made in a method of its own. */
static wasp_profile *toy_profile(int side, double b0, double b1, double b2)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_add_counter(p, "samples", 100);
    struct toy *t = &toys[side];
    *t = (struct toy){p, {"ball", "kite", "yoyo"}, {b0, b1, b2}, {0}, {0}, {0}};
    static const char *const methods[] = {"Toy.ball", "Toy.kite", "Toy.yoyo"};
    for (int i = 0; i < TOY_ROWS; i++) {
        wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, methods[i]),
                        wasp_profile_intern_string(p, "Toy.java"), 10 + i};
        uint32_t fr = wasp_profile_intern_frame(p, &f);
        t->ctx[i] = wasp_profile_intern_context(p, &fr, 1, wasp_profile_intern_string(p, "mov"));
        t->site[i] = wasp_profile_intern_site(p, t->ctx[i], wasp_profile_intern_string(p, "Toy"));
        for (int k = 0; k < TOY_PARTS; k++) {
            char m[32];
            snprintf(m, sizeof m, "%s.part%d", methods[i], k);
            wasp_frame g = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, m),
                            wasp_profile_intern_string(p, "Toy.java"), 20 + k};
            uint32_t gr[2] = {fr, wasp_profile_intern_frame(p, &g)};
            t->part[i * TOY_PARTS + k] = wasp_profile_intern_context(p, gr, 2, 0);
        }
    }
    return p;
}

static int setup(void **state)
{
    (void)state;
    wasp_view_override(WASP_ID_deadstore, &toy);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    wasp_view_override(WASP_ID_deadstore, NULL);
    return 0;
}

static char *render(const wasp_profile *p, wasp_format fmt, size_t *len)
{
    return render_string(p, fmt, WASP_BY_INSTRUCTION, len);
}

/* The same with --top top (0: the format's default). */
__attribute__((noinline)) static char *render_top(const wasp_profile *p, wasp_format fmt, int top)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    wasp_report_opts o = {.format = fmt, .by = WASP_BY_INSTRUCTION, .top = top};
    assert_int_equal(wasp_report_render(p, &o, f), 0);
    fclose(f);
    return buf;
}

/* Text: the rows ranked, each line with its measures and its true flag, its
 * context and nested list under it. */
static void test_text(void **state)
{
    (void)state;
    wasp_profile *p = toy_profile(0, 1024, 4096, 2048);
    char *s = render(p, WASP_FORMAT_TEXT, NULL);
    const char *kite = strstr(s, "\n  #1  57.1%    4.0 KiB  512 words  kite  price 8.0 KiB\n");
    const char *yoyo = strstr(s, "\n  #2  28.6%    2.0 KiB  256 words  yoyo  price 4.0 KiB\n");
    const char *ball =
        strstr(s, "\n  #3  14.3%    1.0 KiB  128 words  (the first toy)  ball  price n/a\n");
    assert_non_null(kite);
    assert_non_null(yoyo);
    assert_non_null(ball);
    assert_true(kite < yoyo && yoyo < ball);
    assert_non_null(strstr(kite, "      made at:    mov\n        at Toy.kite(Toy.java:11)\n"));
    /* its nested list: the heading, its first part, how many more */
    assert_non_null(strstr(kite, "      parts:\n        2 weights\n          at Toy.kite.part1(Toy."
                                 "java:21)\n          at Toy.kite(Toy.java:11)\n        ... 1 more "
                                 "part\n\n  #2"));
    free(s);
    wasp_profile_free(p);
}

/* JSON: the analysis's member with the head's members and the rows, each
 * with every column. */
static void test_json(void **state)
{
    (void)state;
    wasp_profile *p = toy_profile(0, 1024, 4096, 2048);
    char *s = render(p, WASP_FORMAT_JSON, NULL);
    const char *member = strstr(s, "\"deadstore\": {");
    assert_non_null(member);
    assert_non_null(strstr(member, "\"toy_bytes\": 7168"));
    const char *rows = strstr(member, "\"toys\": [");
    assert_non_null(rows);
    const char *kite = strstr(rows, "\"name\": \"kite\"");
    const char *ball = strstr(rows, "\"name\": \"ball\"");
    assert_true(kite && ball && kite < ball);
    assert_non_null(strstr(rows, "\"bytes\": 4096"));
    assert_non_null(strstr(rows, "\"words\": 512"));
    assert_non_null(strstr(rows, "\"first\": true"));
    assert_non_null(strstr(rows, "\"at\": {"));
    assert_non_null(strstr(rows, "\"method\": \"Toy.kite\""));
    assert_non_null(strstr(rows, "\"price\": null"));      /* none */
    assert_non_null(strstr(rows, "\"class\": \"Toy\""));  /* the site's fields */
    const char *nested = strstr(kite, "\"parts\": [");    /* kite's parts, ranked */
    assert_non_null(nested);
    const char *p1 = strstr(nested, "\"method\": \"Toy.kite.part1\"");
    const char *p0 = strstr(nested, "\"method\": \"Toy.kite.part0\"");
    assert_true(p1 && p0 && p1 < p0);
    assert_non_null(strstr(nested, "\"weight\": 2"));
    free(s);
    wasp_profile_free(p);
}

/* HTML: the page registers the toy's description for view.js to draw. */
static void test_html(void **state)
{
    (void)state;
    wasp_profile *p = toy_profile(0, 1024, 4096, 2048);
    char *s = render(p, WASP_FORMAT_HTML, NULL);
    const char *views = strstr(s, "waspViews({");
    assert_non_null(views);
    assert_non_null(strstr(views, "\"rows\": \"toys\""));
    assert_non_null(strstr(views, "\"title\": \"made at\""));
    assert_non_null(strstr(views, "\"kind\": \"context\""));
    assert_non_null(strstr(views, "\"kind\": \"list\""));
    assert_non_null(strstr(views, "\"title\": \"part at\""));
    free(s);
    wasp_profile_free(p);
}

/* Collapsed and pprof: every row's context, weighted by its bytes. */
static void test_flame_graphs(void **state)
{
    (void)state;
    wasp_profile *p = toy_profile(0, 1024, 4096, 2048);
    char *s = render(p, WASP_FORMAT_COLLAPSED, NULL);
    assert_non_null(strstr(s, "Toy.kite"));
    assert_non_null(strstr(s, " 4096\n"));
    assert_non_null(strstr(s, " 1024\n"));
    assert_non_null(strstr(s, "Toy.yoyo.part1")); /* a nested list's contexts too */
    free(s);
    size_t len = 0;
    s = render(p, WASP_FORMAT_PPROF, &len);
    assert_true(len > 20);
    assert_int_equal((unsigned char)s[0], 0x1f); /* gzip */
    free(s);
    wasp_profile_free(p);
}

/* diff: rows matched by their keys, valued by the value column; a changed
 * row shows its keys. */
static void test_diff(void **state)
{
    (void)state;
    wasp_profile *a = toy_profile(0, 1024, 4096, 2048);
    wasp_profile *b = toy_profile(1, 1024, 0, 2048 * 8);
    wasp_diff d;
    assert_int_equal(wasp_diff_build(a, b, true, &d), 0);
    assert_int_equal(wasp_diff_test_noise(&d), 0);
    wasp_diff_names names = {{"a", "b"}, false, false};
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    assert_int_equal(wasp_diff_render_text(&d, &names, 0, f), 0);
    fclose(f);
    assert_non_null(strstr(s, "Toys:"));
    assert_non_null(strstr(s, "Toy row"));
    assert_non_null(strstr(s, "      name kite\n"));
    assert_non_null(strstr(s, "made at:"));
    free(s);
    f = open_memstream(&s, &n);
    assert_int_equal(wasp_diff_render_json(&d, &names, 0, f), 0);
    fclose(f);
    assert_non_null(strstr(s, "\"name\": \"yoyo\""));
    assert_non_null(strstr(s, "{\"title\": \"name\", \"member\": \"name\", \"context\": false}"));
    free(s);
    wasp_diff_free(&d);
    wasp_profile_free(a);
    wasp_profile_free(b);
}

/* ---- a toy with a sub view, a whole table and weighed parts (locks' shape) ---- */

/* Parts weighed by a hidden column: the second of each row 10, the first 0. */
static void heft_cells(const wasp_profile *p, int id, uint32_t i, const wasp_view_total *sum,
                       wasp_view_cell *x)
{
    part_cells(p, id, i, sum, x);
    x[2].num = (i % TOY_PARTS) * 10.0;
}

static const wasp_view weighed_parts = {
    .columns = {WASP_VIEW_COL("weight", "weight", WASP_VIEW_COUNT, WASP_VIEW_VALUE),
                {"at", "part at", WASP_VIEW_CONTEXT, WASP_VIEW_INLINE, NULL, 0, NULL, NULL, NULL,
                 "piece"},
                WASP_VIEW_COL("heft", "heft", WASP_VIEW_COUNT, WASP_VIEW_WEIGHT | WASP_VIEW_HIDDEN)},
    .rank_in = parts_of, .cells = heft_cells, .weighed_only = true,
};

/* The whole table: every toy, whatever --top. */
static uint32_t *all_toys(const wasp_profile *p, int id, uint32_t parent, const wasp_view_total *t,
                          uint32_t *n)
{
    (void)parent;
    return rank(p, id, t, n);
}

static void name_cells(const wasp_profile *p, int id, uint32_t i, const wasp_view_total *sum,
                       wasp_view_cell *x)
{
    (void)id, (void)sum;
    x[0].str = toy_of(p)->name[i];
}

static const wasp_view names_table = {
    .title = "Names", .rows = "names", .compact = true, .whole = true,
    .columns = {WASP_VIEW_COL("name", "name", WASP_VIEW_STRING, 0)},
    .rank_in = all_toys, .cells = name_cells,
};

static void extras_head(const wasp_profile *p, int id, int top, FILE *out)
{
    (void)p, (void)id, (void)top;
    fputs("\nExtras\n", out);
}

static void toy2_cells(const wasp_profile *p, int id, uint32_t i, const wasp_view_total *sum,
                       wasp_view_cell *x)
{
    x[0].str = toy_of(p)->name[i];
    x[1].num = toy_of(p)->bytes[i];
    (void)id, (void)sum;
}

static const wasp_view extras = {
    .title = "Extras", .what = "extra", .whats = "extras", .member = "extras", .rows = "list",
    .columns = {WASP_VIEW_COL("name", "name", WASP_VIEW_STRING, 0),
                {"bytes", "bytes", WASP_VIEW_BYTES, WASP_VIEW_VALUE, "  ", 9, NULL, NULL, NULL,
                 NULL}},
    .rank = rank, .cells = toy2_cells, .total = total, .text_head = extras_head,
};

static const wasp_view toy2 = {
    .title = "Toys", .entry = "Toy row", .what = "toy", .whats = "toys", .of = "of toy bytes",
    .unit = "bytes", .rows = "toys",
    .columns = {{"name", "name", WASP_VIEW_STRING, WASP_VIEW_KEY | WASP_VIEW_LEAF, NULL, 0, "toy ",
                 NULL, NULL, "toy"},
                {"bytes", "bytes", WASP_VIEW_BYTES, WASP_VIEW_VALUE, "  ", 9, NULL, NULL, NULL,
                 NULL},
                {"parts", "parts", WASP_VIEW_LIST, 0, NULL, 0, NULL, NULL, &weighed_parts, NULL}},
    .tables = {&names_table}, .sub = &extras,
    .rank = rank, .cells = toy2_cells, .total = total,
};

/* The sub view after the rows in text and JSON, described for the page; the
 * whole table whole at --top 1; stacks weighed by the WEIGHT column, the
 * parts of no weight left out, the side named by the context's frame; the
 * LEAF's frame prefixed for the page. */
static void test_sub_view(void **state)
{
    (void)state;
    wasp_view_override(WASP_ID_deadstore, &toy2);
    wasp_profile *p = toy_profile(0, 1024, 4096, 2048);
    char *s = render_top(p, WASP_FORMAT_TEXT, 1);
    const char *rows = strstr(s, "\n  #1    4.0 KiB\n");
    const char *sub = strstr(s, "\nExtras\n\n  #1    4.0 KiB\n");
    assert_true(rows && sub && rows < sub);
    free(s);
    s = render_top(p, WASP_FORMAT_JSON, 1);
    const char *table = strstr(s, "\"names\": [");
    const char *obj = strstr(s, "\"extras\": {");
    assert_true(table && obj && table < obj);
    assert_non_null(strstr(table, "{\"name\": \"ball\"}")); /* the third toy too */
    assert_non_null(strstr(obj, "\"list\": ["));
    free(s);
    s = render_top(p, WASP_FORMAT_HTML, 0);
    assert_non_null(strstr(s, "\"sub\": {"));
    assert_non_null(strstr(s, "\"member\": \"extras\""));
    assert_non_null(strstr(s, "\"prefix\": \"toy \""));
    free(s);
    s = render_top(p, WASP_FORMAT_COLLAPSED, 0);
    assert_non_null(strstr(s, "deadstore;[piece];Toy.kite(Toy.java:11);Toy.kite.part1(Toy.java:21);kite 10\n"));
    assert_null(strstr(s, "part0"));
    free(s);
    wasp_profile_free(p);
    wasp_view_override(WASP_ID_deadstore, &toy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),       cmocka_unit_test(test_json),
        cmocka_unit_test(test_html),       cmocka_unit_test(test_flame_graphs),
        cmocka_unit_test(test_diff),       cmocka_unit_test(test_sub_view),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
