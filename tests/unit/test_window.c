/* Window watches (watch/kit.h, wasp_watch_claim_window): an access the engine
 * saw on a page the thread watches is watched in a window slot only beside a
 * watch of the same analysis on that page, never over bytes already
 * watched, and the weight of those watches is shared, not multiplied. An
 * engine that arms anything stands in for the page engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "watch/engine.h"
#include "watch/kit.h"
#include "watch/mechanisms.h"

static int armed_calls;

static int fake_arm(wasp_thread *t, int slot, uint64_t addr, int len, int loads_too)
{
    (void)t, (void)slot, (void)addr, (void)len, (void)loads_too;
    armed_calls++;
    return 0;
}

static void fake_disarm(wasp_thread *t, int slot)
{
    (void)t, (void)slot;
}

static const wasp_watch_engine fake = {
    .name = "fake", .arm = fake_arm, .disarm = fake_disarm};

enum { SAMPLED = 4, WINDOW = WASP_MAX_SLOTS - SAMPLED, PAGE = 0x7f0000001000ull };

static wasp_thread *new_thread(void)
{
    static wasp_thread t;
    memset(&t, 0, sizeof t);
    t.nslots = SAMPLED;
    t.nwindow = WINDOW;
    t.rng = 12345;
    wasp_mechanisms_set(&(wasp_mechanisms){NULL, &fake, 0});
    return &t;
}

static double weight_of(const wasp_thread *t, int analysis)
{
    double w = 0;
    for (int i = 0; i < t->nslots + t->nwindow; i++)
        if (t->reservoir[i].in_use && t->reservoir[i].analysis == analysis)
            w += t->reservoir[i].weight;
    return w;
}

static void shares_the_sample_weight(void **state)
{
    (void)state;
    wasp_thread *t = new_thread();
    /* Nothing watched on the page yet: no window. */
    assert_null(wasp_watch_claim_window(t, 1, PAGE + 64, 8, 0));
    wasp_slot *s = wasp_watch_claim(t, 1, PAGE + 8, 8, 0);
    assert_non_null(s);
    s->state = WASP_SLOT_ARMED;
    assert_true(weight_of(t, 1) == 1.0);
    for (int k = 1; k <= WINDOW; k++) {
        wasp_slot *w = wasp_watch_claim_window(t, 1, PAGE + 64 + 8u * (unsigned)k, 8, 0);
        assert_non_null(w);
        assert_true(w - t->slots >= SAMPLED); /* a window slot, never a sampled one */
        w->state = WASP_SLOT_ARMED;
        /* k + 1 watches, one sample's weight between them, evenly. */
        assert_true(weight_of(t, 1) > 0.999999 && weight_of(t, 1) < 1.000001);
        assert_true(t->reservoir[w - t->slots].weight > 1.0 / (k + 1) - 1e-9 &&
                    t->reservoir[w - t->slots].weight < 1.0 / (k + 1) + 1e-9);
    }
    assert_int_equal(t->rec.counters[WASP_C_WINDOW_ARMED], WINDOW);
    /* Every window slot taken: no more, and the weight is unchanged. */
    assert_null(wasp_watch_claim_window(t, 1, PAGE + 2048, 8, 0));
    assert_true(weight_of(t, 1) > 0.999999 && weight_of(t, 1) < 1.000001);
}

static void only_beside_its_own_analysis_on_the_page(void **state)
{
    (void)state;
    wasp_thread *t = new_thread();
    wasp_slot *s = wasp_watch_claim(t, 1, PAGE + 8, 8, 0);
    assert_non_null(s);
    s->state = WASP_SLOT_ARMED;
    int before = armed_calls;
    /* Another page, another analysis, or bytes already watched: none. */
    assert_null(wasp_watch_claim_window(t, 1, PAGE + 4096 + 8, 8, 0));
    assert_null(wasp_watch_claim_window(t, 2, PAGE + 64, 8, 0));
    assert_null(wasp_watch_claim_window(t, 1, PAGE + 12, 4, 0));
    assert_int_equal(armed_calls, before);
    assert_true(weight_of(t, 1) == 1.0);
    assert_true(weight_of(t, 2) == 0.0);
    /* The sample's watch ended (judged): a watch started in its window
     * keeps its share, and no new one joins a window that has none left. */
    wasp_slot *w = wasp_watch_claim_window(t, 1, PAGE + 64, 8, 0);
    assert_non_null(w);
    w->state = WASP_SLOT_ARMED;
    double judged = wasp_watch_done(t, (int)(s - t->slots));
    assert_true(judged == 0.5);
    assert_true(weight_of(t, 1) == 0.5);
    wasp_watch_done(t, (int)(w - t->slots));
    assert_null(wasp_watch_claim_window(t, 1, PAGE + 128, 8, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shares_the_sample_weight),
        cmocka_unit_test(only_beside_its_own_analysis_on_the_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
