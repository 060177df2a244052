/*
 * The watch budget (watch/budget.h) keeps a ledger per analysis that
 * watches: one analysis's costly watches (the pair analyses' windows on
 * page protection) do not close the budget of another (alloc's TLAB
 * watches); a cost no analysis caused is shared; the debt that drops
 * armed watches is the watches' own analysis's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/clock.h"
#include "watch/budget.h"
#include "watch/mechanisms.h"
#include "watch/session.h"

enum { EVENT_NS = 20000 }; /* one watch event, as a page fault costs on a VM */
static const double BUDGET = 0.02;

/* Runs on this thread until it has used ns more CPU time: the budget is
 * earned by CPU time, which only work gives (a condition, not a sleep). */
static void burn_cpu(uint64_t ns)
{
    uint64_t until = wasp_clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
    volatile uint64_t x = 0;
    while (wasp_clock_ns(CLOCK_THREAD_CPUTIME_ID) < until)
        for (int i = 0; i < 10000; i++)
            x += (uint64_t)i;
}

/* A session of the deadstore and alloc analyses at BUDGET, and a thread of
 * it that has run 20 ms: each analysis earned 0.01 of that (0.2 ms). */
static int session_of_two(void **state)
{
    static wasp_thread t;
    memset(&t, 0, sizeof t);
    wasp_session_set(&(wasp_session){
        .enabled = 1u << WASP_ID_deadstore | 1u << WASP_ID_alloc, .watch_budget = BUDGET});
    wasp_mechanisms_set(&(wasp_mechanisms){.watch_event_ns = EVENT_NS});
    wasp_budget_session_start(1u << WASP_ID_deadstore | 1u << WASP_ID_alloc);
    t.cpu_ns_start = wasp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    burn_cpu(20000000);
    *state = &t;
    return 0;
}

static int session_end(void **state)
{
    (void)state;
    wasp_session_set(&(wasp_session){0});
    wasp_mechanisms_set(&(wasp_mechanisms){0});
    wasp_budget_session_start(0);
    return 0;
}

/* Asks until a check ran (the answer between checks is the last one's). */
static int allows_now(wasp_thread *t, int analysis)
{
    t->budget_countdown = 0;
    return wasp_budget_allows(t, analysis);
}

static void one_analysis_spending_leaves_the_other_open(void **state)
{
    wasp_thread *t = *state;
    wasp_budget_charge(t, WASP_ID_deadstore, 500 * EVENT_NS); /* 10 ms: 50 times its share */
    assert_false(allows_now(t, WASP_ID_deadstore));
    assert_true(allows_now(t, WASP_ID_alloc));
    /* Between checks the answers stay each analysis's own. */
    assert_false(wasp_budget_allows(t, WASP_ID_deadstore));
    assert_true(wasp_budget_allows(t, WASP_ID_alloc));
    assert_int_equal(t->watch_cost_ns, 500 * EVENT_NS);
}

static void a_cost_of_no_analysis_is_shared(void **state)
{
    wasp_thread *t = *state;
    wasp_budget_charge(t, -1, 1000 * EVENT_NS);
    assert_int_equal(t->budget_cost_ns[WASP_ID_deadstore], 500 * EVENT_NS);
    assert_int_equal(t->budget_cost_ns[WASP_ID_alloc], 500 * EVENT_NS);
    assert_false(allows_now(t, WASP_ID_deadstore));
    assert_false(allows_now(t, WASP_ID_alloc));
}

static void earning_reopens(void **state)
{
    wasp_thread *t = *state;
    wasp_budget_charge(t, WASP_ID_alloc, 20 * EVENT_NS); /* 0.4 ms: twice what it earned */
    assert_false(allows_now(t, WASP_ID_alloc));
    burn_cpu(60000000); /* 0.6 ms more earned: 0.4 ms in credit */
    assert_true(allows_now(t, WASP_ID_alloc));
}

static void deep_debt_drops_its_own_watches_only(void **state)
{
    wasp_thread *t = *state;
    /* Past one watch at its fault cap (82 ms here), counted before a check. */
    wasp_budget_charge(t, WASP_ID_deadstore, 2 * WASP_WATCH_FAULT_CAP * (uint64_t)EVENT_NS);
    assert_true(wasp_budget_spent(t, WASP_ID_deadstore));
    assert_false(wasp_budget_spent(t, WASP_ID_alloc));
    assert_true(wasp_budget_spent(t, -1)); /* a watch of no analysis: any in debt */
}

static void no_budget_no_limit(void **state)
{
    wasp_thread *t = *state;
    wasp_session_set(&(wasp_session){.enabled = 1u << WASP_ID_deadstore, .watch_budget = 0});
    wasp_budget_charge(t, WASP_ID_deadstore, 100000 * (uint64_t)EVENT_NS);
    assert_true(allows_now(t, WASP_ID_deadstore));
    assert_false(wasp_budget_spent(t, WASP_ID_deadstore));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(one_analysis_spending_leaves_the_other_open,
                                        session_of_two, session_end),
        cmocka_unit_test_setup_teardown(a_cost_of_no_analysis_is_shared, session_of_two,
                                        session_end),
        cmocka_unit_test_setup_teardown(earning_reopens, session_of_two, session_end),
        cmocka_unit_test_setup_teardown(deep_debt_drops_its_own_watches_only, session_of_two,
                                        session_end),
        cmocka_unit_test_setup_teardown(no_budget_no_limit, session_of_two, session_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
