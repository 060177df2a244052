/* Grouping by source line (src/profile/group.c): pairs that differ only in
 * the leaf machine instruction merge; anything else keeps them apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "profile/group.h"
#include "pairs_view.h"

static uint32_t frame(wasp_profile *p, const char *m, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, m),
                    wasp_profile_intern_string(p, "S.java"), line};
    return wasp_profile_intern_frame(p, &f);
}

/* main:44 -> indexOf:<line>, with leaf instruction insn (NULL: unknown). */
static uint32_t ctx(wasp_profile *p, int line, const char *insn)
{
    uint32_t fr[] = {frame(p, "S.main", 44), frame(p, "S.indexOf", line)};
    return wasp_profile_intern_context(p, fr, 2, insn ? wasp_profile_intern_string(p, insn) : 0);
}

static int leaf_line(const wasp_profile *q, uint32_t c)
{
    const wasp_context *x = &q->contexts[c];
    assert_int_equal(x->nframes, 2);
    assert_string_equal(wasp_profile_string(q, q->frames[q->frame_refs[x->first]].name), "S.main");
    return q->frames[q->frame_refs[x->first + 1]].line;
}

static const char *insn(const wasp_profile *q, uint32_t c)
{
    return wasp_profile_string(q, q->contexts[c].insn);
}

/* The pair of q with this key, failing the test when absent. */
static const wasp_pair *find(const wasp_profile *q, wasp_analysis a, uint32_t flags, int wline,
                             int tline)
{
    for (uint32_t i = 0; i < pair_count(q); i++) {
        const wasp_pair *r = &pairs_of(q)[i];
        if (r->analysis == (uint32_t)a && r->flags == flags &&
            leaf_line(q, r->watch_ctx) == wline && leaf_line(q, r->trap_ctx) == tline)
            return r;
    }
    fail_msg("no pair %d/%u %d -> %d", a, flags, wline, tline);
    return NULL;
}

static void test_same_line_merges(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t a = ctx(p, 26, "mov 0x14(%rbx), %r10d"), b = ctx(p, 26, "mov 0x1c(%rbx), %r10d"),
             c = ctx(p, 26, "mov 0x24(%rbx), %r10d");
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, a, a, 100, 10);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, b, b, 300, 30);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, c, a, 50, 5);
    wasp_profile *q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_int_equal(pair_count(q), 1);
    assert_int_equal(q->ncontexts, 1);
    const wasp_pair *r = find(q, WASP_AN_SILENTLOAD, 0, 26, 26);
    assert_true(r->bytes == 450 && r->count == 45);
    assert_int_equal(r->watch_ctx, r->trap_ctx);
    assert_string_equal(insn(q, r->watch_ctx), "mov 0x1c(%rbx), %r10d (+2 more instructions)");
    assert_int_equal(pair_count(p), 3); /* the input is left alone */
    wasp_profile_free(q);
    wasp_profile_free(p);
}

/* "Heaviest" is the bytes of all the pairs a context is in, not its biggest pair. */
static void test_heaviest_by_sum_and_ties(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t a = ctx(p, 26, "A"), b = ctx(p, 26, "B"), w = ctx(p, 30, "W");
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, w, a, 120, 1);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, a, w, 120, 1);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, w, b, 200, 1);
    wasp_profile *q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_int_equal(pair_count(q), 2);
    const wasp_pair *r = find(q, WASP_AN_DEADSTORE, 0, 30, 26);
    assert_true(r->bytes == 320 && r->count == 2);
    assert_string_equal(insn(q, r->trap_ctx), "A (+1 more instruction)");
    assert_string_equal(insn(q, r->watch_ctx), "W");
    wasp_profile_free(q);
    wasp_profile_free(p);

    /* a pair whose watch and trap are one context counts its bytes once */
    p = wasp_profile_new();
    a = ctx(p, 26, "A");
    b = ctx(p, 26, "B");
    w = ctx(p, 30, "W");
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, a, a, 100, 1);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, b, w, 150, 1);
    q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_string_equal(insn(q, find(q, WASP_AN_SILENTLOAD, 0, 26, 26)->watch_ctx),
                        "B (+1 more instruction)");
    wasp_profile_free(q);
    wasp_profile_free(p);

    /* equal weights: the context interned first wins, whatever the pair order */
    p = wasp_profile_new();
    a = ctx(p, 26, "A");
    b = ctx(p, 26, "B");
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, b, b, 7, 1);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, a, a, 7, 1);
    q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_string_equal(insn(q, find(q, WASP_AN_DEADSTORE, 0, 26, 26)->watch_ctx),
                        "A (+1 more instruction)");
    wasp_profile_free(q);
    wasp_profile_free(p);
}

