/*
 * Where a Java thread's frame anchor lies, relative to its JNIEnv: the last
 * Java frame HotSpot records when a thread leaves Java for the VM or native
 * code (JavaThread::_anchor: last Java sp, pc, fp) and the thread's state.
 * Filled once by the agent (agent/frame_anchor_load.c) and published with
 * `ready`; read by the handler's stack walk (watch/context.c).
 *
 * Why: a thread that called from compiled code into the VM (allocation slow
 * paths, class loading, the verifier) has its anchor's sp set but its pc
 * left NULL until something needs it (HotSpot's make_walkable), and
 * AsyncGetCallTrace refuses such a thread ("unknown frame, not Java")
 * although its Java frames are intact.
 *
 * The handler reads the JavaThread of the thread it interrupted directly
 * (it is alive while its thread runs) and that thread's stack between the
 * interrupted sp and the stack base (mapped).
 *
 * ASYNC-SIGNAL-SAFE: plain reads of fields settled before `ready` is set.
 */
#ifndef WASP_FRAME_ANCHOR_H
#define WASP_FRAME_ANCHOR_H

#include <stdint.h>

/* HotSpot's JavaThreadState values (stable since JDK 6). */
enum { WASP_THREAD_IN_NATIVE = 4, WASP_THREAD_IN_VM = 6, WASP_THREAD_IN_VM_TRANS = 7 };

typedef struct wasp_frame_anchor_layout {
    volatile int ready;
    int64_t anchor_from_env; /* JavaFrameAnchor address = JNIEnv* + this */
    int64_t state_from_env;  /* JavaThread::_thread_state (a 32-bit value) */
    int64_t stack_base_from_env; /* JavaThread::_stack_base: the stack's top end */
    int64_t thread_from_env;     /* the JavaThread itself (for other fields' places) */
    uint32_t thread_size;        /* sizeof(JavaThread), 0 when VMStructs do not say */
    uint32_t sp_off, pc_off, fp_off; /* in the anchor */
} wasp_frame_anchor_layout;

extern wasp_frame_anchor_layout wasp_frame_anchor;

/* The interrupted thread's frame anchor and state, as read. */
typedef struct wasp_anchor_view {
    int32_t state;
    uint64_t sp, pc, fp, stack_base;
    volatile uint64_t *sp_slot, *pc_slot, *fp_slot;
} wasp_anchor_view;

/* Reads the anchor of the thread whose JNIEnv is jni_env, interrupted at
 * sp: 1 when the layout is known and the anchor's sp lies on that thread's
 * stack at or above sp, else 0. At sp itself: sp is a caller's, the runtime
 * stub's that set the anchor at its call into the VM (the locks handler's
 * slow path walks from there); the word below it, the call's return
 * address, is on the stack the thread ran below it. For the interrupted
 * thread itself, in its handler. */
int wasp_frame_anchor_read(const void *jni_env, uint64_t sp, wasp_anchor_view *a);

#endif
