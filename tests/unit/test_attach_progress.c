/* The progress line of `wasp attach -d SECONDS` (src/cli/attach/attach_progress.c):
 * whole seconds left, rounded up, so it never says "0 s left" while waiting;
 * the samples so far only from a well-formed report of this JVM, in a
 * regular file of this user; an old report removed, nothing else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/attach/attach_progress.h"

static void expect(long long left_ms, const uint64_t *samples, const char *want)
{
    char buf[160];
    int n = wasp_attach_progress_text(buf, sizeof buf, 4242, left_ms, samples);
    assert_string_equal(buf, want);
    assert_int_equal(n, (int)strlen(want));
}

static void test_rounds_up(void **state)
{
    (void)state;
    expect(30000, NULL, "wasp: profiling JVM 4242: 30 s left (Ctrl-C stops sooner)");
    expect(29001, NULL, "wasp: profiling JVM 4242: 30 s left (Ctrl-C stops sooner)");
    expect(29000, NULL, "wasp: profiling JVM 4242: 29 s left (Ctrl-C stops sooner)");
    expect(1, NULL, "wasp: profiling JVM 4242: 1 s left (Ctrl-C stops sooner)");
}

static void test_never_negative(void **state)
{
    (void)state;
    expect(0, NULL, "wasp: profiling JVM 4242: 0 s left (Ctrl-C stops sooner)");
    expect(-5, NULL, "wasp: profiling JVM 4242: 0 s left (Ctrl-C stops sooner)");
}

static void test_samples_so_far(void **state)
{
    (void)state;
    uint64_t n = 1234567, one = 1, zero = 0;
    expect(2500, &n, "wasp: profiling JVM 4242: 3 s left, 1,234,567 samples so far "
                     "(Ctrl-C stops sooner)");
    expect(2500, &one, "wasp: profiling JVM 4242: 3 s left, 1 sample so far "
                       "(Ctrl-C stops sooner)");
    expect(2500, &zero, "wasp: profiling JVM 4242: 3 s left, 0 samples so far "
                        "(Ctrl-C stops sooner)");
}

static void test_truncates_safely(void **state)
{
    (void)state;
    char buf[12];
    memset(buf, 'x', sizeof buf);
    int n = wasp_attach_progress_text(buf, sizeof buf, 1, 5000, NULL);
    assert_true(n > (int)sizeof buf);
    assert_int_equal(strlen(buf), sizeof buf - 1);
}

static void test_parse(void **state)
{
    (void)state;
    uint64_t n = 99;
    const char *good = "wasp-progress 1\npid=4242\nsamples=1500\n";
    assert_int_equal(wasp_attach_progress_parse(good, 4242, &n), 0);
    assert_int_equal(n, 1500);
    /* a newer agent's extra lines are ignored */
    const char *newer = "wasp-progress 1\npid=7\nsamples=0\narmed=3\n";
    assert_int_equal(wasp_attach_progress_parse(newer, 7, &n), 0);
    assert_int_equal(n, 0);
    static const char *const bad[] = {
        "wasp-progress 1\npid=4243\nsamples=1500\n", /* another JVM */
        "wasp-progress 2\npid=4242\nsamples=1500\n", /* another format */
        "wasp-progress 1\npid=4242\nsamples=1500",   /* cut short */
        "wasp-progress 1\npid=4242\nsamples=-1\n",
        "wasp-progress 1\npid=4242\nsamples=12x\n",
        "wasp-progress 1\nsamples=1500\npid=4242\n",
        "wasp-progress 1\npid=4242\nsamples=99999999999999999999999\n", /* overflows */
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        n = 99;
        assert_int_equal(wasp_attach_progress_parse(bad[i], 4242, &n), -1);
        assert_int_equal(n, 99);
    }
}

static char dir[] = "/tmp/wasp-progress-test-XXXXXX";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void test_read_and_forget(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    char prof[128], path[160], link[160];
    snprintf(prof, sizeof prof, "%s/run.wprof", dir);
    assert_int_equal(wasp_attach_progress_path(prof, path, sizeof path), 0);
    assert_string_equal(path + strlen(dir), "/run.wprof.progress");
    char tiny[8];
    assert_int_equal(wasp_attach_progress_path(prof, tiny, sizeof tiny), -1);

    uint64_t n = 0;
    assert_int_equal(wasp_attach_progress_read(path, 4242, &n), -1); /* none yet */
    write_file(path, "wasp-progress 1\npid=4242\nsamples=77\n");
    assert_int_equal(wasp_attach_progress_read(path, 4242, &n), 0);
    assert_int_equal(n, 77);
    /* a link is not followed */
    snprintf(link, sizeof link, "%s/link.progress", dir);
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(wasp_attach_progress_read(link, 4242, &n), -1);
    wasp_attach_progress_forget(link);
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(unlink(link), 0);

    wasp_attach_progress_forget(path);
    assert_int_equal(access(path, F_OK), -1);
    /* anything else at that name is left alone */
    write_file(path, "my notes\n");
    wasp_attach_progress_forget(path);
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(wasp_attach_progress_read(path, 4242, &n), -1);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounds_up),
        cmocka_unit_test(test_never_negative),
        cmocka_unit_test(test_samples_so_far),
        cmocka_unit_test(test_truncates_safely),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_read_and_forget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
