/* Lock acquisitions estimated from acquiring samples (issue 41): the
 * arithmetic from a profile's metadata (a CPU-time sampler's period over the
 * calibrated cost of a compare-and-swap; a PMU's event period), which events
 * count a `lock cmpxchg`, the ranking's and the report's figures (releases
 * and slow-path samples are not acquisitions counted here), and the
 * calibration itself (a plausible cost, within its CPU budget). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render_string.h"

#include "analysis/locks/cas_cost.h"
#include "analysis/locks/estimate.h"
#include "analysis/locks/profile.h"
#include "analysis/locks/ranking.h"
#include "profile/profile.h"

/* Lock entries: class, slow-path function ("": the fast path), the acquiring
 * method's line in Main.java, and acquiring, releasing and slow samples. */
typedef struct planted_entry {
    const char *cls, *where, *method;
    int line;
    double acquire, release, slow;
} planted_entry;

static wasp_profile *with_entries(const planted_entry *e, size_t n)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "locks");
    for (size_t i = 0; i < n; i++) {
        wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, e[i].method),
                        wasp_profile_intern_string(p, "Main.java"), e[i].line};
        uint32_t frame = wasp_profile_intern_frame(p, &f);
        wasp_lock_entry l = {wasp_profile_intern_string(p, e[i].cls),
                             wasp_profile_intern_string(p, e[i].where),
                             wasp_profile_intern_context(p, &frame, 1, 0), e[i].acquire,
                             e[i].release, e[i].slow};
        assert_int_equal(wasp_profile_add_lock(p, &l), 0);
    }
    return p;
}

/* Hot: 60 acquiring samples (58 releasing, 30 slow), Warm: 30 (30). */
static wasp_profile *planted(void)
{
    static const planted_entry e[] = {
        {"Hot", "", "Main.hot", 10, 60, 58, 0},
        {"Hot", "ObjectMonitor::TrySpin", "Main.hot", 10, 0, 0, 30},
        {"Warm", "", "Main.warm", 20, 30, 30, 0},
    };
    return with_entries(e, sizeof e / sizeof e[0]);
}

/* A CPU-time sampler: period_us x 1000 / locks_cas_ns a sample; a PMU:
 * its event period; without either, not known. */
static void test_per_sample(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    assert_true(isnan(wasp_lock_acquisitions_per_sample(p)));
    wasp_profile_set_meta_rounded(p, "period_us", 1000, "%.0f");
    assert_true(isnan(wasp_lock_acquisitions_per_sample(p))); /* no cost measured */
    wasp_profile_set_meta_rounded(p, "locks_cas_ns", 12.5, "%.2f");
    assert_float_equal(wasp_lock_acquisitions_per_sample(p), 80000, 1e-6);
    wasp_profile_set_meta_rounded(p, "period_us", 2000, "%.0f"); /* twice the period: twice */
    assert_float_equal(wasp_lock_acquisitions_per_sample(p), 160000, 1e-6);
    wasp_profile_set_meta_rounded(p, "locks_cas_ns", 0, "%.2f"); /* a failed calibration */
    assert_true(isnan(wasp_lock_acquisitions_per_sample(p)));
    wasp_profile_free(p);

    wasp_profile *pmu = wasp_profile_new();
    wasp_profile_set_meta(pmu, "period", "20011 events");
    assert_true(isnan(wasp_lock_acquisitions_per_sample(pmu))); /* an event that does not count it */
    wasp_profile_set_meta_rounded(pmu, "locks_events_per_sample", 20011, "%.0f");
    assert_float_equal(wasp_lock_acquisitions_per_sample(pmu), 20011, 1e-6);
    wasp_profile_free(pmu);
}

