/* The summary's CPU share of a pair finding (issue 40, docs/findings.md):
 * with the samples by line (profile/cpu_lines.h) it is the finding's line's
 * samples over every sample counted, code inlined into the line included,
 * with Wilson's interval for those counts; the pairs' weights do not enter
 * it; an access in a native method adds that method's samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pairs/profile.h"
#include "cli/commands/report.h"
#include "cli/render/render.h"
#include "profile/cpu_lines.h"
#include "profile/profile.h"

static wasp_frame at_line(wasp_profile *p, const char *method, int line)
{
    return (wasp_frame){WASP_FRAME_JAVA, wasp_profile_intern_string(p, method),
                        wasp_profile_intern_string(p, "Main.java"), line};
}

static void line_share_of_all_samples(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_add_counter(p, "samples", 1000);
    wasp_profile_add_counter(p, "armed", 100);
    wasp_frame main10 = at_line(p, "pkg.Main.main", 10), work42 = at_line(p, "pkg.Main.work", 42),
               work43 = at_line(p, "pkg.Main.work", 43);
    uint32_t root = wasp_profile_intern_frame(p, &main10);
    uint32_t f42[] = {root, wasp_profile_intern_frame(p, &work42)};
    uint32_t f43[] = {root, wasp_profile_intern_frame(p, &work43)};
    uint32_t c42 = wasp_profile_intern_context(p, f42, 2, 0);
    uint32_t c43 = wasp_profile_intern_context(p, f43, 2, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c42, c43, 3000, 90);
    wasp_totals t = {10000, 3000, 0, 100};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    /* 2,000 samples: 400 at line 42 with a call inlined into it, 100 more
     * at line 42 itself, 900 at line 43. */
    wasp_frame inlined[] = {at_line(p, "pkg.Util.get", 7), work42, main10};
    wasp_frame own[] = {work42, main10}, next[] = {work43, main10};
    wasp_profile_add_cpu_chain(p, inlined, 3, 400);
    wasp_profile_add_cpu_chain(p, own, 2, 100);
    wasp_profile_add_cpu_chain(p, next, 2, 900);
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 2000);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    wasp_report_opts o = {.format = WASP_FORMAT_TEXT};
    assert_int_equal(wasp_report_render(p, &o, f), 0);
    fclose(f);
    if (!strstr(buf, "of the program's 1,000 CPU samples (2,000 counted by line)"))
        fail_msg("no count by line in the heading:\n%s", buf);
    /* 500 / 2,000 = 25%: Wilson(500, 2000) = 23.2-26.9% */
    if (!strstr(buf, "(Main.java:42): the value stored here is overwritten at Main.java:43 before "
                     "any read (30.0% of the bytes stored); 25.0% of CPU (23.2\xe2\x80\x93"
                     "26.9%)\n"))
        fail_msg("no line share in:\n%s", buf);
    free(buf);
    wasp_profile_free(p);
}

/* An access in a native method the place calls (a store by zlib under
 * Deflater.deflateBytesBytes): its native code's samples count at the
 * method (its wrapper, no line: cpu.via_caller), and the finding's cost is
 * the place's line's samples and that method's. A native method's samples
 * do not count for a finding whose access is in Java code. */
static void native_leaf_counts_its_method(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_add_counter(p, "samples", 1000);
    wasp_profile_add_counter(p, "armed", 100);
    wasp_frame main10 = at_line(p, "pkg.Main.main", 10), enc42 = at_line(p, "pkg.Main.encode", 42),
               deflate = at_line(p, "java.util.zip.Deflater.deflateBytesBytes", -1),
               enc50 = at_line(p, "pkg.Main.encode", 50);
    wasp_frame memmove = {WASP_FRAME_NATIVE, wasp_profile_intern_string(p, "memmove"),
                          wasp_profile_intern_string(p, "libc.so.6"), -1};
    uint32_t root = wasp_profile_intern_frame(p, &main10);
    uint32_t fn[] = {root, wasp_profile_intern_frame(p, &enc42), wasp_profile_intern_frame(p, &deflate),
                     wasp_profile_intern_frame(p, &memmove)};
    uint32_t fj[] = {root, wasp_profile_intern_frame(p, &enc50)};
    uint32_t cn = wasp_profile_intern_context(p, fn, 4, 0);
    uint32_t cj = wasp_profile_intern_context(p, fj, 2, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, cn, cn, 3000, 90);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, cj, cj, 2000, 10);
    wasp_totals t = {10000, 5000, 0, 100};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    /* 2,000 samples: 100 at line 42, 800 in the native method, 300 at line 50. */
    wasp_frame at42[] = {enc42, main10}, at50[] = {enc50, main10};
    wasp_profile_add_cpu_chain(p, at42, 2, 100);
    wasp_profile_add_cpu_chain(p, &deflate, 1, 800);
    wasp_profile_add_cpu_chain(p, at50, 2, 300);
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 2000);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    wasp_report_opts o = {.format = WASP_FORMAT_TEXT};
    assert_int_equal(wasp_report_render(p, &o, f), 0);
    fclose(f);
    /* 900 / 2,000 = 45%: Wilson(900, 2000) = 42.8-47.2%; 300 / 2,000 = 15%:
     * 13.5-16.6% */
    if (!strstr(buf, "(Main.java:42): the value stored here is overwritten by this line again "
                     "before any read (30.0% of the bytes stored); 45.0% of CPU (42.8\xe2\x80\x93"
                     "47.2%)\n"))
        fail_msg("the native method's samples not in the finding's:\n%s", buf);
    if (!strstr(buf, "(Main.java:50): the value stored here is overwritten by this line again "
                     "before any read (20.0% of the bytes stored); 15.0% of CPU (13.5\xe2\x80\x93"
                     "16.6%); few samples: 10\n"))
        fail_msg("a Java access's finding has other samples than its line's:\n%s", buf);
    free(buf);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(line_share_of_all_samples),
        cmocka_unit_test(native_leaf_counts_its_method),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
