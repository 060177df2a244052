/*
 * Watchpoint slots for analyses: claiming one through the budget and the
 * reservoir, ending it, GC epochs, and the instruction that trapped (see
 * kit.h).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler of the slot's thread.
 */
#include <string.h>

#include "watch/budget.h"
#include "watch/engine.h"
#include "watch/kit.h"
#include "watch/mechanisms.h"
#include "watch/page_cost.h"
#include "watch/run_state.h"
#include "watch/sampler_period.h"
#include "watch/slots.h"

uint64_t wasp_read_value(uint64_t addr, int len, int *ok)
{
    uint64_t v = 0;
    *ok = wasp_safe_read(addr, &v, (size_t)len) == (size_t)len;
    return v;
}

int wasp_watch_heap_only(void)
{
    const wasp_watch_engine *e = wasp_chosen()->watch;
    return e && e->set_heap;
}

void wasp_watch_count_drop(wasp_thread *t, int i, int reason)
{
    if (reason < 0 || reason >= WASP_C_COUNT)
        return;
    if (i >= t->nslots && t->slots[i].watch.len == 0)
        return; /* a hold: no access of its own was watched */
    t->rec.counters[i >= t->nslots ? WASP_C_WINDOW_DROPPED : reason]++;
}

void wasp_watch_drop(wasp_thread *t, int i, wasp_counter_id reason)
{
    if (t->slots[i].state != WASP_SLOT_FREE) {
        wasp_slot_disarm(t, i);
        wasp_watch_count_drop(t, i, (int)reason);
    }
    wasp_reservoir_release(&t->reservoir[i]);
}

double wasp_watch_done(wasp_thread *t, int i)
{
    wasp_slot_disarm(t, i);
    return wasp_reservoir_release(&t->reservoir[i]);
}

int wasp_watch_epoch_check(wasp_thread *t)
{
    uint32_t now = wasp_gc_epoch();
    if (t->epoch == now)
        return 0;
    for (int i = 0; i < t->nslots + t->nwindow; i++)
        wasp_watch_drop(t, i, WASP_C_DROP_GC);
    t->epoch = now;
    return 1;
}

/* Why the engine refused to arm (wasp_slot_arm's answer), as a drop counter. */
static wasp_counter_id arm_refused(int armed)
{
    return armed == WASP_ARM_NOT_WATCHABLE ? WASP_C_DROP_NOT_HEAP : WASP_C_DROP_ARM_FAILED;
}

/* A claimed slot's watch, armed at [addr, addr+len). */
static void slot_set(wasp_thread *t, wasp_slot *slot, uint64_t addr, int len)
{
    slot->addr = addr;
    slot->epoch = t->epoch;
    memset(&slot->watch, 0, sizeof slot->watch);
    slot->watch.len = (uint8_t)len;
}

wasp_slot *wasp_watch_move(wasp_thread *t, int i, uint64_t addr, int len, int loads_too)
{
    if (!wasp_budget_allows(t, wasp_budget_owner(t, i))) {
        wasp_watch_drop(t, i, WASP_C_DROP_BUDGET);
        return NULL;
    }
    int armed = wasp_slot_arm(t, i, addr, len, loads_too);
    if (armed != 0) {
        wasp_watch_drop(t, i, arm_refused(armed));
        return NULL;
    }
    wasp_slot *slot = &t->slots[i];
    slot_set(t, slot, addr, len);
    return slot;
}

uint64_t wasp_watch_page_of(uint64_t addr)
{
    return addr & ~(uint64_t)4095;
}

/* A sample's weight that no watch of owner stands for: its next armed
 * sample's. Lost, it made arming's timing weigh: under the page engine's
 * budget most samples come when no watch is alive, and a run's first watch
 * (armed at start-up, as the budget's bank is full) weighed as much as one
 * armed after a second of refused samples (docs/design.md, "Reservoir"). */
static void hold_unheld(wasp_thread *t, int owner, double w)
{
    if (owner >= 0 && owner < WASP_ANALYSES)
        t->unheld_weight[owner] += w;
}

