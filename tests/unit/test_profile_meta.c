/* Typed metadata: numbers kept as numbers beside their text, through the
 * file (section MNUM, which older readers skip: they see the text), merging,
 * grouping by line, and the JSON report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/render/render.h" /* the renderers, private to src/cli/ */
#include "profile/group.h"
#include "profile/profile.h"
#include "profile_bytes.h"

static void assert_number(const wasp_profile *p, const char *key, double want, const char *text)
{
    double v = -1;
    assert_true(wasp_profile_get_meta_num(p, key, &v));
    assert_true(v == want);
    assert_string_equal(wasp_profile_get_meta(p, key), text);
}

static wasp_profile *sample(void)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "sampler", "perf");
    wasp_profile_set_meta_num(p, "pid", 4242);
    wasp_profile_set_meta_num(p, "watch_budget", 0.02);
    wasp_profile_set_meta_num(p, "cpu_seconds", 0.1 + 0.2); /* needs 17 digits */
    wasp_profile_set_meta(p, "numa_nodes", "2");             /* text that looks like a number */
    return p;
}

static void test_model(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    assert_number(p, "pid", 4242, "4242");
    assert_number(p, "watch_budget", 0.02, "0.02");
    assert_number(p, "cpu_seconds", 0.1 + 0.2, "0.30000000000000004");
    double v = 7;
    assert_false(wasp_profile_get_meta_num(p, "numa_nodes", &v)); /* text stays text */
    assert_false(wasp_profile_get_meta_num(p, "sampler", &v));
    assert_false(wasp_profile_get_meta_num(p, "absent", &v));
    assert_true(v == 7);
    /* setting text over a number makes it text; and back */
    wasp_profile_set_meta(p, "pid", "unknown");
    assert_false(wasp_profile_get_meta_num(p, "pid", &v));
    assert_string_equal(wasp_profile_get_meta(p, "pid"), "unknown");
    wasp_profile_set_meta_num(p, "pid", -3);
    assert_number(p, "pid", -3, "-3");
    assert_int_equal(p->nmeta, 5);
    wasp_profile_free(p);
}

static void test_file(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char err[256];
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    if (!q)
        fail_msg("read: %s", err);
    assert_number(q, "pid", 4242, "4242");
    assert_number(q, "cpu_seconds", 0.1 + 0.2, "0.30000000000000004");
    double v;
    assert_false(wasp_profile_get_meta_num(q, "numa_nodes", &v));
    assert_string_equal(wasp_profile_get_meta(q, "numa_nodes"), "2");
    wasp_profile_free(q);

    /* MNUM: u32 count, then {str key, f64} for the 3 numbers */
    size_t len, size;
    unsigned char *d = slurp(&len);
    size_t at = find_section(d, len, "MNUM", &size);
    assert_true(at > 0);
    assert_int_equal(size, 12 + 4 + (4 + 3 + 8) + (4 + 12 + 8) + (4 + 11 + 8));
    /* a reader that skips MNUM (an older wasp) sees every value as text */
    memmove(d + at, d + at + size, len - at - size);
    len -= size;
    fix_crc(d, len);
    spill(d, len);
    free(d);
    q = wasp_profile_read(path, err, sizeof err);
    assert_non_null(q);
    assert_false(wasp_profile_get_meta_num(q, "pid", &v));
    assert_string_equal(wasp_profile_get_meta(q, "pid"), "4242");
    assert_string_equal(wasp_profile_get_meta(q, "watch_budget"), "0.02");
    wasp_profile_free(q);
    wasp_profile_free(p);

    /* no numbers, no MNUM: the file is what older wasps wrote */
    p = wasp_profile_new();
    wasp_profile_set_meta(p, "pid", "1");
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    d = slurp(&len);
    assert_int_equal(find_section(d, len, "MNUM", &size), 0);
    free(d);
    wasp_profile_free(p);
}

/* A metadata number that is NaN or infinite in the file (no count, size or
 * time is) makes the profile corrupt, with the key named. */
static void test_file_non_finite(void **state)
{
    (void)state;
    static const uint64_t bad[] = {0x7ff8000000000000ull /* NaN */,
                                   0x7ff0000000000000ull /* +inf */,
                                   0xfff0000000000000ull /* -inf */};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wasp_profile *p = wasp_profile_new();
        wasp_profile_set_meta_num(p, "pid", 4242);
        char err[256];
        assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
        wasp_profile_free(p);
        size_t len, size;
        unsigned char *d = slurp(&len);
        size_t at = find_section(d, len, "MNUM", &size);
        assert_true(at > 0);
        /* header, count, {str "pid", f64}: the f64 is the section's last 8 bytes */
        assert_int_equal(size, 12 + 4 + (4 + 3 + 8));
        for (int b = 0; b < 8; b++)
            d[at + size - 8 + b] = (unsigned char)(bad[i] >> (8 * b));
        fix_crc(d, len);
        spill(d, len);
        free(d);
        wasp_profile *q = wasp_profile_read(path, err, sizeof err);
        if (q)
            fail_msg("a profile whose metadata pid is %s was read", i ? "infinite" : "NaN");
        assert_non_null(strstr(err, "corrupt (section MNUM: pid is not a finite number)"));
    }
}

static void test_merge_and_group(void **state)
{
    (void)state;
    wasp_profile *a = wasp_profile_new(), *b = sample();
    wasp_profile_set_meta(a, "sampler", "timer");
    wasp_profile_set_meta_num(a, "watch_budget", 0.5);
    assert_int_equal(wasp_profile_merge(a, b), 0);
    assert_string_equal(wasp_profile_get_meta(a, "sampler"), "timer"); /* dst's kept */
    assert_number(a, "watch_budget", 0.5, "0.5");
    assert_number(a, "pid", 4242, "4242"); /* src-only: copied as a number */
    wasp_profile *g = wasp_profile_group_by_line(a);
    assert_non_null(g);
    assert_number(g, "pid", 4242, "4242");
    double v;
    assert_false(wasp_profile_get_meta_num(g, "numa_nodes", &v));
    wasp_profile_free(g);
    wasp_profile_free(a);
    wasp_profile_free(b);
}

static void test_json(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char *buf = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&buf, &n);
    assert_int_equal(wasp_render_json(p, 0, out), 0);
    fclose(out);
    assert_non_null(strstr(buf, "\"pid\": 4242,"));
    assert_non_null(strstr(buf, "\"watch_budget\": 0.02,"));
    assert_non_null(strstr(buf, "\"cpu_seconds\": 0.30000000000000004,"));
    assert_non_null(strstr(buf, "\"numa_nodes\": \"2\""));
    assert_non_null(strstr(buf, "\"sampler\": \"perf\""));
    free(buf);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model),
        cmocka_unit_test_setup_teardown(test_file, make_file, remove_file),
        cmocka_unit_test_setup_teardown(test_file_non_finite, make_file, remove_file),
        cmocka_unit_test(test_merge_and_group),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
