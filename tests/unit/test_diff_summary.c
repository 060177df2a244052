/* The diff's summary (src/cli/diff/diff_summary.c, docs/diff.md "The
 * summary"): the places of either profile's first findings, matched by
 * their frame (never by ids), each with its CPU before and after; a place
 * gone from one side's findings has its line's CPU there; a fall of a line's
 * CPU beyond the noise is significant, the same profile twice has none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pairs/profile.h"
#include "cli/commands/diff.h"
#include "diff_string.h" /* render_diff */
#include "profile/cpu_lines.h"
#include "profile/profile.h"

static uint32_t frame_id(wasp_profile *p, const char *m, int line, wasp_frame *out)
{
    *out = (wasp_frame){WASP_FRAME_JAVA, wasp_profile_intern_string(p, m),
                        wasp_profile_intern_string(p, "D.java"), line};
    return wasp_profile_intern_frame(p, out);
}

/* A dead store pair watched at m:line (trapped at line + 3), with `bytes` of
 * 1000 stored and `samples` samples, and the CPU samples counted at the
 * line. */
static void pair_at(wasp_profile *p, const char *m, int line, double bytes, double samples,
                    double cpu)
{
    wasp_frame main9, watch, trap;
    uint32_t root = frame_id(p, "D.main", 9, &main9);
    uint32_t fw[] = {root, frame_id(p, m, line, &watch)};
    uint32_t ft[] = {root, frame_id(p, m, line + 3, &trap)};
    uint32_t w = wasp_profile_intern_context(p, fw, 2, 0);
    uint32_t t = wasp_profile_intern_context(p, ft, 2, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, w, t, bytes, samples);
    wasp_frame chain[] = {main9, watch};
    assert_int_equal(wasp_profile_add_cpu_chain(p, chain, 2, cpu), 0);
}

static wasp_profile *run_profile(void)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_add_counter(p, "samples", 2000);
    wasp_profile_add_counter(p, "armed", 200);
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 2000);
    return p;
}

/* Before: the planted dead store at D.damp:38 (half the bytes stored, its
 * line 20% of the CPU) and a small one at D.other:5. */
static wasp_profile *planted(void)
{
    wasp_profile *p = run_profile();
    pair_at(p, "D.damp", 38, 500, 100, 400);
    pair_at(p, "D.other", 5, 20, 4, 50);
    wasp_totals t = {1000, 520, 0, 200};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    return p;
}

/* After the fix, interned in another order so that every id differs: no
 * pair at D.damp:38, whose line keeps 1% of the CPU; D.other:5 as before. */
static wasp_profile *fixed(void)
{
    wasp_profile *p = run_profile();
    wasp_profile_intern_string(p, "unrelated");
    pair_at(p, "D.other", 5, 20, 4, 60);
    wasp_frame damp38 = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, "D.damp"),
                         wasp_profile_intern_string(p, "D.java"), 38};
    assert_int_equal(wasp_profile_add_cpu_chain(p, &damp38, 1, 20), 0);
    wasp_totals t = {1000, 20, 0, 200};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    return p;
}

static void fixed_line_falls(void **state)
{
    (void)state;
    char *text = render_diff(planted(), fixed(), wasp_diff_render_text, 10);
    const char *summary = strstr(text, "SUMMARY:"), *detail = strstr(text, "\nDETAIL\n");
    assert_non_null(summary);
    assert_non_null(detail);
    assert_true(summary < detail);
    const char *damp = strstr(summary, "  D.damp(D.java:38): CPU 20.0% \xe2\x86\x92 1.0% of the "
                                       "run's CPU samples [significant]\n");
    assert_non_null(damp);
    assert_true(damp < detail);
    assert_non_null(strstr(damp, "      before #1: the value stored here is overwritten at "
                                 "D.java:41 before any read"));
    assert_non_null(strstr(damp, "      after  not among its first 32 findings\n"));
    assert_non_null(strstr(summary, "  D.other(D.java:5): CPU 2.5% \xe2\x86\x92 3.0% of the run's "
                                    "CPU samples [within noise]\n"));
    free(text);

    char *json = render_diff(planted(), fixed(), wasp_diff_render_json, 0);
    assert_non_null(strstr(json, "\"place\": \"D.damp(D.java:38)\""));
    assert_non_null(strstr(json, "\"rank\": null"));
    assert_non_null(strstr(json, "\"significant_changes\": 1\n"));
    free(json);
}

/* The same profile on both sides: every place tested, none significant. */
static void same_profile_no_change(void **state)
{
    (void)state;
    char *text = render_diff(planted(), planted(), wasp_diff_render_text, 10);
    assert_non_null(strstr(text, "  D.damp(D.java:38): CPU 20.0% \xe2\x86\x92 20.0% of the run's "
                                 "CPU samples [within noise]\n"));
    assert_null(strstr(text, "[significant]"));
    free(text);
}

/* A profile whose findings' costs are not measured (an older wasp's, no
 * samples by line) says so instead of testing. */
static void without_cpu_lines_not_tested(void **state)
{
    (void)state;
    wasp_profile *b = wasp_profile_new(), *a = wasp_profile_new();
    wasp_profile *sides[] = {b, a};
    for (int s = 0; s < 2; s++) {
        wasp_profile *p = sides[s];
        wasp_profile_set_meta(p, "events", "deadstore");
        wasp_frame f;
        uint32_t id = frame_id(p, "D.damp", 38, &f);
        uint32_t c = wasp_profile_intern_context(p, &id, 1, 0);
        wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 500, 100);
        wasp_totals t = {1000, 500, 0, 200};
        wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    }
    char *text = render_diff(b, a, wasp_diff_render_text, 10);
    assert_non_null(strstr(text, "  D.damp(D.java:38): CPU n/a \xe2\x86\x92 n/a of the run's CPU "
                                 "samples [not tested]\n"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixed_line_falls),
        cmocka_unit_test(same_profile_no_change),
        cmocka_unit_test(without_cpu_lines_not_tested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
