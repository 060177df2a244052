/* The three analysis clients' verdicts and the value comparison. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "watch/pair_client.h"
#include "isa/isa.h"

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static uint64_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void integers_compare_exactly(void **state)
{
    (void)state;
    int approx;
    assert_true(wasp_values_equal(5, 5, 4, 0, 0.01, &approx));
    assert_int_equal(approx, 0);
    assert_false(wasp_values_equal(100, 101, 4, 0, 0.5, &approx));
    /* Only the watched bytes count. */
    assert_true(wasp_values_equal(0x1100000005ull, 0x2200000005ull, 4, 0, 0, &approx));
    assert_false(wasp_values_equal(0x105, 0x205, 2, 0, 0, &approx));
    assert_true(wasp_values_equal(0x105, 0x205, 1, 0, 0, &approx));
}

static void floats_compare_within_threshold(void **state)
{
    (void)state;
    int approx;
    assert_true(wasp_values_equal(dbits(100.0), dbits(100.5), 8, 8, 0.01, &approx));
    assert_int_equal(approx, 1);
    assert_false(wasp_values_equal(dbits(100.0), dbits(102.0), 8, 8, 0.01, &approx));
    assert_true(wasp_values_equal(fbits(1.0f), fbits(1.001f), 4, 4, 0.01, &approx));
    assert_int_equal(approx, 1);
    assert_false(wasp_values_equal(fbits(1.0f), fbits(-1.0f), 4, 4, 0.01, &approx));
    assert_true(wasp_values_equal(dbits(0.0), dbits(0.0), 8, 8, 0.0, &approx));
    assert_int_equal(approx, 0); /* bit-identical doubles are an exact match */
    assert_true(wasp_values_equal(fbits(2.5f), fbits(2.5f), 4, 4, 0.01, &approx));
    assert_int_equal(approx, 0);
    /* NaN equals itself bitwise only. */
    uint64_t nan = dbits(__builtin_nan(""));
    assert_true(wasp_values_equal(nan, nan, 8, 8, 0.01, &approx));
    assert_int_equal(approx, 0);
    assert_false(wasp_values_equal(nan, dbits(1.0), 8, 8, 0.01, &approx));
}

static void deadstore_verdicts(void **state)
{
    (void)state;
    const wasp_analysis_client *c = wasp_analysis_client_for(WASP_AN_DEADSTORE);
    wasp_watch w = {.len = 8};
    int approx;
    assert_true(c->watch_loads);
    assert_int_equal(c->samples, WASP_ACCESS_STORE);
    assert_int_equal(c->on_trap(&w, WASP_ACCESS_STORE, 0, 0.01, &approx), WASP_VERDICT_WASTE);
    assert_int_equal(c->on_trap(&w, WASP_ACCESS_LOAD, 0, 0.01, &approx), WASP_VERDICT_USEFUL);
    /* read-modify-write reads the stored value first */
    assert_int_equal(c->on_trap(&w, WASP_ACCESS_LOAD | WASP_ACCESS_STORE, 0, 0.01, &approx),
                     WASP_VERDICT_USEFUL);
}

static void silentstore_verdicts(void **state)
{
    (void)state;
    const wasp_analysis_client *c = wasp_analysis_client_for(WASP_AN_SILENTSTORE);
    assert_false(c->watch_loads);
    wasp_watch w = {.len = 4};
    int approx;
    c->on_sample(&w, 1, 1);
    c->on_first_trap(&w, 77); /* the sampled store wrote 77 */
    assert_int_equal(c->on_trap(&w, WASP_ACCESS_STORE, 77, 0.01, &approx), WASP_VERDICT_WASTE);
    assert_int_equal(c->on_trap(&w, WASP_ACCESS_STORE, 78, 0.01, &approx), WASP_VERDICT_USEFUL);
    wasp_watch d = {.len = 8, .float_size = 8};
    c->on_first_trap(&d, dbits(2.0));
    assert_int_equal(c->on_trap(&d, WASP_ACCESS_STORE, dbits(2.001), 0.01, &approx),
                     WASP_VERDICT_WASTE);
    assert_int_equal(approx, 1);
}

static void silentload_verdicts(void **state)
{
    (void)state;
    const wasp_analysis_client *c = wasp_analysis_client_for(WASP_AN_SILENTLOAD);
    int approx;
    wasp_watch w = {.len = 4};
    c->on_sample(&w, 5, 1); /* L1 reads 5 */
    c->on_first_trap(&w, 5);
    assert_int_equal(c->on_trap(&w, WASP_ACCESS_LOAD, 5, 0.01, &approx), WASP_VERDICT_WASTE);

    /* A store in between changes the value: the next load is not silent. */
    wasp_watch x = {.len = 4};
    c->on_sample(&x, 5, 1);
    c->on_first_trap(&x, 5);
    assert_int_equal(c->on_trap(&x, WASP_ACCESS_STORE, 6, 0.01, &approx), WASP_VERDICT_WAIT);
    assert_int_equal(c->on_trap(&x, WASP_ACCESS_LOAD, 6, 0.01, &approx), WASP_VERDICT_USEFUL);

    /* A read-modify-write load reads what the previous access left. */
    wasp_watch y = {.len = 4};
    c->on_sample(&y, 5, 1);
    c->on_first_trap(&y, 5);
    assert_int_equal(c->on_trap(&y, WASP_ACCESS_LOAD | WASP_ACCESS_STORE, 6, 0.01, &approx),
                     WASP_VERDICT_WASTE);

    /* Too many stores without a load end the watch. */
    wasp_watch z = {.len = 4};
    c->on_sample(&z, 5, 1);
    c->on_first_trap(&z, 5);
    wasp_verdict v = WASP_VERDICT_WAIT;
    int stores = 0;
    while (v == WASP_VERDICT_WAIT && stores < 100) {
        v = c->on_trap(&z, WASP_ACCESS_STORE, 5, 0.01, &approx);
        stores++;
    }
    assert_int_equal(v, WASP_VERDICT_DROP);
    assert_in_range(stores, 2, 20);

    /* An unreadable first value cannot be judged. */
    wasp_watch u = {.len = 4};
    c->on_sample(&u, 0, 0);
    assert_int_equal(c->on_trap(&u, WASP_ACCESS_LOAD, 0, 0.01, &approx), WASP_VERDICT_DROP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_compare_exactly),
        cmocka_unit_test(floats_compare_within_threshold),
        cmocka_unit_test(deadstore_verdicts),
        cmocka_unit_test(silentstore_verdicts),
        cmocka_unit_test(silentload_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
