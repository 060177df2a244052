/*
 * The pair analyses in the handler (JXPerf): a sample arms a watchpoint on
 * the accessed bytes for one pair analysis; its traps are judged by that
 * analysis's client (deadstore.c, silentstore.c, silentload.c) until a verdict
 * classifies the <watch, trap> pair. Each analysis's handler part is below;
 * they share this machinery.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler.
 */
#include <string.h>

#include "analysis/pairs/window.h"
#include "watch/handler_part.h"
#include "watch/session.h"

/* The enabled pair analyses, by the kind of access they sample (set before
 * sampling starts, read-only afterwards). */
static const wasp_analysis_client *store_clients[WASP_AN_COUNT], *load_clients[WASP_AN_COUNT];
static int nstore, nload;

static void enable(uint32_t enabled)
{
    nstore = nload = 0;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_handler_part *p = wasp_handler_part_of(id);
        if (!(enabled & (1u << id)) || !p->pair)
            continue;
        if (p->pair->samples & WASP_ACCESS_STORE)
            store_clients[nstore++] = p->pair;
        else
            load_clients[nload++] = p->pair;
    }
}

/* The k-th enabled pair analysis (stores first), k < nstore + nload. */
static const wasp_analysis_client *client_at(int k)
{
    return k < nstore ? store_clients[k] : load_clients[k - nstore];
}

static const wasp_analysis_client *pick_client(wasp_thread *t, int kind)
{
    const wasp_analysis_client *c[2 * WASP_AN_COUNT];
    int n = 0;
    if (kind & WASP_ACCESS_STORE)
        for (int i = 0; i < nstore; i++)
            c[n++] = store_clients[i];
    if (kind & WASP_ACCESS_LOAD)
        for (int i = 0; i < nload; i++)
            c[n++] = load_clients[i];
    if (n == 0)
        return NULL;
    return c[n == 1 ? 0 : wasp_rng_next(&t->rng) % (uint64_t)n];
}

/* The access a sample gives to a pair analysis, and that analysis.
 * Software samples choose the analysis first, so each enabled analysis gets
 * an equal share of samples whatever the program's mix of loads and stores;
 * PMU samples go to an analysis that takes their kind. */
static const wasp_analysis_client *locate(wasp_thread *t, const wasp_sample_view *v,
                                          wasp_access *acc, uint64_t *at, uint8_t *insn,
                                          int *executed)
{
    const int any = WASP_ACCESS_LOAD | WASP_ACCESS_STORE;
    const wasp_analysis_client *client = NULL;
    int rc;
    *executed = v->s->executed;
    if (!v->s->has_addr) {
        client = pick_client(t, any);
        rc = wasp_view_find(v, client->samples, acc, at);
        if (rc == 0) {
            /* Nothing of that kind ahead (a loop without stores, say): give
             * the sample to an analysis of the other kind. */
            int other = client->samples ^ any;
            const wasp_analysis_client *c2 = pick_client(t, other);
            if (c2 && (rc = wasp_view_find(v, other, acc, at)) == 1)
                client = c2;
        }
        if (rc == 0) {
            /* Nothing straight ahead (a branch comes first, as in a search
             * loop): the access that just ran, most often the one that held
             * the thread up. It has executed: no first trap. */
            if (wasp_view_prev(v, client->samples, acc, at, insn) &&
                wasp_isa_is_program_data(acc, &v->regs)) {
                *executed = 1;
                return client;
            }
        }
    } else {
        rc = wasp_view_find(v, any, acc, at);
        if (rc == 1 && !(client = pick_client(t, acc->kind)))
            rc = 0;
    }
    if (rc != 1) {
        wasp_view_count_miss(t, rc);
        return NULL;
    }
    wasp_view_insn(v, *at, acc->len, insn);
    return client;
}

/* The bytes a watch of acc covers: a string instruction's element, which
 * is what its step wrote (a watch over the block it goes on to write would
 * be judged by its own next elements). */
static void watch_span(const wasp_access *acc, uint64_t *waddr, int *wlen)
{
    wasp_watch_span(acc->addr, acc->element ? acc->element : acc->size, waddr, wlen);
}

/* A claimed slot starts watching the access acc made by the instruction at
 * `at` (insn): its context, its value now, and whether its own first trap
 * is still to come (not when it already ran: `executed`). */
static void start(wasp_thread *t, wasp_slot *slot, const wasp_analysis_client *client,
                  const wasp_access *acc, uint64_t at, const uint8_t *insn, int executed,
                  const ucontext_t *uc)
{
    slot->tag = 0; /* a window's member: set by the caller */
    slot->access_size = acc->size;
    slot->watch_loads = client->watch_loads;
    slot->first_end = at + acc->len;
    slot->watch.float_size = acc->float_size;
    slot->watch_ctx = wasp_capture_context(t, uc, at, insn, acc->len);

    int ok;
    uint64_t now = wasp_read_value(slot->addr, slot->watch.len, &ok);
    client->on_sample(&slot->watch, now, ok);
    if (executed) {
        /* The access already happened (PMU samples, the one that just ran,
         * an access an engine saw): no first trap. */
        client->on_first_trap(&slot->watch, now);
        slot->state = WASP_SLOT_ARMED;
    } else {
        slot->state = WASP_SLOT_FIRST;
    }
}

