/* The page engine's arming by expected cost (watch/page_cost.h): what it
 * learns, the chance it gives, and that weighing armed samples by 1/chance
 * keeps a fraction unbiased where arming by cost alone does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "watch/page_cost.h"
#include "watch/reservoir.h"

static int setup(void **state)
{
    (void)state;
    wasp_page_cost_reset();
    return 0;
}

static void unknown_page_is_armed(void **state)
{
    (void)state;
    assert_int_equal(wasp_page_cost_expected(0x7f0000001000ull), 0);
    assert_float_equal(wasp_page_cost_chance(0x7f0000001000ull), 1.0, 0);
}

static void chance_falls_with_cost(void **state)
{
    (void)state;
    uint64_t dear = 0x7f0000040000ull, cheap = 0x7f0000080000ull;
    wasp_page_cost_learn(dear, 1024, 1);
    wasp_page_cost_learn(cheap, 40, 2);
    assert_int_equal(wasp_page_cost_expected(dear + 8), 1024);
    assert_int_equal(wasp_page_cost_expected(cheap), 20);
    assert_float_equal(wasp_page_cost_chance(dear), (double)WASP_PAGE_COST_TARGET / 1024, 1e-9);
    assert_float_equal(wasp_page_cost_chance(cheap), 1.0, 0);
    /* Recent closings count most: 3:1 with the old estimate. */
    wasp_page_cost_learn(dear, 0, 1);
    assert_int_equal(wasp_page_cost_expected(dear), 768);
    /* The floor bounds an armed sample's weight. */
    wasp_page_cost_learn(dear, 1000000, 1);
    assert_float_equal(wasp_page_cost_chance(dear), 1.0 / WASP_PAGE_COST_MAX_WEIGHT, 0);
    /* Windows' holds alone teach nothing: no sample was armed there. */
    wasp_page_cost_learn(cheap, 100000, 0);
    assert_int_equal(wasp_page_cost_expected(cheap), 20);
}

static void neighbour_takes_its_region(void **state)
{
    (void)state;
    wasp_page_cost_learn(0x7f0000100000ull, 2048, 1);
    /* Another page of the same 256 KiB region, never closed itself. */
    assert_int_equal(wasp_page_cost_expected(0x7f0000107000ull), 2048);
    /* A page of another region knows nothing. */
    assert_int_equal(wasp_page_cost_expected(0x7f0000147000ull), 0);
}

/* Half the samples fall on dear pages, all wasteful; half on cheap ones,
 * none wasteful: the truth is 0.5. Armed by chance and weighed 1/chance the
 * fraction stays 0.5; armed by chance alone it falls to ~0.11. 20,000
 * samples: the same draw simulated with seeds 1-20 gave 0.488-0.511,
 * standard deviation 0.0054, so 0.03 is over 5 of them and the broken
 * one is 0.39 away. */
static void weighing_keeps_fraction_unbiased(void **state)
{
    (void)state;
    uint64_t dear = 0x7f0000200000ull, cheap = 0x7f0000400000ull;
    wasp_page_cost_learn(dear, 2048, 1);
    wasp_page_cost_learn(cheap, 10, 1);
    uint64_t rng = 0x2545f4914f6cdd1dull;
    double waste = 0, all = 0, waste_unweighed = 0, all_unweighed = 0;
    for (int i = 0; i < 20000; i++) {
        int is_dear = i & 1;
        double p = wasp_page_cost_chance(is_dear ? dear : cheap);
        if (wasp_rng_uniform(&rng) >= p)
            continue; /* refused: its weight is dropped */
        waste += is_dear / p;
        all += 1 / p;
        waste_unweighed += is_dear;
        all_unweighed += 1;
    }
    assert_true(waste / all > 0.47 && waste / all < 0.53);
    assert_true(waste_unweighed / all_unweighed < 0.2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(unknown_page_is_armed, setup),
        cmocka_unit_test_setup(chance_falls_with_cost, setup),
        cmocka_unit_test_setup(neighbour_takes_its_region, setup),
        cmocka_unit_test_setup(weighing_keeps_fraction_unbiased, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
