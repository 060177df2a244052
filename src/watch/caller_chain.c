/*
 * See caller_chain.h.
 *
 * ASYNC-SIGNAL-SAFE: wasp_chain_capture and the check functions run in the
 * sampling handler: reads of the immutable code map (watch/code_map.h), of
 * the interrupted thread's JavaThread (its stack base, as watch/context.c
 * reads its frame anchor) and of one slot of its stack between rsp and the
 * stack base, which is mapped; no allocation, no locks.
 */
#include "watch/caller_chain.h"

#include <stdlib.h>

#include "watch/code_map.h"
#include "watch/frame_anchor.h"
#include "watch/reservoir.h"
#include "watch/thread_state.h"

static uint64_t quad_hash(const wasp_chain_quad *q)
{
    uint64_t h = q->ret_pc * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)q->callee_id << 32 | q->callee_depth) * 0xc2b2ae3d27d4eb4full;
    h ^= (uint64_t)q->caller_depth * 0x165667b19e3779f9ull;
    return h ^ (h >> 29);
}

static void add_quad(wasp_thread *t, const wasp_chain_quad *q)
{
    wasp_chain_thread *c = t->chain;
    uint32_t mask = WASP_CHAIN_QUADS - 1;
    for (uint32_t i = (uint32_t)quad_hash(q) & mask, k = 0; k < WASP_CHAIN_QUADS / 2;
         i = (i + 1) & mask, k++) {
        wasp_chain_quad *e = &c->quads[i];
        if (!e->count) {
            if (c->nquads >= WASP_CHAIN_QUADS * 3 / 4)
                break;
            *e = *q;
            e->count = 1;
            c->nquads++;
            return;
        }
        if (e->ret_pc == q->ret_pc && e->callee_id == q->callee_id &&
            e->callee_depth == q->callee_depth && e->caller_id == q->caller_id &&
            e->caller_depth == q->caller_depth) {
            e->count++;
            return;
        }
    }
    t->rec.counters[WASP_C_CHAIN_QUADS_FULL]++;
}

/* The interrupted thread's stack base (its top), from its JavaThread; 0
 * when unknown or not above rsp by less than 1 GiB. */
static uint64_t stack_base(const wasp_thread *t, uint64_t rsp)
{
    const wasp_frame_anchor_layout *l = &wasp_frame_anchor;
    if (!t->jni_env || !__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE))
        return 0;
    uint64_t base =
        *(volatile uint64_t *)((uintptr_t)t->jni_env + (uintptr_t)l->stack_base_from_env);
    return base > rsp && base - rsp < (1ull << 30) ? base : 0;
}

/* Why a sample is walked: the cause's counter. */
static int walked(wasp_thread *t, wasp_counter_id cause)
{
    t->rec.counters[cause]++;
    return 0;
}

static int capture(wasp_thread *t, const wasp_code_map *map, const ucontext_t *uc, uint64_t pc,
                   const uint8_t *insn, uint8_t len, wasp_rframe *frames)
{
    uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    uint64_t rsp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
    const wasp_nmethod *nm = wasp_code_map_find(map, rip);
    if (!nm || pc < nm->start || pc >= nm->end)
        return walked(t, WASP_C_CHAIN_NOT_COMPILED);
    if (!wasp_nmethod_holds(nm, pc, insn, len))
        return walked(t, WASP_C_CHAIN_UNVERIFIED);
    if (!nm->shape.frame_size)
        return walked(t, WASP_C_CHAIN_NO_SHAPE);
    uint32_t off = (uint32_t)(rip - nm->start);
    if (!wasp_nmethod_rsp_known(nm, off))
        return walked(t, WASP_C_CHAIN_RSP_UNKNOWN);
    uint64_t base = stack_base(t, rsp);
    if (!base)
        return walked(t, WASP_C_CHAIN_NO_STACK);
    uint64_t slot = rsp + wasp_frame_ret_offset(&nm->shape, off);
    if (slot % 8 || slot + 8 > base)
        return walked(t, WASP_C_CHAIN_BAD_RETURN);
    /* The slot lies within the interrupted method's own frame, [rsp, rsp +
     * frame_size), above which its callers' frames are: mapped stack,
     * whatever the stack base read above. */
    uint64_t ret = *(const volatile uint64_t *)(uintptr_t)slot;
    wasp_chain_quad q = {.ret_pc = ret, .callee_id = nm->id,
                         .callee_depth = (uint32_t)(base - slot)};
    const wasp_nmethod *caller = wasp_code_map_find(map, ret);
    if (caller) {
        /* A return address into compiled code is one of its call sites;
         * anything else means the offset was wrong (a shape misread). */
        if (!wasp_nmethod_is_call_site(caller, ret))
            return walked(t, WASP_C_CHAIN_BAD_RETURN);
        q.caller_id = caller->id;
        uint32_t fs = caller->shape.frame_size;
        q.caller_depth = fs && fs < q.callee_depth ? q.callee_depth - fs : 0;
    }
    add_quad(t, &q);
    frames[0] = (wasp_rframe){.bci = WASP_RFRAME_CHAIN, .method = (void *)(uintptr_t)pc};
    frames[1] = (wasp_rframe){.bci = (int32_t)nm->id,
                              .method = (void *)(uintptr_t)q.callee_depth};
    return 2;
}

int wasp_chain_capture(wasp_thread *t, const ucontext_t *uc, uint64_t pc, const uint8_t *insn,
                       uint8_t len, wasp_rframe *frames)
{
    if (!t->chain)
        return walked(t, WASP_C_CHAIN_NO_STACK);
    const wasp_code_map *map = wasp_code_map_enter();
    int n = capture(t, map, uc, pc, insn, len, frames);
    wasp_code_map_leave();
    return n;
}

int wasp_chain_check_slot(wasp_thread *t)
{
    wasp_chain_thread *c = t->chain;
    if (!c)
        return -1;
    /* A uniform sample of the thread's checks (reservoir), not its first
     * ones: those are the warm-up, when callers are still interpreted. */
    uint64_t seen = ++c->checks_seen;
    uint64_t i = seen <= WASP_CHAIN_CHECKS ? seen - 1 : wasp_rng_next(&t->rng) % seen;
    return i < WASP_CHAIN_CHECKS ? (int)i : -1;
}

void wasp_chain_check_set(wasp_thread *t, int slot, const wasp_rframe *frames, uint32_t trace)
{
    wasp_chain_thread *c = t->chain;
    if (!c || slot < 0 || slot >= WASP_CHAIN_CHECKS)
        return;
    if ((uint32_t)slot >= c->nchecks)
        c->nchecks = (uint32_t)slot + 1;
    c->checks[slot] = (wasp_chain_check){
        .pc = (uint64_t)(uintptr_t)frames[0].method, .id = (uint32_t)frames[1].bci,
        .depth = (uint32_t)(uintptr_t)frames[1].method, .trace = trace};
}

wasp_chain_thread *wasp_chain_thread_new(void)
{
    return calloc(1, sizeof(wasp_chain_thread));
}

void wasp_chain_thread_free(wasp_chain_thread *c)
{
    free(c);
}
