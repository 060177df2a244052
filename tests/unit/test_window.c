/* Window watches: an access the engine saw on a page the thread watches is
 * watched in a window slot only beside a watch of the same analysis on that
 * page, never over bytes already watched (watch/kit.h,
 * wasp_watch_claim_window); the pair analyses' windows reach a fixed number
 * of accesses, held open meanwhile, and credit each member judged an equal
 * share of the sample's weight (analysis/pairs/window.h). An
 * engine that arms anything stands in for the page engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/pairs/profile.h"
#include "analysis/pairs/window.h"
#include "watch/budget.h"
#include "watch/engine.h"
#include "watch/kit.h"
#include "watch/mechanisms.h"
#include "watch/session.h"
#include "watch/slots.h"

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
    wasp_slots_free(&t);
    memset(&t, 0, sizeof t);
    assert_int_equal(wasp_slots_alloc(&t, SAMPLED + WINDOW), 0);
    t.nslots = SAMPLED;
    t.nwindow = WINDOW;
    t.rng = 12345;
    wasp_mechanisms_set(&(wasp_mechanisms){.watch = &fake});
    return &t;
}

/* A sample's watch of analysis 1 on PAGE, armed (slot 0). */
static wasp_slot *sampled_watch(wasp_thread *t)
{
    wasp_slot *s = wasp_watch_claim(t, 1, PAGE + 8, 8, 0);
    assert_non_null(s);
    s->state = WASP_SLOT_ARMED;
    return s;
}

static double weight_of(const wasp_thread *t, int analysis)
{
    double w = 0;
    for (int i = 0; i < t->nslots + t->nwindow; i++)
        if (t->reservoir[i].in_use && t->reservoir[i].analysis == analysis)
            w += t->reservoir[i].weight;
    return w;
}

static void window_slots_only_beside_a_watch(void **state)
{
    (void)state;
    wasp_thread *t = new_thread();
    /* Nothing watched on the page yet: no window. */
    assert_null(wasp_watch_claim_window(t, 1, PAGE + 64, 8, 0));
    sampled_watch(t);
    for (int k = 1; k <= WINDOW; k++) {
        wasp_slot *w = wasp_watch_claim_window(t, 1, PAGE + 64 + 8u * (unsigned)k, 8, 0);
        assert_non_null(w);
        assert_true(w - t->slots >= SAMPLED); /* a window slot, never a sampled one */
        w->state = WASP_SLOT_ARMED;
        /* No weight of its own: the sample's stays where it was. */
        assert_true(t->reservoir[w - t->slots].weight == 0.0);
        assert_true(weight_of(t, 1) == 1.0);
    }
    assert_int_equal(t->rec.counters[WASP_C_WINDOW_ARMED], WINDOW);
    /* Every window slot taken: no more, even on bytes no member watches. */
    assert_null(wasp_watch_claim_window(t, 1, PAGE + 64 + 8u * (WINDOW + 1), 8, 0));
}

/* A window watch dropped counts as armed.window.dropped, whatever the
 * reason; the dropped.* counters count samples' watches only. */
static void window_drops_counted_apart(void **state)
{
    (void)state;
    wasp_thread *t = new_thread();
    wasp_slot *s = sampled_watch(t);
    wasp_slot *w = wasp_watch_claim_window(t, 1, PAGE + 64, 8, 0);
    assert_non_null(w);
    w->state = WASP_SLOT_ARMED;
    wasp_watch_drop(t, (int)(w - t->slots), WASP_C_DROP_GC);
    assert_int_equal(t->rec.counters[WASP_C_DROP_GC], 0);
    assert_int_equal(t->rec.counters[WASP_C_WINDOW_DROPPED], 1);
    wasp_watch_drop(t, (int)(s - t->slots), WASP_C_DROP_GC);
    assert_int_equal(t->rec.counters[WASP_C_DROP_GC], 1);
    assert_int_equal(t->rec.counters[WASP_C_WINDOW_DROPPED], 1);
}

/* A window of the sample in slot 0 (its hold claimed), weight 5. */
static uint32_t open_window(wasp_thread *t, wasp_windows *ws, wasp_slot **hold)
{
    memset(ws, 0, sizeof *ws);
    sampled_watch(t);
    t->reservoir[0].weight = 5.0; /* the sample stands for five */
    *hold = wasp_watch_claim_hold(t, 1, PAGE + 8, 0);
    assert_non_null(*hold);
    uint32_t tag = wasp_window_open(t, ws, 0, (int)(*hold - t->slots));
    assert_true(tag != 0);
    assert_true(t->reservoir[0].weight == 0.0); /* moved into the window */
    return tag;
}

/* A hold watches no bytes: no armed.window count, no bytes kept from
 * members, and only where the engine has window slots. */
static void hold_watches_no_bytes(void **state)
{
    (void)state;
    wasp_thread *t = new_thread();
    sampled_watch(t);
    wasp_slot *h = wasp_watch_claim_hold(t, 1, PAGE + 8, 0);
    assert_non_null(h);
    assert_int_equal(h->watch.len, 0);
    assert_true(h - t->slots >= SAMPLED);
    assert_int_equal(t->rec.counters[WASP_C_WINDOW_ARMED], 0);
    assert_non_null(wasp_watch_claim_window(t, 1, PAGE, 8, 0)); /* the page's first bytes */
    t->nwindow = 0;
    assert_null(wasp_watch_claim_hold(t, 1, PAGE + 8, 0));
}

