/* `wasp diff`'s test of noise (src/cli/diff/diff_noise.c, docs/diff.md): the
 * two-proportion test's p-values at the edges (few samples appearing or
 * vanishing are noise, many are not), Holm's procedure over a diff's
 * entries, and the weights of the pair analyses' samples (a pair standing
 * for many refused samples is less evidence than its sum). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/pairs/profile.h"
#include "cli/commands/diff.h"

#include <math.h>
#include <string.h>

static void test_p_values(void **state)
{
    (void)state;
    /* The same share: no evidence of a change. */
    assert_true(wasp_diff_p_value(10, 100, 20, 200) == 1);
    /* Nothing to compare on one side. */
    assert_true(wasp_diff_p_value(10, 100, 0, 0) == 1);
    /* Appearing with a few samples is noise: 3 of 1000 against none. */
    assert_true(wasp_diff_p_value(0, 1000, 3, 1000) > 0.3);
    /* Half of 1000 samples against none: as sure as a double says. */
    assert_true(wasp_diff_p_value(500, 1000, 0, 1000) < 1e-20);
    /* Symmetric in the sides. */
    assert_true(fabs(wasp_diff_p_value(30, 300, 60, 300) - wasp_diff_p_value(60, 300, 30, 300)) <
                1e-15);
    /* A larger run is more evidence for the same shares. */
    assert_true(wasp_diff_p_value(300, 3000, 600, 3000) < wasp_diff_p_value(30, 300, 60, 300));
    /* z for 0 vs k samples of equal runs is about (k-1)/sqrt(K k): k = 25 with K = 4 gives
     * z ~ 2.4, p ~ 0.016 (the pooled share of ~1% barely changes it). */
    double p = wasp_diff_p_value(0, 10000, 25, 10000);
    assert_true(p > 0.01 && p < 0.03);
}

/* A diff of n entries of analysis 0 with these samples before and after,
 * out of total samples per side (observations: as many). */
static void build(wasp_diff *d, wasp_diff_entry *e, const double (*x)[2], uint32_t n,
                  double total)
{
    memset(d, 0, sizeof *d);
    for (int s = 0; s < 2; s++) {
        d->an[0].shown[s] = true;
        d->an[0].samples[s] = total;
    }
    for (uint32_t i = 0; i < n; i++) {
        e[i] = (wasp_diff_entry){.analysis = 0};
        for (int s = 0; s < 2; s++) {
            e[i].samples[s] = e[i].value[s] = x[i][s];
            e[i].share[s] = x[i][s] / total;
        }
    }
    d->entries = e;
    d->n = n;
}

static void test_holm(void **state)
{
    (void)state;
    /* One large change among small ones: it alone is significant. */
    static const double x[][2] = {{400, 10}, {5, 8}, {7, 3}, {0, 2}, {1, 0}, {50, 55}};
    enum { N = sizeof x / sizeof *x };
    wasp_diff_entry e[N];
    wasp_diff d;
    build(&d, e, x, N, 1000);
    assert_int_equal(wasp_diff_test_noise(&d), 0);
    assert_true(e[0].significant && e[0].p_value < 1e-10);
    for (int i = 1; i < N; i++)
        assert_false(e[i].significant);
    /* p just under alpha alone is significant; among 100 tests it is not
     * (Holm divides alpha by the tests made). */
    double one[][2] = {{0, 0}};
    for (double k = 1; k < 200; k++) { /* the smallest count whose p is below alpha */
        one[0][0] = k;
        if (wasp_diff_p_value(k, 1000, 0, 1000) <= WASP_DIFF_ALPHA)
            break;
    }
    wasp_diff_entry many[100];
    double xs[100][2];
    for (int i = 0; i < 100; i++)
        xs[i][0] = xs[i][1] = 1; /* unchanged: p 1, but tested */
    xs[0][0] = one[0][0];
    xs[0][1] = 0;
    build(&d, e, (const double(*)[2])one, 1, 1000);
    assert_int_equal(wasp_diff_test_noise(&d), 0);
    assert_true(e[0].significant);
    build(&d, many, (const double(*)[2])xs, 100, 1000);
    assert_int_equal(wasp_diff_test_noise(&d), 0);
    assert_false(many[0].significant);
}

/* Weighted samples: 40 samples that are 4 observations are not 40. */
static void test_weights(void **state)
{
    (void)state;
    static const double x[][2] = {{40, 0}};
    wasp_diff_entry e[1];
    wasp_diff d;
    build(&d, e, x, 1, 200);
    assert_int_equal(wasp_diff_test_noise(&d), 0);
    assert_true(e[0].significant); /* 40 of 200 against none of 200 */
    build(&d, e, x, 1, 200);
    d.an[0].observations[0] = 10; /* a mean weight of 20 before: 2 of 10 against none */
    assert_int_equal(wasp_diff_test_noise(&d), 0);
    assert_false(e[0].significant);
    assert_true(e[0].p_value > 0.01);
    /* Weights below 1 (fewer samples than observations) count as 1. */
    build(&d, e, x, 1, 200);
    d.an[0].observations[0] = d.an[0].observations[1] = 400;
    assert_int_equal(wasp_diff_test_noise(&d), 0);
    assert_true(e[0].significant);
}

/* Two profiles whose pairs carry weights (the counter "armed" below the
 * samples the pairs stand for): wasp_diff_build gives the analysis its
 * observations, and a pair of 60 samples from 6 armed is within noise. */
static void test_build_weighted(void **state)
{
    (void)state;
    wasp_profile *p[2];
    for (int s = 0; s < 2; s++) {
        p[s] = wasp_profile_new();
        wasp_profile_set_meta(p[s], "events", "deadstore");
        wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p[s], "D.m"),
                        wasp_profile_intern_string(p[s], "D.java"), 3 + s};
        uint32_t fr[] = {wasp_profile_intern_frame(p[s], &f)};
        uint32_t c = wasp_profile_intern_context(p[s], fr, 1, 0);
        wasp_profile_add_pair(p[s], WASP_AN_DEADSTORE, 0, c, c, 480, 60);
        wasp_totals t = {800, 480, 0, 100};
        wasp_profile_add_totals(p[s], WASP_AN_DEADSTORE, &t);
    }
    wasp_diff d;
    assert_int_equal(wasp_diff_build(p[0], p[1], false, &d), 0);
    assert_int_equal(d.n, 2); /* line 3 vanished, line 4 appeared: 60 of 100 each */
    assert_true(d.entries[0].significant && d.entries[1].significant);
    wasp_diff_free(&d);
    for (int s = 0; s < 2; s++)
        wasp_profile_set_counter(p[s], "armed", 10); /* each sample a weight of 10 */
    assert_int_equal(wasp_diff_build(p[0], p[1], false, &d), 0);
    assert_true(fabs(d.an[WASP_AN_DEADSTORE].observations[0] - 10) < 1e-9);
    assert_false(d.entries[0].significant || d.entries[1].significant);
    wasp_diff_free(&d);
    for (int s = 0; s < 2; s++)
        wasp_profile_free(p[s]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p_values),
        cmocka_unit_test(test_holm),
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_build_weighted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
