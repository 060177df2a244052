/* Entries whose Java stack could not be walked rank after the others
 * (wasp_profile_context_walked, profile.h): the samples of every place whose
 * walk failed the same way share one context, and their sum is no place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "analysis/objects/profile.h"
#include "pairs_view.h"
#include "profile/profile.h"

static uint32_t frame(wasp_profile *p, uint32_t kind, const char *name, int line)
{
    wasp_frame f = {kind, wasp_profile_intern_string(p, name), 0, line};
    return wasp_profile_intern_frame(p, &f);
}

/* A walked context: S.main -> S.work:line. */
static uint32_t walked(wasp_profile *p, int line)
{
    uint32_t fr[] = {frame(p, WASP_FRAME_JAVA, "S.main", 3), frame(p, WASP_FRAME_JAVA, "S.work", line)};
    return wasp_profile_intern_context(p, fr, 2, 0);
}

/* What the agent writes for a failed walk: the reason, then the native leaf. */
static uint32_t unwalked(wasp_profile *p)
{
    uint32_t fr[] = {frame(p, WASP_FRAME_UNKNOWN, WASP_UNWALKED_PREFIX ": deoptimization in progress]", -1),
                     frame(p, WASP_FRAME_NATIVE, "Runtime1::counter_overflow", -1)};
    return wasp_profile_intern_context(p, fr, 2, 0);
}

static void test_walked(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t w = walked(p, 7), u = unwalked(p);
    uint32_t other = frame(p, WASP_FRAME_UNKNOWN, "[not tracked: class from the object header]", -1);
    uint32_t cls_site = wasp_profile_intern_context(p, &other, 1, 0);
    assert_true(wasp_profile_context_walked(p, w));
    assert_false(wasp_profile_context_walked(p, u));
    assert_true(wasp_profile_context_walked(p, cls_site)); /* another kind of unknown frame */
    assert_false(wasp_profile_context_walked(p, 12345));    /* out of range */
    wasp_profile_free(p);
}

static void test_pairs_and_accesses(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t w1 = walked(p, 7), w2 = walked(p, 9), u = unwalked(p);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, u, u, 900, 9);   /* the heaviest */
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, w1, u, 800, 8);  /* one side unwalked */
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, w1, w1, 100, 1);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, w2, w2, 300, 3);
    uint32_t n;
    uint32_t *o = wasp_profile_sorted_pairs(p, WASP_AN_DEADSTORE, &n);
    assert_int_equal(n, 4);
    double expect[] = {300, 100, 900, 800}; /* walked by bytes, then the others by bytes */
    for (uint32_t i = 0; i < n; i++)
        assert_true(wasp_profile_pair(p, o[i])->bytes == expect[i]);
    free(o);

    uint32_t site = wasp_profile_intern_site(p, w1, wasp_profile_intern_string(p, "int[]"));
    wasp_profile_add_site_access(p, site, u, 50, 0);
    wasp_profile_add_site_access(p, site, w2, 5, 0);
    o = wasp_profile_sorted_site_accesses(p, site, &n);
    assert_int_equal(n, 2);
    assert_int_equal(wasp_profile_site_accesses(p, &(uint32_t){0})[o[0]].access_ctx, w2);
    free(o);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walked),
        cmocka_unit_test(test_pairs_and_accesses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