/* A window reaches WASP_WINDOW_REACH accesses past its sample's, then hands
 * back its hold; another page or a window already reaching the page is
 * told apart. */
static void reach_is_fixed(void **state)
{
    (void)state;
    wasp_thread *t = new_thread();
    static wasp_windows ws;
    wasp_slot *hold;
    uint32_t tag = open_window(t, &ws, &hold);
    assert_int_equal(wasp_window_reaching(&ws, PAGE), tag);
    assert_int_equal(wasp_window_reaching(&ws, PAGE + 4096), 0);
    for (int k = 1; k < WASP_WINDOW_REACH; k++)
        assert_int_equal(wasp_window_reach(&ws, tag), -1);
    assert_int_equal(wasp_window_reach(&ws, tag), (int)(hold - t->slots));
    assert_int_equal(wasp_window_reaching(&ws, PAGE), 0); /* reached its last */
    assert_int_equal(wasp_window_reach(&ws, tag), -1);
    assert_int_equal(ws.w[tag - 1].reached, WASP_WINDOW_REACH + 1);
}

/* Members judged early and late stand for the sample equally, and so do
 * accesses reached but never watched: W / accesses reached each. */
static void members_weigh_the_same(void **state)
{
    (void)state;
    wasp_thread *t = new_thread();
    assert_int_equal(wasp_records_init(&t->rec, 64, 0), 0);
    static wasp_windows ws;
    wasp_slot *hold;
    uint32_t tag = open_window(t, &ws, &hold);
    wasp_slot *s = &t->slots[0];
    wasp_slot *m[3];
    for (int k = 0; k < 3; k++) {
        m[k] = wasp_watch_claim_window(t, 1, PAGE + 64 + 8u * (unsigned)k, 8, 0);
        assert_non_null(m[k]);
        m[k]->state = WASP_SLOT_ARMED;
        m[k]->tag = tag;
        wasp_window_add(&ws, tag);
        wasp_window_reach(&ws, tag);
    }
    wasp_window_reach(&ws, tag); /* one reached, no slot for it */
    /* A live pair at once, the sample's own live, one dead much later, one
     * member lost (dropped): 5 accesses reached, 5.0 / 5 each. */
    wasp_window_judged(&ws, tag, wasp_watch_done(t, (int)(m[0] - t->slots)), 8, 0, 0, 1, 0);
    m[0]->tag = 0;
    wasp_window_judged(&ws, tag, wasp_watch_done(t, 0), 8, 0, 0, 2, 0);
    s->tag = 0;
    wasp_watch_drop(t, (int)(m[1] - t->slots), WASP_C_COUNT);
    wasp_window_judged(&ws, tag, wasp_watch_done(t, (int)(m[2] - t->slots)), 8, 1, 0, 3, 4);
    m[2]->tag = 0;
    wasp_window_settle(t, &ws, 1, 0);
    assert_true(t->rec.totals[1].pairs == 0.0); /* its hold keeps it open */
    wasp_watch_done(t, (int)(hold - t->slots));
    wasp_window_settle(t, &ws, 1, 0);
    const wasp_totals *tot = &t->rec.totals[1];
    assert_true(tot->pairs == 3.0);   /* 3 judged x 1 */
    assert_true(tot->bytes == 24.0);  /* 24 bytes x 1, not x 5 / 4 members watched */
    assert_true(tot->wasted == 8.0);  /* the dead one's 8 bytes x 1 */
    assert_int_equal(t->rec.npairs, 1);
    assert_true(ws.w[tag - 1].members == 0); /* free again */
    wasp_records_free(&t->rec);
}

/* More wasteful members than the window has pair entries, in one pair of
 * contexts: all of them reach the pair, not only F. */
static void wasteful_members_share_an_entry(void **state)
{
    (void)state;
    wasp_thread *t = new_thread();
    assert_int_equal(wasp_records_init(&t->rec, 64, 0), 0);
    static wasp_windows ws;
    wasp_slot *hold;
    uint32_t tag = open_window(t, &ws, &hold);
    enum { DEAD = WASP_WINDOW_WASTE + 32 };
    for (int k = 0; k < DEAD; k++) {
        wasp_window_add(&ws, tag);
        wasp_window_reach(&ws, tag);
        wasp_window_judged(&ws, tag, 0, 8, 1, 0, 7, 9);
    }
    wasp_window_add(&ws, tag);
    wasp_window_reach(&ws, tag);
    wasp_window_judged(&ws, tag, 0, 8, 1, 0, 7, 10); /* another trap context */
    wasp_watch_done(t, 0);
    t->slots[0].tag = 0;
    wasp_watch_done(t, (int)(hold - t->slots));
    wasp_window_settle(t, &ws, 1, 0);
    double each = 5.0 / (DEAD + 2); /* the sample and DEAD + 1 reached */
    assert_int_equal(t->rec.npairs, 2);
    double bytes = 0, count = 0;
    for (uint32_t i = 0; i < t->rec.cap_pairs; i++)
        if (t->rec.pairs[i].watch_ctx && t->rec.pairs[i].trap_ctx == 9) {
            bytes = t->rec.pairs[i].bytes;
            count = t->rec.pairs[i].count;
        }
    assert_float_equal(bytes, each * 8.0 * DEAD, 1e-9);
    assert_float_equal(count, each * DEAD, 1e-9);
    assert_float_equal(t->rec.totals[1].wasted, each * 8.0 * (DEAD + 1), 1e-9);
    wasp_records_free(&t->rec);
}

