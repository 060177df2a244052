/* Pruning a session's profile (wasp_profile_prune, src/profile/group.c):
 * the heaviest contexts of each kind stay as they are, the others sum under
 * one placeholder, and no total changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "profile/group.h"
#include "pairs_view.h"

/* main:44 -> work:<line>, leaf instruction "I<line>". */
static uint32_t ctx(wasp_profile *p, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, "S.main"),
                    wasp_profile_intern_string(p, "S.java"), 44};
    uint32_t fr[2] = {wasp_profile_intern_frame(p, &f)};
    f.name = wasp_profile_intern_string(p, "S.work");
    f.line = line;
    fr[1] = wasp_profile_intern_frame(p, &f);
    char insn[16];
    snprintf(insn, sizeof insn, "I%d", line);
    return wasp_profile_intern_context(p, fr, 2, wasp_profile_intern_string(p, insn));
}

static bool is_placeholder(const wasp_profile *q, uint32_t c)
{
    const wasp_context *x = &q->contexts[c];
    const wasp_frame *f = &q->frames[q->frame_refs[x->first]];
    return x->nframes == 1 && f->kind == WASP_FRAME_UNKNOWN &&
           strcmp(wasp_profile_string(q, f->name), WASP_PRUNED_FRAME) == 0;
}

static int leaf_line(const wasp_profile *q, uint32_t c)
{
    const wasp_context *x = &q->contexts[c];
    return q->frames[q->frame_refs[x->first + x->nframes - 1]].line;
}

/* Ten dead-store contexts, context i paired with itself for i bytes. */
static wasp_profile *ten_pairs(void)
{
    wasp_profile *p = wasp_profile_new();
    wasp_totals t = {1000, 55, 0, 10};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    for (int i = 1; i <= 10; i++) {
        uint32_t c = ctx(p, i);
        wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, i, 1);
    }
    wasp_profile_add_counter(p, "samples", 77);
    wasp_profile_set_meta(p, "java_command", "S");
    return p;
}

static void test_keeps_heaviest_sums_rest(void **state)
{
    (void)state;
    wasp_profile *p = ten_pairs();
    uint32_t pruned = 0;
    wasp_profile *q = wasp_profile_prune(p, 3, &pruned);
    assert_non_null(q);
    assert_int_equal(pruned, 7);
    assert_int_equal(q->ncontexts, 4);
    assert_int_equal(pair_count(q), 4);
    double kept = 0, rest = 0, count = 0;
    for (uint32_t i = 0; i < pair_count(q); i++) {
        const wasp_pair *r = &pairs_of(q)[i];
        assert_int_equal(r->watch_ctx, r->trap_ctx);
        count += r->count;
        if (is_placeholder(q, r->watch_ctx)) {
            rest += r->bytes;
            continue;
        }
        int line = leaf_line(q, r->watch_ctx);
        assert_true(line >= 8); /* the three heaviest: 8, 9, 10 bytes */
        assert_true(r->bytes == line);
        char want[16];
        snprintf(want, sizeof want, "I%d", line);
        assert_string_equal(wasp_profile_string(q, q->contexts[r->watch_ctx].insn), want);
        kept += r->bytes;
    }
    assert_true(kept == 27 && rest == 28 && count == 10);
    wasp_totals tq = totals_of(q, WASP_AN_DEADSTORE), tp = totals_of(p, WASP_AN_DEADSTORE);
    assert_memory_equal(&tq, &tp, sizeof tq);
    assert_int_equal(wasp_profile_get_counter(q, "samples"), 77);
    assert_string_equal(wasp_profile_get_meta(q, "java_command"), "S");
    wasp_profile_free(q);
    wasp_profile_free(p);
}

/* A second pruning (the next snapshot's) sums into the same placeholder,
 * and a profile within the bound keeps every context. */
static void test_again_and_within(void **state)
{
    (void)state;
    wasp_profile *p = ten_pairs();
    wasp_profile *q = wasp_profile_prune(p, 3, NULL);
    assert_non_null(q);
    uint32_t c = ctx(q, 11);
    wasp_profile_add_pair(q, WASP_AN_DEADSTORE, 0, c, c, 1, 1); /* lighter than all kept */
    uint32_t pruned = 0;
    wasp_profile *r = wasp_profile_prune(q, 4, &pruned);
    assert_non_null(r);
    assert_int_equal(pruned, 1); /* 5 in use: the placeholder (28 bytes), 8, 9, 10, 11 */
    assert_int_equal(r->ncontexts, 4);
    double rest = 0;
    for (uint32_t i = 0; i < pair_count(r); i++)
        if (is_placeholder(r, pairs_of(r)[i].watch_ctx))
            rest += pairs_of(r)[i].bytes;
    assert_true(rest == 29);

    wasp_profile *all = wasp_profile_prune(p, 10, &pruned);
    assert_non_null(all);
    assert_int_equal(pruned, 0);
    assert_int_equal(all->ncontexts, 10);
    wasp_profile_free(all);
    wasp_profile_free(r);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

/* Allocation sites are their own kind: a site's context pruned, the site
 * sums with the others of its class under the placeholder. */
static void test_sites(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t cls = wasp_profile_intern_string(p, "Foo");
    for (int i = 1; i <= 5; i++) {
        uint32_t s = wasp_profile_intern_site(p, ctx(p, i), cls);
        wasp_profile_add_site_allocs(p, s, 1, 100.0 * i);
    }
    uint32_t pruned = 0;
    wasp_profile *q = wasp_profile_prune(p, 2, &pruned);
    assert_non_null(q);
    assert_int_equal(pruned, 3);
    assert_int_equal(q->nsites, 3);
    double bytes = 0, rest = 0;
    for (uint32_t i = 0; i < q->nsites; i++) {
        bytes += q->sites[i].bytes;
        if (is_placeholder(q, q->sites[i].ctx))
            rest = q->sites[i].bytes;
        else
            assert_true(leaf_line(q, q->sites[i].ctx) >= 4);
    }
    assert_true(bytes == 1500 && rest == 600);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

/* The bound is shared among the kinds: one that needs less than its share
 * leaves the rest to the others. */
static void test_shared_bound(void **state)
{
    (void)state;
    wasp_profile *p = ten_pairs();
    uint32_t cls = wasp_profile_intern_string(p, "Foo");
    for (int i = 20; i <= 21; i++)
        wasp_profile_add_site_allocs(p, wasp_profile_intern_site(p, ctx(p, i), cls), 1, 8);
    uint32_t pruned = 0;
    wasp_profile *q = wasp_profile_prune(p, 6, &pruned);
    assert_non_null(q);
    assert_int_equal(pruned, 6); /* sites keep their 2, the pairs 4 of 10 */
    assert_int_equal(q->nsites, 2);
    assert_int_equal(pair_count(q), 5);
    assert_int_equal(q->ncontexts, 7);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keeps_heaviest_sums_rest),
        cmocka_unit_test(test_again_and_within),
        cmocka_unit_test(test_sites),
        cmocka_unit_test(test_shared_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