/* What hold_unheld kept for owner, handed over once. */
static double take_unheld(wasp_thread *t, int owner)
{
    if (owner < 0 || owner >= WASP_ANALYSES)
        return 0;
    double w = t->unheld_weight[owner];
    t->unheld_weight[owner] = 0;
    return w;
}

wasp_slot *wasp_watch_claim(wasp_thread *t, int owner, uint64_t addr, int len, int loads_too)
{
    double w = wasp_sample_weight(t);
    if (!wasp_budget_allows(t, owner)) {
        int lost = wasp_reservoir_pass(t->reservoir, t->nslots, owner, w, &t->rng);
        if (lost >= 0)
            wasp_watch_drop(t, lost, WASP_C_COUNT); /* counted below, as the sample */
        else if (lost == WASP_RESERVOIR_UNHELD)
            hold_unheld(t, owner, w);
        t->rec.counters[WASP_C_DROP_BUDGET]++;
        return NULL;
    }
    /* Armed by chance p, weighing 1/p; refused, the sample and the weight it
     * carried for earlier ones are dropped, so both stay unbiased (page_cost.h). */
    double p = wasp_slot_arm_chance(addr);
    if (p < 1.0 && wasp_rng_uniform(&t->rng) >= p) {
        take_unheld(t, owner);
        wasp_page_cost_count_skip();
        return NULL;
    }
    w /= p;
    wasp_reservoir_result r = wasp_reservoir_offer(t->reservoir, t->nslots, owner, w, &t->rng);
    if (r.slot < 0) {
        hold_unheld(t, owner, r.dropped_weight); /* w when no watch of owner took it */
        t->rec.counters[WASP_C_DROP_RESERVOIR]++;
        return NULL;
    }
    wasp_slot *slot = &t->slots[r.slot];
    if (r.replaced && slot->state != WASP_SLOT_FREE)
        t->rec.counters[WASP_C_DROP_REPLACED]++;
    int armed = wasp_slot_arm(t, r.slot, addr, len, loads_too);
    if (armed != 0) {
        slot->state = WASP_SLOT_FREE;
        wasp_reservoir_release(&t->reservoir[r.slot]);
        t->rec.counters[arm_refused(armed)]++;
        return NULL;
    }
    t->reservoir[r.slot].weight += take_unheld(t, owner) / p; /* the offer made the slot owner's */
    slot_set(t, slot, addr, len);
    return slot;
}

/* A free window slot armed at [addr, addr+len) for owner, beside a watch of
 * its on the same page and over no bytes watched already; -1: none. */
static int claim_window_slot(wasp_thread *t, int owner, uint64_t addr, int len, int loads_too)
{
    int n = 0, free_slot = -1, all = t->nslots + t->nwindow;
    for (int i = 0; i < all; i++) {
        const wasp_slot *s = &t->slots[i];
        if (s->state == WASP_SLOT_FREE) {
            if (i >= t->nslots && free_slot < 0 && !t->reservoir[i].in_use)
                free_slot = i;
            continue;
        }
        if (addr < s->addr + s->watch.len && s->addr < addr + (uint64_t)len)
            return -1; /* those bytes are watched already */
        n += wasp_watch_page_of(s->addr) == wasp_watch_page_of(addr) && t->reservoir[i].in_use &&
             t->reservoir[i].analysis == owner;
    }
    if (!n || free_slot < 0 || wasp_budget_spent(t, owner) ||
        wasp_slot_arm(t, free_slot, addr, len, loads_too) != 0)
        return -1;
    /* No weight of its own: the analysis shares its sample's (pairs/window.h). */
    t->reservoir[free_slot] = (wasp_reservoir_slot){
        .in_use = 1, .analysis = (uint8_t)owner, .seen = 1, .weight = 0};
    slot_set(t, &t->slots[free_slot], addr, len);
    return free_slot;
}

