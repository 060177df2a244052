/* The progress line of `wasp attach -d SECONDS` (src/cli/attach.c): whole
 * seconds left, rounded up, so it never says "0 s left" while waiting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cli/attach.h"

static void expect(long long left_ms, const char *want)
{
    char buf[128];
    int n = wasp_attach_progress_text(buf, sizeof buf, 4242, left_ms);
    assert_string_equal(buf, want);
    assert_int_equal(n, (int)strlen(want));
}

static void test_rounds_up(void **state)
{
    (void)state;
    expect(30000, "wasp: profiling JVM 4242: 30 s left (Ctrl-C stops sooner)");
    expect(29001, "wasp: profiling JVM 4242: 30 s left (Ctrl-C stops sooner)");
    expect(29000, "wasp: profiling JVM 4242: 29 s left (Ctrl-C stops sooner)");
    expect(1, "wasp: profiling JVM 4242: 1 s left (Ctrl-C stops sooner)");
}

static void test_never_negative(void **state)
{
    (void)state;
    expect(0, "wasp: profiling JVM 4242: 0 s left (Ctrl-C stops sooner)");
    expect(-5, "wasp: profiling JVM 4242: 0 s left (Ctrl-C stops sooner)");
}

static void test_truncates_safely(void **state)
{
    (void)state;
    char buf[12];
    memset(buf, 'x', sizeof buf);
    int n = wasp_attach_progress_text(buf, sizeof buf, 1, 5000);
    assert_true(n > (int)sizeof buf);
    assert_int_equal(strlen(buf), sizeof buf - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounds_up),
        cmocka_unit_test(test_never_negative),
        cmocka_unit_test(test_truncates_safely),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