static wasp_windows *windows_of(wasp_thread *t, int id)
{
    return t->part_state[id];
}

/* Credit the enabled analyses' windows that have no member left (all: every
 * one, the thread's watches being gone). */
static void settle(wasp_thread *t, int all)
{
    for (int k = 0; k < nstore + nload; k++) {
        int id = client_at(k)->id;
        wasp_window_settle(t, windows_of(t, id), id, all);
    }
}

static void on_thread_end(wasp_thread *t)
{
    settle(t, 1);
}

/* The next accesses of the analysis's kind to its page watched too, in the
 * sample's window (window.h), where the engine has window slots. A page
 * already reached by a window of the analysis gets none: an access reached
 * by two could be watched for one of them only. */
static void open_window(wasp_thread *t, const wasp_analysis_client *client, int i)
{
    wasp_windows *ws = windows_of(t, client->id);
    if (!t->nwindow || wasp_window_reaching(ws, wasp_watch_page_of(t->slots[i].addr)))
        return;
    /* The hold sees what the reach counts: a store analysis's members watch
     * loads (a load judges a store), its hold need not. */
    wasp_slot *hold = wasp_watch_claim_hold(t, client->id, t->slots[i].addr,
                                            (client->samples & WASP_ACCESS_LOAD) != 0);
    if (hold && !wasp_window_open(t, ws, i, (int)(hold - t->slots)))
        wasp_watch_done(t, (int)(hold - t->slots));
}

/* Window tag of analysis id has reached its last access: its hold goes (the
 * slot checked, since a collection may have ended it and its slot been
 * claimed again), and the window is credited if no member is left. */
static void end_reach(wasp_thread *t, wasp_windows *ws, int id, uint32_t tag, int hold)
{
    const wasp_slot *s = &t->slots[hold];
    if (s->state != WASP_SLOT_FREE && s->tag == tag && s->watch.len == 0 &&
        t->reservoir[hold].in_use && t->reservoir[hold].analysis == id)
        wasp_watch_done(t, hold);
    wasp_window_settle_one(t, ws, id, tag);
}

/* An access this thread made, seen whole (it ran: at pc, its bytes insn):
 * one more for each window of an analysis of its kind reaching its page, and
 * watched there when a window slot is free. */
static void reach(wasp_thread *t, const ucontext_t *uc, uint64_t pc, const wasp_access *acc,
                  const uint8_t *insn)
{
    uint64_t page = wasp_watch_page_of(acc->addr);
    for (int k = 0; k < nstore + nload; k++) {
        const wasp_analysis_client *client = client_at(k);
        if (!(client->samples & acc->kind))
            continue;
        wasp_windows *ws = windows_of(t, client->id);
        uint32_t tag = wasp_window_reaching(ws, page);
        if (!tag)
            continue;
        uint64_t waddr;
        int wlen;
        watch_span(acc, &waddr, &wlen);
        wasp_slot *slot = wasp_watch_claim_window(t, client->id, waddr, wlen,
                                                  client->watch_loads);
        if (slot) {
            wasp_window_add(ws, tag);
            start(t, slot, client, acc, pc, insn, 1, uc);
            slot->tag = tag;
        }
        int hold = wasp_window_reach(ws, tag);
        if (hold >= 0)
            end_reach(t, ws, client->id, tag, hold);
    }
}

/* An access on a page the thread watches, seen whole by the engine (it
 * ran), after the traps of the watches it touched: reached once, however
 * many of them it judged, and only then, so that a member it just ended
 * leaves its bytes free for the next. */
static void on_window_access(wasp_thread *t, const ucontext_t *uc, const wasp_window_access *a)
{
    if (wasp_watch_epoch_check(t))
        return;
    reach(t, uc, a->pc, &a->acc, a->insn);
}

static void on_sample(wasp_thread *t, const wasp_sample_view *v)
{
    wasp_access acc;
    uint64_t at;
    uint8_t insn[WASP_MAX_INSN];
    int executed;
    settle(t, 0); /* windows whose members went meanwhile (a GC, say) */
    const wasp_analysis_client *client = locate(t, v, &acc, &at, insn, &executed);
    if (!client)
        return;
    t->rec.counters[WASP_C_SAMPLES_MEMORY]++;
    wasp_watch_epoch_check(t);

    uint64_t waddr;
    int wlen;
    watch_span(&acc, &waddr, &wlen);
    wasp_slot *slot = wasp_watch_claim(t, client->id, waddr, wlen, client->watch_loads);
    if (!slot)
        return;
    t->rec.counters[WASP_C_ARMED]++;
    start(t, slot, client, &acc, at, insn, executed, v->uc);
    open_window(t, client, (int)(slot - t->slots));
}