static void test_events(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        bool counts;
    } cases[] = {
        {"MEM_INST_RETIRED:ANY", true},       {"MEM_INST_RETIRED:ALL_STORES", true},
        {"MEM_UOPS_RETIRED:ALL_STORES", true}, {"mem_inst_retired:lock_loads", true},
        {"INST_RETIRED:PREC_DIST", true},      {"ibs_op", false},
        {"MEM_LOAD_RETIRED:L1_MISS", false},   {"sw:page-faults", false},
        {"", false},                           {NULL, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (wasp_lock_event_counts_cas(cases[i].name) != cases[i].counts)
            fail_msg("%s", cases[i].name ? cases[i].name : "(null)");
    /* From the PMU source's detail, as pmu.c writes it. */
    assert_true(wasp_lock_pmu_detail_counts_cas("pmu: MEM_INST_RETIRED:ANY every 20011 events"));
    assert_true(wasp_lock_pmu_detail_counts_cas(
        "pmu: MEM_UOPS_RETIRED:ALL_STORES every 20011 events, each interval drawn in (1 +- 50%)"));
    assert_false(wasp_lock_pmu_detail_counts_cas("pmu: ibs_op every 20011 events"));
    assert_false(wasp_lock_pmu_detail_counts_cas("pmu: sw:page-faults every 1 events"));
    assert_false(wasp_lock_pmu_detail_counts_cas("perf task-clock, period 1ms"));
    assert_false(wasp_lock_pmu_detail_counts_cas(NULL));
}

/* Each class's and context's acquisitions are its acquiring samples times
 * the factor: releases and slow-path samples add none (an estimate that
 * counted them would give Hot 148 or 118 samples' worth, not 60). */
static void test_ranking(void **state)
{
    (void)state;
    wasp_profile *p = planted();
    wasp_profile_set_meta_rounded(p, "period_us", 1000, "%.0f");
    wasp_profile_set_meta_rounded(p, "locks_cas_ns", 10, "%.2f");
    wasp_lock_ranking r;
    assert_int_equal(wasp_lock_rank(p, &r), 0);
    assert_float_equal(r.per_sample, 1e5, 1e-6);
    assert_string_equal(p->strings[r.classes[0].sum.cls], "Hot");
    assert_float_equal(wasp_lock_acquisitions(&r, &r.classes[0].sum), 6e6, 1e-3);
    assert_float_equal(wasp_lock_acquisitions(&r, &r.classes[0].contexts[0]), 6e6, 1e-3);
    assert_float_equal(wasp_lock_acquisitions(&r, &r.classes[1].sum), 3e6, 1e-3);
    wasp_lock_sum all = {.acquire = r.acquire, .release = r.release, .slow = r.slow};
    assert_float_equal(wasp_lock_acquisitions(&r, &all), 9e6, 1e-3);
    wasp_lock_ranking_free(&r);
    wasp_profile_free(p);

    /* The PMU's: 7 acquiring samples of one in 20,011 memory instructions. */
    static const planted_entry seven = {"Hot", "", "Main.hot", 10, 7, 6, 0};
    wasp_profile *pmu = with_entries(&seven, 1);
    wasp_profile_set_meta_rounded(pmu, "locks_events_per_sample", 20011, "%.0f");
    assert_int_equal(wasp_lock_rank(pmu, &r), 0);
    assert_float_equal(wasp_lock_acquisitions(&r, &r.classes[0].sum), 140077, 1e-6);
    wasp_lock_ranking_free(&r);
    wasp_profile_free(pmu);
}

static void expect(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("no \"%s\" in:\n%s", part, text);
}

/* The JSON has "acquisitions" for the section, each class and context
 * (null when not known); the text and the summary say it to three
 * significant digits, as an estimate. */
static void test_rendered(void **state)
{
    (void)state;
    wasp_profile *p = planted();
    wasp_profile_set_meta_rounded(p, "period_us", 1000, "%.0f");
    wasp_profile_set_meta_rounded(p, "locks_cas_ns", 7.77, "%.2f");
    char *json = render_string(p, WASP_FORMAT_JSON, WASP_BY_LINE, NULL);
    /* 90 x 1e6 / 7.77 = 11,583,011.58...; Hot 60: 7,722,007.72... */
    expect(json, "\"acquisitions\": 11583011.5");
    expect(json, "\"acquisitions\": 7722007.7");
    free(json);
    char *text = render_string(p, WASP_FORMAT_TEXT, WASP_BY_LINE, NULL);
    expect(text, "about 11,600,000 acquisitions (estimated: ");
    expect(text, "7.77 ns");
    expect(text, "releases 58  ~7,720,000 acquisitions (est.)\n");
    expect(text, "about 7,720,000 acquisitions (est.)"); /* the summary's finding */
    free(text);
    wasp_profile_free(p);

    /* A class whose samples are all in the slow path (contended): no
     * acquiring sample to scale, so no estimate, not "about 0". */
    static const planted_entry slow[] = {
        {"Hot", "", "Main.hot", 10, 60, 58, 0},
        {"Waited", "ObjectMonitor::enter", "Main.wait", 30, 0, 0, 40},
    };
    wasp_profile *contended = with_entries(slow, 2);
    wasp_profile_set_meta_rounded(contended, "period_us", 1000, "%.0f");
    wasp_profile_set_meta_rounded(contended, "locks_cas_ns", 7.77, "%.2f");
    text = render_string(contended, WASP_FORMAT_TEXT, WASP_BY_LINE, NULL);
    expect(text, "locks Waited: 40.0% of the lock samples, slow path 100.0%; ");
    expect(text, "slow 40 (100.0%)  releases 0\n");
    free(text);
    wasp_profile_free(contended);

    wasp_profile *old = planted(); /* a profile from before the estimate */
    json = render_string(old, WASP_FORMAT_JSON, WASP_BY_LINE, NULL);
    expect(json, "\"acquisitions\": null");
    free(json);
    text = render_string(old, WASP_FORMAT_TEXT, WASP_BY_LINE, NULL);
    if (strstr(text, "acquisitions"))
        fail_msg("an estimate without its basis:\n%s", text);
    free(text);
    wasp_profile_free(old);
}

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The calibration: a cost between 1 and 500 ns (a `lock cmpxchg` on a
 * cache-hot line is tens of cycles anywhere), within its budget (the
 * agent's start-up allows 20 ms; it asks for 10). */
static void test_calibration(void **state)
{
    (void)state;
    double t0 = cpu_ms();
    double ns = wasp_lock_cas_cost_ns(10 * 1000 * 1000);
    double took = cpu_ms() - t0;
    if (!(ns > 1 && ns < 500) || took > 20)
        fail_msg("%.3f ns a compare-and-swap, measured in %.1f ms of CPU", ns, took);
    print_message("one compare-and-swap: %.2f ns (%.1f ms to measure)\n", ns, took);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_sample),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_ranking),
        cmocka_unit_test(test_rendered),
        cmocka_unit_test(test_calibration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
