/* `wasp diff` of a view's sub view (src/cli/diff/view_diff.c, issue 39):
 * locks' blocked time compared as a section of its own — its rows matched
 * by class and kind across files whose ids differ, its shares of its own
 * total (blocked seconds, not lock samples), its noise test on its samples,
 * its text after the locks' and its JSON inside the locks' object; left out
 * when neither profile measured it, "not profiled" on the side that did not. */
#include "diff_string.h" /* cmocka, render_diff */

#include "analysis/locks/profile.h"
#include "catalog/names.h"
#include "cli/commands/diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t str(wasp_profile *p, const char *s)
{
    return wasp_profile_intern_string(p, s);
}

static uint32_t context(wasp_profile *p, const char *method, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, str(p, method), str(p, "D.java"), line};
    uint32_t fr = wasp_profile_intern_frame(p, &f);
    return wasp_profile_intern_context(p, &fr, 1, str(p, ""));
}

/* samples of a thread blocked on cls (kind where), 10 ms each. */
static void blocked(wasp_profile *p, const char *cls, const char *where, double samples)
{
    wasp_lock_blocked b = {str(p, cls), str(p, where), context(p, "D.take", 20), 0, samples,
                           samples * 0.01};
    assert_int_equal(wasp_profile_add_lock_blocked(p, &b), 0);
}

/* A locks profile: 8 lock samples on Hot (the locks' own view), and blocked
 * time on A (a monitor) and B (a park) when a or b > 0. */
static wasp_profile *locks_profile(double a, double b, bool looked)
{
    wasp_profile *p = wasp_profile_new();
    str(p, a > b ? "padding so that the ids differ" : "");
    wasp_lock_entry e = {str(p, "Hot"), str(p, ""), context(p, "D.sync", 3), 8, 0, 0};
    assert_int_equal(wasp_profile_add_lock(p, &e), 0);
    if (b > 0)
        blocked(p, "B", WASP_LOCK_PARK, b);
    if (a > 0)
        blocked(p, "A", WASP_LOCK_MONITOR, a);
    if (looked)
        wasp_profile_set_meta(p, "locks_blocked_looks", "1000");
    return p;
}

static int locks_id(void)
{
    return wasp_analysis_id_from_name("locks");
}

/* The entry of section s whose side's class key names cls. */
static const wasp_diff_entry *entry_of(const wasp_diff *d, int s, const char *cls)
{
    char key[32];
    snprintf(key, sizeof key, "\x1c%s\x1c", cls);
    for (uint32_t k = 0; k < d->n; k++)
        if (d->entries[k].section == s && strstr(d->entries[k].key, key))
            return &d->entries[k];
    fail_msg("no entry of section %d for class %s", s, cls);
    return NULL;
}

static void test_matched_on_own_total(void **state)
{
    (void)state;
    wasp_profile *b = locks_profile(300, 100, true), *a = locks_profile(100, 300, true);
    wasp_diff d;
    assert_int_equal(wasp_diff_build(b, a, false, &d), 0);
    const int locks = locks_id(), sub = locks + WASP_ANALYSES;
    assert_true(d.an[sub].shown[0] && d.an[sub].shown[1]);
    assert_float_equal(d.an[sub].total[0], 4.0, 1e-9); /* seconds blocked */
    assert_float_equal(d.an[sub].samples[1], 400, 1e-9);
    assert_float_equal(d.an[locks].total[0], 8, 1e-9); /* the locks' own: lock samples */

    const wasp_diff_entry *x = entry_of(&d, sub, "A");
    assert_int_equal(x->analysis, locks);
    assert_int_equal(x->rank[0], 1);
    assert_int_equal(x->rank[1], 2);
    assert_float_equal(x->share[0], 0.75, 1e-9);
    assert_float_equal(x->share[1], 0.25, 1e-9);
    assert_float_equal(x->samples[0], 300, 1e-9);
    assert_int_equal(wasp_diff_change_of(x), WASP_DIFF_SHRANK);
    assert_true(x->significant); /* 75% of 400 samples against 25% */
    assert_int_equal(wasp_diff_change_of(entry_of(&d, sub, "B")), WASP_DIFF_GREW);
    /* the locks' own row did not move */
    assert_int_equal(wasp_diff_change_of(entry_of(&d, locks, "Hot")), WASP_DIFF_UNCHANGED);
    /* the sub's entries after the locks' own */
    for (uint32_t k = 1; k < d.n; k++)
        assert_true(d.entries[k - 1].section <= d.entries[k].section);
    wasp_diff_free(&d);
    wasp_profile_free(b);
    wasp_profile_free(a);
}