wasp_slot *wasp_watch_claim_window(wasp_thread *t, int owner, uint64_t addr, int len,
                                   int loads_too)
{
    int i = claim_window_slot(t, owner, addr, len, loads_too);
    if (i < 0)
        return NULL;
    t->rec.counters[WASP_C_WINDOW_ARMED]++;
    return &t->slots[i];
}

wasp_slot *wasp_watch_claim_hold(wasp_thread *t, int owner, uint64_t addr, int loads_too)
{
    if (!t->nwindow)
        return NULL; /* an engine that cannot watch no bytes (debug registers) */
    int i = claim_window_slot(t, owner, wasp_watch_page_of(addr), 0, loads_too);
    if (i < 0)
        return NULL;
    t->slots[i].state = WASP_SLOT_ARMED;
    return &t->slots[i];
}

/* A repeated string instruction running at trap_pc (1 or -1, as
 * wasp_watch_trap_insn), or 0. Looked at first: the instruction ending
 * there, which the cache and the backward search would find, only precedes
 * it. Given no bytes before trap_pc, wasp_isa_string_trap finds only one
 * still running. */
static int running_string(uint64_t trap_pc, const wasp_regs *regs, const wasp_slot *slot,
                          wasp_access *acc, uint8_t *insn)
{
    size_t n = wasp_read_code(trap_pc, insn, WASP_MAX_INSN, trap_pc);
    return wasp_isa_string_trap(insn, n, NULL, 0, regs, slot->addr, slot->watch.len, acc);
}

int wasp_watch_trap_insn(wasp_thread *t, const wasp_slot *slot, uint64_t trap_pc,
                         const wasp_regs *regs, wasp_access *acc, uint8_t *insn)
{
    int running = running_string(trap_pc, regs, slot, acc, insn);
    if (running)
        return running;
    unsigned h = (unsigned)(trap_pc ^ (trap_pc >> 7)) & 63;
    if (t->trap_cache_pc[h] == trap_pc) {
        uint8_t len = t->trap_cache_len[h];
        if (wasp_read_code(trap_pc - len, insn, len, trap_pc - 1) == len) {
            wasp_regs before = *regs;
            before.rip = trap_pc - len;
            if (wasp_isa_decode_access(insn, len, trap_pc - len, &before, acc) == 1 &&
                acc->len == len) {
                acc->kind = t->trap_cache_kind[h];
                return 1;
            }
        }
    }
    uint8_t buf[WASP_MAX_INSN];
    size_t n = wasp_read_code(trap_pc - sizeof buf, buf, sizeof buf, trap_pc - 1);
    if (n != sizeof buf)
        return 0;
    if (!wasp_isa_recover_trap(buf, n, trap_pc, regs, slot->addr, slot->watch.len, acc)) {
        /* A string instruction that ended here: found by what it moved,
         * not by its address operand. Not cached: the cache knows lengths. */
        if (wasp_isa_string_trap(NULL, 0, buf, n, regs, slot->addr, slot->watch.len, acc) != 1)
            return 0;
        memcpy(insn, buf + sizeof buf - acc->len, acc->len);
        return 1;
    }
    memcpy(insn, buf + sizeof buf - acc->len, acc->len);
    t->trap_cache_pc[h] = trap_pc;
    t->trap_cache_len[h] = acc->len;
    t->trap_cache_kind[h] = acc->kind;
    return 1;
}

uint64_t wasp_watch_trap_insn_pc(uint64_t trap_pc, const wasp_access *acc)
{
    return acc->in_progress ? trap_pc : trap_pc - acc->len;
}

uint32_t wasp_watch_trap_context(wasp_thread *t, const wasp_slot *slot, const ucontext_t *uc)
{
    uint64_t trap_pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    wasp_regs regs;
    wasp_isa_regs_from_ucontext(uc, &regs);
    wasp_access acc;
    uint8_t insn[WASP_MAX_INSN];
    if (wasp_watch_trap_insn(t, slot, trap_pc, &regs, &acc, insn) == 1)
        return wasp_capture_context(t, uc, wasp_watch_trap_insn_pc(trap_pc, &acc), insn, acc.len);
    return wasp_capture_context(t, uc, trap_pc, insn, 0);
}
