/*
 * The frame anchor's layout (see frame_anchor.h), filled by the agent.
 *
 * ASYNC-SIGNAL-SAFE: the layout is data; wasp_frame_anchor_read only reads
 * the interrupted thread's own JavaThread (alive while it runs).
 */
#include "watch/frame_anchor.h"

wasp_frame_anchor_layout wasp_frame_anchor;

int wasp_frame_anchor_read(const void *jni_env, uint64_t sp, wasp_anchor_view *a)
{
    const wasp_frame_anchor_layout *l = &wasp_frame_anchor;
    if (!__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE) || !jni_env)
        return 0;
    uintptr_t env = (uintptr_t)jni_env;
    uintptr_t anchor = env + (uintptr_t)l->anchor_from_env;
    a->state = *(volatile int32_t *)(env + (uintptr_t)l->state_from_env);
    a->stack_base = *(volatile uint64_t *)(env + (uintptr_t)l->stack_base_from_env);
    a->sp_slot = (volatile uint64_t *)(anchor + l->sp_off);
    a->pc_slot = (volatile uint64_t *)(anchor + l->pc_off);
    a->fp_slot = (volatile uint64_t *)(anchor + l->fp_off);
    a->sp = *a->sp_slot;
    a->pc = *a->pc_slot;
    a->fp = *a->fp_slot;
    return a->sp >= sp && a->sp < a->stack_base && a->stack_base - sp < (1ull << 30);
}