static void only_beside_its_own_analysis_on_the_page(void **state)
{
    (void)state;
    wasp_thread *t = new_thread();
    wasp_slot *s = sampled_watch(t);
    int before = armed_calls;
    /* Another page, another analysis, or bytes already watched: none. */
    assert_null(wasp_watch_claim_window(t, 1, PAGE + 4096 + 8, 8, 0));
    assert_null(wasp_watch_claim_window(t, 2, PAGE + 64, 8, 0));
    assert_null(wasp_watch_claim_window(t, 1, PAGE + 12, 4, 0));
    assert_int_equal(armed_calls, before);
    /* With no watch left on the page, no window either. */
    wasp_watch_done(t, (int)(s - t->slots));
    assert_null(wasp_watch_claim_window(t, 1, PAGE + 128, 8, 0));
}

/* Samples no watch of their analysis stood for (the slots all held by
 * another analysis's watches, which the lottery kept) are not lost: the
 * analysis's next armed sample stands for them too. Lost, a run's first
 * watch weighed as much as one armed after many refused samples. */
static void unheld_weight_goes_to_the_next_armed_sample(void **state)
{
    (void)state;
    wasp_thread *t = new_thread();
    for (int k = 0; k < SAMPLED; k++) {
        wasp_slot *s = wasp_watch_claim(t, 2, PAGE + 0x1000u * (unsigned)(k + 1), 8, 0);
        assert_non_null(s);
        s->state = WASP_SLOT_ARMED;
        t->reservoir[s - t->slots].seen = 1e300; /* the lottery keeps it */
    }
    for (int i = 0; i < 10; i++)
        assert_null(wasp_watch_claim(t, 1, PAGE + 8, 8, 0));
    assert_int_equal(t->rec.counters[WASP_C_DROP_RESERVOIR], 10);
    assert_true(t->unheld_weight[1] == 10.0);
    assert_true(weight_of(t, 2) == (double)SAMPLED); /* nothing of analysis 1's */

    wasp_watch_drop(t, 0, WASP_C_DROP_GC);
    wasp_slot *s = sampled_watch(t);
    assert_int_equal(s - t->slots, 0);
    assert_true(weight_of(t, 1) == 11.0); /* itself and the ten before */
    assert_true(t->unheld_weight[1] == 0.0);
}

/* Samples the budget refuses while a watch of their analysis is alive and a
 * slot free stand for themselves in the next sample armed, not in the live
 * watch: credited to it, a window whose reach is never spent (a page stored
 * once at start-up) took the weight of every sample refused all run. */
static void refused_weight_skips_the_live_watch(void **state)
{
    (void)state;
    wasp_thread *t = new_thread();
    wasp_session_set(&(wasp_session){.enabled = 1u << 1, .watch_budget = 0.02});
    wasp_mechanisms_set(&(wasp_mechanisms){.watch = &fake, .watch_event_ns = 20000});
    wasp_budget_session_start(1u << 1);
    t->budget_open = 1u << 1;
    t->budget_countdown = 1000; /* the answers below are budget_open's */
    wasp_slot *live = sampled_watch(t);
    t->budget_open = 0;
    for (int i = 0; i < 10; i++)
        assert_null(wasp_watch_claim(t, 1, PAGE + 0x2008, 8, 0));
    assert_int_equal(t->rec.counters[WASP_C_DROP_BUDGET], 10);
    assert_true(weight_of(t, 1) == 1.0);
    assert_true(t->unheld_weight[1] == 10.0);

    t->budget_open = 1u << 1;
    wasp_slot *next = wasp_watch_claim(t, 1, PAGE + 0x2008, 8, 0);
    assert_non_null(next);
    assert_true(t->reservoir[next - t->slots].weight == 11.0); /* itself and the ten */
    assert_true(t->reservoir[live - t->slots].weight == 1.0);
    wasp_budget_session_start(0);
    wasp_session_set(&(wasp_session){0});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_slots_only_beside_a_watch),
        cmocka_unit_test(window_drops_counted_apart),
        cmocka_unit_test(hold_watches_no_bytes),
        cmocka_unit_test(reach_is_fixed),
        cmocka_unit_test(members_weigh_the_same),
        cmocka_unit_test(wasteful_members_share_an_entry),
        cmocka_unit_test(only_beside_its_own_analysis_on_the_page),
        cmocka_unit_test(unheld_weight_goes_to_the_next_armed_sample),
        cmocka_unit_test(refused_weight_skips_the_live_watch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
