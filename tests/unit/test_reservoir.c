/* The reservoir policy: uniform choice among samples, weight conservation,
 * and weight kept apart between analyses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "watch/reservoir.h"

static void free_slots_fill_first(void **state)
{
    (void)state;
    wasp_reservoir_slot s[4];
    memset(s, 0, sizeof s);
    uint64_t rng = 42;
    for (int i = 0; i < 4; i++) {
        wasp_reservoir_result r = wasp_reservoir_offer(s, 4, 0, 1.0, &rng);
        assert_int_equal(r.slot, i);
        assert_int_equal(r.replaced, 0);
        assert_true(s[i].in_use);
    }
    /* Each earlier slot has seen the later samples. */
    assert_float_equal(s[0].seen, 4.0, 1e-12);
    assert_float_equal(s[3].seen, 1.0, 1e-12);
}

/* With one register and k samples between traps, the survivor is each of the
 * k samples with probability 1/k (JXPerf Sec. 5.2). */
static void survivor_is_uniform(void **state)
{
    (void)state;
    enum { K = 8, TRIALS = 40000 };
    int hits[K] = {0};
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    for (int t = 0; t < TRIALS; t++) {
        wasp_reservoir_slot s[1];
        memset(s, 0, sizeof s);
        int occupant = -1;
        for (int k = 0; k < K; k++) {
            wasp_reservoir_result r = wasp_reservoir_offer(s, 1, 0, 1.0, &rng);
            if (r.slot == 0)
                occupant = k;
        }
        assert_true(occupant >= 0);
        hits[occupant]++;
    }
    for (int k = 0; k < K; k++) {
        /* expected 5000 each; a replace-oldest or keep-first policy is far off */
        assert_in_range(hits[k], 4600, 5400);
    }
}

/* Every sample's weight ends up in a trap, a slot, or the dropped count. */
static void weight_is_conserved(void **state)
{
    (void)state;
    wasp_reservoir_slot s[4];
    memset(s, 0, sizeof s);
    uint64_t rng = 7;
    double credited = 0, dropped = 0;
    int offered = 0;
    for (int i = 0; i < 100000; i++) {
        int analysis = (int)(wasp_rng_next(&rng) % 3);
        wasp_reservoir_result r = wasp_reservoir_offer(s, 4, analysis, 1.0, &rng);
        offered++;
        dropped += r.dropped_weight;
        if (wasp_rng_next(&rng) % 5 == 0) { /* a trap on a random slot */
            int k = (int)(wasp_rng_next(&rng) % 4);
            credited += wasp_reservoir_release(&s[k]);
        }
    }
    double held = 0;
    for (int k = 0; k < 4; k++)
        held += s[k].in_use ? s[k].weight : 0;
    assert_float_equal(credited + held + dropped, (double)offered, 1e-6 * offered);
}

static void other_analysis_weight_not_mixed(void **state)
{
    (void)state;
    wasp_reservoir_slot s[1];
    memset(s, 0, sizeof s);
    uint64_t rng = 3;
    wasp_reservoir_offer(s, 1, 0, 1.0, &rng); /* analysis 0 holds the slot */
    double weight0 = s[0].weight;
    int placed = 0, kept = 0;
    for (int i = 0; i < 200 && !placed; i++) {
        wasp_reservoir_result r = wasp_reservoir_offer(s, 1, 1, 1.0, &rng);
        if (r.slot == 0) {
            placed = 1;
            /* The replaced watchpoint's weight is dropped, not inherited. */
            assert_float_equal(r.dropped_weight, weight0, 1e-12);
            assert_float_equal(s[0].weight, 1.0, 1e-12);
            assert_int_equal(s[0].analysis, 1);
        } else {
            kept++;
            assert_float_equal(r.dropped_weight, 1.0, 1e-12);
            assert_float_equal(s[0].weight, weight0, 1e-12);
        }
    }
    assert_true(placed);
}

static void release_resets(void **state)
{
    (void)state;
    wasp_reservoir_slot s = {.in_use = 1, .analysis = 2, .seen = 9, .weight = 4.5};
    assert_float_equal(wasp_reservoir_release(&s), 4.5, 1e-12);
    assert_int_equal(s.in_use, 0);
    assert_float_equal(s.seen, 0.0, 1e-12);
    assert_float_equal(wasp_reservoir_release(&s), 0.0, 1e-12);
}

/* Samples the budget keeps from arming: a watchpoint does not outlive them
 * by more than the reservoir lets it (it is dropped with probability
 * 1/seen each time), and until then it takes their weight. */
