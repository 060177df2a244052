/* Halving a batch that fails whole (common/batch_split.h): the failing items
 * alone are left out, an error no item's fault stops at once, and the calls
 * stay within their bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/batch_split.h"

enum { ITEM_ERROR = 62, GLOBAL_ERROR = 99 };

typedef struct fake {
    int bad[1024]; /* 1: an item the call fails on */
    int done[1024]; /* times the call went through for each item */
    int global;    /* 1: every call fails with GLOBAL_ERROR */
} fake;

static int call(void *ctx, void *items, size_t n)
{
    fake *f = ctx;
    const int *ids = items;
    if (f->global)
        return GLOBAL_ERROR;
    for (size_t i = 0; i < n; i++)
        if (f->bad[ids[i]])
            return ITEM_ERROR; /* all or nothing, as RetransformClasses */
    for (size_t i = 0; i < n; i++)
        f->done[ids[i]]++;
    return 0;
}

static int item_error(int e)
{
    return e == ITEM_ERROR;
}

static void ids(int *a, int n)
{
    for (int i = 0; i < n; i++)
        a[i] = i;
}

static void all_good_is_one_call(void **state)
{
    (void)state;
    static fake f;
    memset(&f, 0, sizeof f);
    int a[500];
    ids(a, 500);
    wasp_batch_result r = wasp_batch_split(a, 500, sizeof *a, 64, call, item_error, &f);
    assert_int_equal(r.done, 500);
    assert_int_equal(r.left_out, 0);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.first_error, 0);
    assert_int_equal(r.stopped, 0);
}

static void failing_items_alone_are_left_out(void **state)
{
    (void)state;
    static fake f;
    memset(&f, 0, sizeof f);
    int a[500];
    ids(a, 500);
    f.bad[7] = f.bad[255] = f.bad[499] = 1;
    wasp_batch_result r = wasp_batch_split(a, 500, sizeof *a, 64, call, item_error, &f);
    assert_int_equal(r.done, 497);
    assert_int_equal(r.left_out, 3);
    assert_int_equal(r.first_error, ITEM_ERROR);
    assert_int_equal(r.stopped, 0);
    for (int i = 0; i < 500; i++)
        assert_int_equal(f.done[i], f.bad[i] ? 0 : 1); /* each good item once */
    /* Halving: about 2 log2(n) calls a failing item, not one a class. */
    assert_true(r.calls <= 3 * 2 * 9 + 1);
}

static void global_error_stops_at_once(void **state)
{
    (void)state;
    static fake f;
    memset(&f, 0, sizeof f);
    f.global = 1;
    int a[500];
    ids(a, 500);
    wasp_batch_result r = wasp_batch_split(a, 500, sizeof *a, 64, call, item_error, &f);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.done, 0);
    assert_int_equal(r.left_out, 500);
    assert_int_equal(r.first_error, GLOBAL_ERROR);
    assert_int_equal(r.stopped, 1);
}

static void calls_are_bounded(void **state)
{
    (void)state;
    static fake f;
    memset(&f, 0, sizeof f);
    int a[1024];
    ids(a, 1024);
    for (int i = 0; i < 1024; i += 2)
        f.bad[i] = 1; /* every other item: halving alone would take ~2,000 calls */
    wasp_batch_result r = wasp_batch_split(a, 1024, sizeof *a, 40, call, item_error, &f);
    assert_int_equal(r.calls, 40);
    assert_int_equal(r.stopped, 1);
    assert_int_equal(r.done + r.left_out, 1024);
    int done = 0;
    for (int i = 0; i < 1024; i++) {
        assert_true(f.done[i] <= 1);
        assert_true(!f.bad[i] || f.done[i] == 0);
        done += f.done[i];
    }
    assert_int_equal(done, (int)r.done);
}

static void empty_batch_calls_nothing(void **state)
{
    (void)state;
    static fake f;
    memset(&f, 0, sizeof f);
    wasp_batch_result r = wasp_batch_split(NULL, 0, sizeof(int), 64, call, item_error, &f);
    assert_int_equal(r.calls, 0);
    assert_int_equal(r.done + r.left_out, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_good_is_one_call),
        cmocka_unit_test(failing_items_alone_are_left_out),
        cmocka_unit_test(global_error_stops_at_once),
        cmocka_unit_test(calls_are_bounded),
        cmocka_unit_test(empty_batch_calls_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
