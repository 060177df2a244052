/*
 * The start-up proofs of the mechanisms: the page-protection engine and the
 * timer sampler must prove themselves on any x86-64 Linux; debug registers
 * and the perf sampler either prove themselves or say why not (machines where
 * a breakpoint is accepted and never fires exist). One test function: the
 * engines install signal handlers once, and cmocka swaps its own in between
 * tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent/options.h"
#include "sample/source.h"
#include "watch/engine.h"
#include "watch/handler.h"

static void test_proofs(void **st)
{
    (void)st;
    char why[1024] = "";
    uint64_t ns = 0;

    /* Page protection: always available; its cost is measured. */
    int rc = wasp_page_engine.self_test(why, sizeof why, &ns);
    if (rc != 0)
        fail_msg("page engine: %s", why);
    assert_true(ns > 0);
    assert_true(ns < 10000000); /* 10 ms a fault would be a broken measurement */

    /* Debug registers: proven, or a reason that says so. */
    why[0] = 0;
    rc = wasp_debugreg_engine.self_test(why, sizeof why, &ns);
    if (rc != 0)
        assert_true(strstr(why, "did not trap") || strstr(why, "perf_event_open") ||
                    strstr(why, "arming"));
    else
        assert_true(ns > 0);
    print_message("debugreg: %s\n", rc == 0 ? "traps" : why);

    /* Samplers: the timer needs no perf events. */
    wasp_options o;
    wasp_options_defaults(&o);
    wasp_source_config c = {o.period_ns, o.pmu_period, o.pmu_event};
    char err[256];
    assert_int_equal(wasp_timer_source.init(&wasp_timer_source, &c, err, sizeof err), 0);
    rc = wasp_source_self_test(&wasp_timer_source, why, sizeof why);
    if (rc != 0)
        fail_msg("timer sampler: %s", why);
    assert_int_equal(wasp_soft_source.init(&wasp_soft_source, &c, err, sizeof err), 0);
    rc = wasp_source_self_test(&wasp_soft_source, why, sizeof why);
    if (rc != 0)
        assert_true(strstr(why, "perf_event_open") != NULL);
    print_message("perf sampler: %s\n", rc == 0 ? "samples" : why);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proofs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