static void budget_passes_run_the_lottery(void **state)
{
    (void)state;
    enum { RUNS = 2000, PASSES = 1000 };
    uint64_t rng = 11;
    int survived = 0;
    for (int run = 0; run < RUNS; run++) {
        wasp_reservoir_slot s[1];
        memset(s, 0, sizeof s);
        wasp_reservoir_offer(s, 1, 0, 1.0, &rng); /* armed: seen 1 */
        int dropped = 0;
        for (int i = 0; i < PASSES && !dropped; i++) {
            double before = s[0].weight;
            int lost = wasp_reservoir_pass(s, 1, 0, 1.0, &rng);
            if (lost == 0) {
                dropped = 1;
            } else {
                assert_int_equal(lost, -1);
                assert_float_equal(s[0].weight, before + 1.0, 1e-12);
            }
        }
        survived += !dropped;
    }
    /* A slot that has seen k samples survives the next with probability
     * k/(k+1): after PASSES, 1/(PASSES+1) of the runs. Without the lottery
     * every run would survive. */
    assert_true(survived <= 10);

    /* A free slot: the sample would have armed it; nothing is dropped and
     * the live watchpoint's weight stays its own (the caller keeps the
     * sample's for the next one armed). */
    wasp_reservoir_slot two[2];
    memset(two, 0, sizeof two);
    wasp_reservoir_offer(two, 2, 0, 1.0, &rng);
    for (int i = 0; i < 100; i++)
        assert_int_equal(wasp_reservoir_pass(two, 2, 0, 1.0, &rng), WASP_RESERVOIR_UNHELD);
    assert_float_equal(two[0].weight, 1.0, 1e-12);
    assert_float_equal(two[1].weight, 0.0, 1e-12);

    /* Every slot in use (seen so much that the lottery picks none): the
     * weight is shared by the live watchpoints of the sample's analysis,
     * and with none of its analysis alive the caller keeps it. */
    wasp_reservoir_offer(two, 2, 0, 1.0, &rng);
    two[0].seen = two[1].seen = 1e12;
    assert_int_equal(wasp_reservoir_pass(two, 2, 0, 1.0, &rng), -1);
    assert_float_equal(two[0].weight, 1.5, 1e-12);
    assert_float_equal(two[1].weight, 1.5, 1e-12);
    assert_int_equal(wasp_reservoir_pass(two, 2, 1, 1.0, &rng), WASP_RESERVOIR_UNHELD);
    assert_float_equal(two[0].weight + two[1].weight, 3.0, 1e-12);
}

/* Samples of unequal weight (a thread paced while the watch budget was
 * spent samples less often, each sample standing for more CPU time): the
 * survivor is each sample with a chance in proportion to its weight, and
 * the watchpoint stands for all of their weight. Weights 1, 4, 1, 2: chances
 * 1/8, 4/8, 1/8, 2/8. A lottery that ignored weights gives 1/4 each. */
static void survivor_follows_weight(void **state)
{
    (void)state;
    enum { TRIALS = 40000 };
    const double w[] = {1.0, 4.0, 1.0, 2.0};
    int hits[4] = {0};
    uint64_t rng = 0x51ed2701ull;
    for (int t = 0; t < TRIALS; t++) {
        wasp_reservoir_slot s[1];
        memset(s, 0, sizeof s);
        int occupant = -1;
        for (int k = 0; k < 4; k++)
            if (wasp_reservoir_offer(s, 1, 0, w[k], &rng).slot == 0)
                occupant = k;
        assert_float_equal(s[0].weight, 8.0, 1e-12);
        assert_float_equal(s[0].seen, 8.0, 1e-12);
        hits[occupant]++;
    }
    assert_in_range(hits[0], 4600, 5400);
    assert_in_range(hits[1], 19400, 20600);
    assert_in_range(hits[2], 4600, 5400);
    assert_in_range(hits[3], 9400, 10600);
}

/* With a slot free a pass leaves the live watchpoint alone; with every
 * slot in use it drops one with probability w/seen. */
static void pass_weighs(void **state)
{
    (void)state;
    enum { RUNS = 20000 };
    uint64_t rng = 77;
    int dropped = 0;
    for (int run = 0; run < RUNS; run++) {
        wasp_reservoir_slot s[2];
        memset(s, 0, sizeof s);
        wasp_reservoir_offer(s, 2, 0, 1.0, &rng);
        assert_int_equal(wasp_reservoir_pass(s, 2, 0, 8.0, &rng), WASP_RESERVOIR_UNHELD); /* a free slot */
        assert_float_equal(s[0].weight, 1.0, 1e-12);
        wasp_reservoir_offer(s, 2, 0, 1.0, &rng); /* both in use: seen 2 and 1 */
        int lost = wasp_reservoir_pass(s, 2, 0, 2.0, &rng);
        dropped += lost >= 0;
    }
    /* The slots visited in random order: slot 0 (seen 2 + 2) would take it
     * with 1/2, slot 1 (seen 1 + 2) with 2/3; someone does unless both
     * refuse: 1 - 1/2 * 1/3 = 5/6. Unweighted (1/4 and 1/3): 1/2. */
    assert_in_range(dropped, 16200, 17100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(free_slots_fill_first),
        cmocka_unit_test(survivor_is_uniform),
        cmocka_unit_test(weight_is_conserved),
        cmocka_unit_test(other_analysis_weight_not_mixed),
        cmocka_unit_test(release_resets),
        cmocka_unit_test(budget_passes_run_the_lottery),
        cmocka_unit_test(survivor_follows_weight),
        cmocka_unit_test(pass_weighs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