/* A small move of blocked time is within noise: 12 of 40 samples against 10 of 40. */
static void test_noise(void **state)
{
    (void)state;
    wasp_profile *b = locks_profile(12, 28, true), *a = locks_profile(10, 30, true);
    wasp_diff d;
    assert_int_equal(wasp_diff_build(b, a, false, &d), 0);
    const wasp_diff_entry *x = entry_of(&d, locks_id() + WASP_ANALYSES, "A");
    assert_int_equal(wasp_diff_change_of(x), WASP_DIFF_SHRANK);
    assert_false(x->significant);
    assert_true(x->p_value > 0.5);
    wasp_diff_free(&d);
    wasp_profile_free(b);
    wasp_profile_free(a);
}

/* The diff of a 3:1 mix of blocked time against 1:3, as r writes it: its
 * text from the locks' own section (or object) on, which the sub's follows. */
static char *moved(diff_renderer r, const char *own, const char **sub, const char *sub_head)
{
    char *s = render_diff(locks_profile(300, 100, true), locks_profile(100, 300, true), r, 0);
    const char *o = strstr(s, own);
    *sub = strstr(s, sub_head);
    assert_non_null(o);
    assert_non_null(*sub);
    assert_true(o < *sub);
    return s;
}

static void test_text(void **state)
{
    (void)state;
    const char *sub;
    char *s = moved(wasp_diff_render_text, "\nLocks: 8 \xe2\x86\x92 8 samples\n", &sub,
                    "\nTime blocked on locks: 4 \xe2\x86\x92 4 seconds\n"
                    "  2 significant changes (1 shrank, 1 grew)");
    assert_non_null(strstr(sub, "SHRANK    class #1 before, #2 after: 75.0% \xe2\x86\x92 25.0% "
                                "of blocked time (-50.0 points; 3 \xe2\x86\x92 1)\n"
                                "      class A\n      kind monitor\n"));
    free(s);
}

/* Nested one level deeper than the analyses, in the locks' object. */
static void test_json(void **state)
{
    (void)state;
    const char *sub;
    char *s = moved(wasp_diff_render_json, "\"locks\": {", &sub,
                    "\"blocked\": {\n        \"title\": \"Time blocked on locks\",\n"
                    "        \"unit\": \"seconds\"");
    assert_non_null(strstr(sub, "\"class\": \"A\""));
    assert_non_null(strstr(sub, "\"kind\": \"monitor\""));
    assert_non_null(strstr(s, "\"significant_changes\": 2,\n  \"significant\"")); /* the whole diff */
    free(s);
}

/* Neither profile measured blocked time: no section. One did: the other
 * side is "not profiled", and nothing can be tested. */
static void test_not_measured(void **state)
{
    (void)state;
    char *s = render_diff(locks_profile(0, 0, false), locks_profile(0, 0, false),
                          wasp_diff_render_text, 0);
    assert_non_null(strstr(s, "\nLocks:"));
    assert_null(strstr(s, "Time blocked"));
    free(s);
    s = render_diff(locks_profile(0, 0, false), locks_profile(100, 300, true),
                    wasp_diff_render_text, 0);
    assert_non_null(strstr(s, "\nTime blocked on locks: (not profiled before) 0 \xe2\x86\x92 4 "
                              "seconds\n  0 significant changes; 2 within noise"));
    assert_non_null(strstr(s, "APPEARED  class #1 after"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matched_on_own_total),
        cmocka_unit_test(test_noise),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_not_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