static void classify(wasp_thread *t, int i, const wasp_analysis_client *client,
                     wasp_verdict v, int approx, const ucontext_t *uc, uint64_t insn_pc,
                     const uint8_t *insn, uint8_t insn_len)
{
    wasp_slot *slot = &t->slots[i];
    double weight = wasp_watch_done(t, i);
    if (slot->tag) {
        /* A window's member: credited with the window (window.h). */
        t->rec.counters[WASP_C_CLASSIFIED]++;
        int waste = v == WASP_VERDICT_WASTE;
        uint32_t trap_ctx = waste ? wasp_capture_context(t, uc, insn_pc, insn, insn_len) : 0;
        wasp_windows *ws = windows_of(t, client->id);
        uint32_t tag = slot->tag;
        wasp_window_judged(ws, tag, weight, slot->access_size, waste, approx, slot->watch_ctx,
                           trap_ctx);
        slot->tag = 0;
        wasp_window_settle_one(t, ws, client->id, tag);
        return;
    }
    double bytes = weight * (double)slot->access_size;
    wasp_totals *tot = &t->rec.totals[client->id];
    tot->bytes += bytes;
    tot->pairs += weight;
    t->rec.counters[WASP_C_CLASSIFIED]++;
    if (v != WASP_VERDICT_WASTE)
        return;
    if (approx)
        tot->wasted_approx += bytes;
    else
        tot->wasted += bytes;
    uint32_t trap_ctx = wasp_capture_context(t, uc, insn_pc, insn, insn_len);
    wasp_records_pair(&t->rec, client->id, approx ? WASP_PAIR_APPROX : 0, slot->watch_ctx,
                      trap_ctx, bytes, weight);
}

/* Whether the trap at trap_pc is a step of the sampled instruction itself, a
 * repeated string instruction whose element was the sampled one: it traps
 * with its PC still on it (more elements to go), not past it. */
static int own_string_step(wasp_thread *t, const wasp_slot *slot, uint64_t trap_pc,
                           const ucontext_t *uc)
{
    wasp_regs regs;
    wasp_isa_regs_from_ucontext(uc, &regs);
    wasp_access acc;
    uint8_t insn[WASP_MAX_INSN];
    return wasp_watch_trap_insn(t, slot, trap_pc, &regs, &acc, insn) == 1 && acc.in_progress &&
           trap_pc + acc.len == slot->first_end;
}

static void on_trap(wasp_thread *t, int i, const ucontext_t *uc)
{
    wasp_slot *slot = &t->slots[i];
    const wasp_analysis_client *client =
        wasp_handler_part_of(t->reservoir[i].analysis)->pair;
    int ok;
    uint64_t after = wasp_read_value(slot->addr, slot->watch.len, &ok);
    if (!ok) {
        wasp_watch_drop(t, i, WASP_C_DROP_UNREADABLE);
        return;
    }
    uint64_t trap_pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    if (slot->state == WASP_SLOT_FIRST) {
        if (trap_pc != slot->first_end && !own_string_step(t, slot, trap_pc, uc)) {
            wasp_watch_drop(t, i, WASP_C_DROP_FIRST_TRAP);
            return;
        }
        client->on_first_trap(&slot->watch, after);
        slot->state = WASP_SLOT_ARMED;
        return;
    }

    wasp_regs regs;
    wasp_isa_regs_from_ucontext(uc, &regs);
    wasp_access acc;
    uint8_t insn[WASP_MAX_INSN];
    int found = wasp_watch_trap_insn(t, slot, trap_pc, &regs, &acc, insn);
    if (found < 0)
        return; /* a string instruction on its way to the bytes: its later trap */
    if (!found) {
        wasp_watch_drop(t, i, WASP_C_DROP_TRAP_DECODE);
        return;
    }
    int approx = 0;
    wasp_verdict v = client->on_trap(&slot->watch, acc.kind, after,
                                     wasp_session_get()->float_threshold, &approx);
    switch (v) {
    case WASP_VERDICT_WAIT:
        break;
    case WASP_VERDICT_DROP:
        wasp_watch_drop(t, i, (acc.kind & WASP_ACCESS_LOAD) ? WASP_C_DROP_UNREADABLE
                                                             : WASP_C_DROP_STORE_CHAIN);
        break;
    default:
        classify(t, i, client, v, approx, uc, wasp_watch_trap_insn_pc(trap_pc, &acc), insn,
                 acc.len);
    }
    /* The access that judged it is reached like any other, whatever its
     * members' outcomes (window.h): the engine reports it as a window access
     * after its traps (on_window_access). */
}

#define PAIR_HANDLER_PART(name, sampled)                                                           \
    const wasp_handler_part wasp_handler_##name = {                                               \
        .needs = WASP_NEEDS_WATCH,                                                                 \
        .wants = sampled,                                                                          \
        .pair = &wasp_##name##_client,                                                             \
        .enable = enable,                                                                          \
        .on_sample = on_sample,                                                                    \
        .on_trap = on_trap,                                                                        \
        .on_window_access = on_window_access,                                                      \
        .on_thread_end = on_thread_end,                                                            \
        .thread_state = sizeof(wasp_windows),                                                      \
    };
PAIR_HANDLER_PART(deadstore, WASP_WANTS_STORES)
PAIR_HANDLER_PART(silentstore, WASP_WANTS_STORES)
PAIR_HANDLER_PART(silentload, WASP_WANTS_LOADS)
