/* A profile whose measures are negative or not finite is damaged: the reader
 * refuses it with a cause, rather than printing "-1.0 MB stored" or "? B". */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "pairs_view.h"

static void refused_when(double bytes, const char *label)
{
    char path[] = "/tmp/wasp-numbers-XXXXXX", err[512];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    wasp_profile *p = wasp_profile_new();
    wasp_totals t = {.bytes = bytes, .wasted = 1, .wasted_approx = 0, .pairs = 1};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    int wrote = wasp_profile_write(p, path, err, sizeof err);
    wasp_profile_free(p);
    if (wrote == 0) { /* the writer may refuse already; if not, the reader must */
        wasp_profile *q = wasp_profile_read(path, err, sizeof err);
        if (q)
            fail_msg("a profile with %s total bytes was read", label);
        assert_non_null(strstr(err, "negative or non-finite"));
    }
    unlink(path);
}

static void negative_and_non_finite_totals_are_corrupt(void **state)
{
    (void)state;
    refused_when(-1048576.0, "negative");
    refused_when(NAN, "NaN");
    refused_when(INFINITY, "infinite");
}

static void ordinary_totals_read(void **state)
{
    (void)state;
    char path[] = "/tmp/wasp-numbers-XXXXXX", err[512];
    int fd = mkstemp(path);
    close(fd);
    wasp_profile *p = wasp_profile_new();
    wasp_totals t = {.bytes = 4096, .wasted = 1024, .wasted_approx = 0, .pairs = 3};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    wasp_profile_free(p);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    assert_non_null(q);
    assert_true(totals_of(q, WASP_AN_DEADSTORE).bytes == 4096);
    wasp_profile_free(q);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(negative_and_non_finite_totals_are_corrupt),
        cmocka_unit_test(ordinary_totals_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
