/* Claiming a watch (src/watch/watch_kit.c): under an engine whose watches
 * make their whole page fault, a sample on a page the thread already
 * watches is not armed; under one that traps on the watched bytes only, it
 * is. A fake engine records what was armed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "watch/engine.h"
#include "watch/kit.h"
#include "watch/runtime.h"

static int armed;

static int fake_arm(wasp_thread *t, int slot, uint64_t addr, int len, int loads_too)
{
    (void)t, (void)slot, (void)addr, (void)len, (void)loads_too;
    armed++;
    return 0;
}

static void fake_disarm(wasp_thread *t, int slot)
{
    (void)t, (void)slot;
}

static wasp_watch_engine engine = {.name = "fake", .arm = fake_arm, .disarm = fake_disarm};
static wasp_thread thread;

static int setup(void **state)
{
    (void)state;
    memset(&thread, 0, sizeof thread);
    thread.nslots = 4;
    thread.rng = 1;
    armed = 0;
    wasp_rt.watch = &engine;
    wasp_rt.watch_budget = 0; /* no budget: every claim may arm */
    return 0;
}

static wasp_slot *claim(uint64_t addr)
{
    wasp_slot *s = wasp_watch_claim(&thread, 0, addr, 8, 0);
    if (s)
        s->state = WASP_SLOT_ARMED;
    return s;
}

static void page_engine_skips_a_watched_page(void **state)
{
    (void)state;
    engine.fault_granule = 4096;
    assert_non_null(claim(0x10008));
    assert_null(claim(0x10ff0)); /* the same page */
    assert_int_equal(thread.rec.counters[WASP_C_DROP_ON_WATCHED_PAGE], 1);
    assert_non_null(claim(0x11000)); /* the next page */
    assert_int_equal(armed, 2);
}

static void debug_registers_arm_anywhere(void **state)
{
    (void)state;
    engine.fault_granule = 0;
    assert_non_null(claim(0x10008));
    assert_non_null(claim(0x10ff0));
    assert_int_equal(thread.rec.counters[WASP_C_DROP_ON_WATCHED_PAGE], 0);
    assert_int_equal(armed, 2);
}

static void a_free_slot_does_not_count(void **state)
{
    (void)state;
    engine.fault_granule = 4096;
    wasp_slot *s = claim(0x10008);
    assert_non_null(s);
    s->state = WASP_SLOT_FREE; /* its watch ended */
    assert_non_null(claim(0x10010));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(page_engine_skips_a_watched_page, setup),
        cmocka_unit_test_setup(debug_registers_arm_anywhere, setup),
        cmocka_unit_test_setup(a_free_slot_does_not_count, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
