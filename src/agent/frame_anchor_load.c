/*
 * The frame anchor's place relative to a JNIEnv (see watch/frame_anchor.h).
 *
 * VMStructs exports JavaThread::_anchor, the anchor's fields and
 * JavaThread::_thread_state, but not where the JNIEnv sits in a JavaThread
 * (JavaThread::_jni_environment). In HotSpot's JavaThread it follows the
 * anchor and one pointer (_entry_point), in JDK 11 through 25. That guess is
 * proven on the calling thread before it is used: read through it, the state
 * must be "in native" (this code runs in a JVMTI callback), the thread's
 * stack (JavaThread::_stack_base and _stack_size) must hold this frame, and
 * the anchor's last Java sp, when set, must lie on it above this frame.
 *
 * Not async-signal-safe: the agent's start-up.
 */
#include "agent/frame_anchor_load.h"

#include <stdint.h>
#include <stdio.h>

#include "agent/vmstructs.h"
#include "isa/isa.h"
#include "watch/frame_anchor.h"


static int offset_of(const char *type, const char *field, uint64_t *off)
{
    return wasp_vm_field(type, field, off, NULL);
}

static uint64_t here(void)
{
    volatile char c = 0;
    return (uint64_t)(uintptr_t)&c;
}

int wasp_frame_anchor_load(JNIEnv *env, char *why, size_t len)
{
    uint64_t anchor, state, sp_off, pc_off, fp_off, anchor_size, base_off, size_off;
    if (offset_of("JavaThread", "_anchor", &anchor) != 0 ||
        offset_of("JavaThread", "_thread_state", &state) != 0 ||
        offset_of("JavaThread", "_stack_base", &base_off) != 0 ||
        offset_of("JavaThread", "_stack_size", &size_off) != 0 ||
        offset_of("JavaFrameAnchor", "_last_Java_sp", &sp_off) != 0 ||
        offset_of("JavaFrameAnchor", "_last_Java_pc", &pc_off) != 0 ||
        offset_of("JavaFrameAnchor", "_last_Java_fp", &fp_off) != 0) {
        snprintf(why, len, "VMStructs lacks JavaThread::_anchor or its fields");
        return -1;
    }
    if (wasp_vm_type_size("JavaFrameAnchor", &anchor_size) != 0)
        anchor_size = 24; /* sp, pc, fp */
    /* env = thread + anchor + sizeof(JavaFrameAnchor) + sizeof(_entry_point) */
    int64_t env_off = (int64_t)(anchor + anchor_size + 8);
    uint64_t thread = (uint64_t)(uintptr_t)env - (uint64_t)env_off;
    int32_t st = 0;
    uint64_t a_sp = 0, s_base = 0, s_size = 0;
    if (wasp_safe_read(thread + state, &st, sizeof st) != sizeof st ||
        wasp_safe_read(thread + anchor + sp_off, &a_sp, sizeof a_sp) != sizeof a_sp ||
        wasp_safe_read(thread + base_off, &s_base, sizeof s_base) != sizeof s_base ||
        wasp_safe_read(thread + size_off, &s_size, sizeof s_size) != sizeof s_size) {
        snprintf(why, len, "the JavaThread is not readable at the expected place");
        return -1;
    }
    uint64_t sp = here();
    int stack_ok = s_base > sp && s_base - sp < s_size;
    int anchor_ok = a_sp == 0 || (a_sp > sp && a_sp < s_base);
    if (st != WASP_THREAD_IN_NATIVE || !stack_ok || !anchor_ok) {
        snprintf(why, len, "the JavaThread layout is not the expected one (state %d, stack %s, "
                 "anchor %s)", (int)st, stack_ok ? "ok" : "elsewhere", anchor_ok ? "ok" : "elsewhere");
        return -1;
    }
    wasp_frame_anchor.anchor_from_env = (int64_t)anchor - env_off;
    wasp_frame_anchor.state_from_env = (int64_t)state - env_off;
    wasp_frame_anchor.stack_base_from_env = (int64_t)base_off - env_off;
    wasp_frame_anchor.thread_from_env = -env_off;
    uint64_t thread_size;
    wasp_frame_anchor.thread_size =
        wasp_vm_type_size("JavaThread", &thread_size) == 0 && thread_size < (1u << 20)
            ? (uint32_t)thread_size
            : 0;
    wasp_frame_anchor.sp_off = (uint32_t)sp_off;
    wasp_frame_anchor.pc_off = (uint32_t)pc_off;
    wasp_frame_anchor.fp_off = (uint32_t)fp_off;
    __atomic_store_n(&wasp_frame_anchor.ready, 1, __ATOMIC_RELEASE);
    return 0;
}