/* An unknown instruction is not one of the "more", and a known one is shown over it. */
static void test_unknown_instructions(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t u = ctx(p, 26, NULL), k = ctx(p, 26, "K"), u2 = ctx(p, 27, NULL);
    wasp_profile_add_pair(p, WASP_AN_SILENTSTORE, 0, u, u2, 500, 5);
    wasp_profile_add_pair(p, WASP_AN_SILENTSTORE, 0, k, u2, 10, 1);
    wasp_profile *q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_int_equal(pair_count(q), 1);
    const wasp_pair *r = find(q, WASP_AN_SILENTSTORE, 0, 26, 27);
    assert_true(r->bytes == 510 && r->count == 6);
    assert_string_equal(insn(q, r->watch_ctx), "K");
    assert_int_equal(q->contexts[r->trap_ctx].insn, 0);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

static void test_what_stays_apart(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t a = ctx(p, 26, "A"), b = ctx(p, 27, "B");
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, a, a, 1, 1);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, b, b, 2, 1);  /* another line */
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, a, b, 4, 1);  /* other roles */
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, b, a, 8, 1);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, WASP_PAIR_APPROX, a, a, 16, 1); /* flags */
    wasp_profile_add_pair(p, WASP_AN_SILENTSTORE, 0, a, a, 32, 1);               /* analysis */
    wasp_profile *q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_int_equal(pair_count(q), 6);
    assert_true(find(q, WASP_AN_SILENTLOAD, 0, 26, 26)->bytes == 1);
    assert_true(find(q, WASP_AN_SILENTLOAD, 0, 27, 27)->bytes == 2);
    assert_true(find(q, WASP_AN_SILENTLOAD, 0, 26, 27)->bytes == 4);
    assert_true(find(q, WASP_AN_SILENTLOAD, 0, 27, 26)->bytes == 8);
    assert_true(find(q, WASP_AN_SILENTLOAD, WASP_PAIR_APPROX, 26, 26)->bytes == 16);
    const wasp_pair *r = find(q, WASP_AN_SILENTSTORE, 0, 26, 26);
    assert_true(r->bytes == 32);
    assert_string_equal(insn(q, r->watch_ctx), "A"); /* nothing merged: no suffix */
    wasp_profile_free(q);
    wasp_profile_free(p);

    /* stacks that extend the line's (a callee below, a caller above) are other contexts */
    p = wasp_profile_new();
    uint32_t down[] = {frame(p, "S.main", 44), frame(p, "S.indexOf", 26), frame(p, "S.get", 5)};
    uint32_t up[] = {frame(p, "S.run", 1), frame(p, "S.main", 44), frame(p, "S.indexOf", 26)};
    uint32_t cd = wasp_profile_intern_context(p, down, 3, wasp_profile_intern_string(p, "A"));
    uint32_t cu = wasp_profile_intern_context(p, up, 3, wasp_profile_intern_string(p, "B"));
    a = ctx(p, 26, "C");
    wasp_profile_add_pair(p, WASP_AN_SILENTSTORE, 0, cd, cd, 64, 1);
    wasp_profile_add_pair(p, WASP_AN_SILENTSTORE, 0, cu, cu, 64, 1);
    wasp_profile_add_pair(p, WASP_AN_SILENTSTORE, 0, a, a, 64, 1);
    q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_int_equal(pair_count(q), 3);
    assert_int_equal(q->ncontexts, 3);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

/* One line's dead-store entry shows a store even when the same line's loads
 * weigh more in another analysis. */
static void test_instruction_per_analysis(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t load = ctx(p, 34, "mov 0x1c(%rax), %r11d"), store = ctx(p, 34, "mov %r9d, 0x1c(%rax)");
    uint32_t later = ctx(p, 37, "mov %r8d, 0x1c(%rax)");
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, load, load, 500, 50);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, store, later, 40, 4);
    wasp_profile *q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    const wasp_pair *dead = find(q, WASP_AN_DEADSTORE, 0, 34, 37);
    assert_string_equal(insn(q, dead->watch_ctx), "mov %r9d, 0x1c(%rax)");
    const wasp_pair *silent = find(q, WASP_AN_SILENTLOAD, 0, 34, 34);
    assert_string_equal(insn(q, silent->watch_ctx), "mov 0x1c(%rax), %r11d");
    wasp_profile_free(q);
    wasp_profile_free(p);
}

static void test_header_kept(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "java_command", "S");
    wasp_profile_set_meta(p, "events", "silentload");
    wasp_profile_add_counter(p, "samples", 1033);
    wasp_profile_add_counter(p, "dropped.gc", 0);
    wasp_totals t = {3200, 3190, 2.5, 799};
    wasp_profile_add_totals(p, WASP_AN_SILENTLOAD, &t);
    p->merged = 3;
    uint32_t a = ctx(p, 26, "A"), b = ctx(p, 26, "B");
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, a, b, 1, 1);
    wasp_profile *q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_int_equal(q->nmeta, 2);
    assert_string_equal(wasp_profile_get_meta(q, "java_command"), "S");
    assert_string_equal(wasp_profile_get_meta(q, "events"), "silentload");
    assert_int_equal(q->ncounters, 2);
    assert_int_equal(wasp_profile_get_counter(q, "samples"), 1033);
    assert_string_equal(q->counters[1].name, "dropped.gc");
    for (int a = 0; a < WASP_AN_COUNT; a++) {
        wasp_totals tq = totals_of(q, (wasp_analysis)a), tp = totals_of(p, (wasp_analysis)a);
        assert_memory_equal(&tq, &tp, sizeof tq);
    }
    assert_int_equal(q->merged, 3);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

static void test_empty_and_bad(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile *q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_int_equal(pair_count(q), 0);
    assert_int_equal(q->ncontexts, 0);
    assert_int_equal(q->nmeta, 0);
    assert_int_equal(q->merged, 1);
    wasp_profile_free(q);

    /* ids out of range: refused, not followed */
    uint32_t a = ctx(p, 26, "A");
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, a, a, 1, 1);
    wasp_pair *bad = (wasp_pair *)pairs_of(p); /* corrupted on purpose */
    bad[0].trap_ctx = 5;
    assert_null(wasp_profile_group_by_line(p));
    bad[0].trap_ctx = a;
    p->contexts[a].insn = p->nstrings;
    assert_null(wasp_profile_group_by_line(p));
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_line_merges),
        cmocka_unit_test(test_heaviest_by_sum_and_ties),
        cmocka_unit_test(test_unknown_instructions),
        cmocka_unit_test(test_what_stays_apart),
        cmocka_unit_test(test_instruction_per_analysis),
        cmocka_unit_test(test_header_kept),
        cmocka_unit_test(test_empty_and_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
