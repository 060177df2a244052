/*
 * See runtime_caller.h.
 *
 * ASYNC-SIGNAL-SAFE: runs in the sampling handler; reads the interrupted
 * thread's own JavaThread and stack (between its anchor's sp and its stack
 * base, mapped) and the code map the caller entered. No writes.
 */
#include "watch/runtime_caller.h"

#include "watch/frame_anchor.h"

/* How far above the anchor's sp a stub's caller may be found: C2's runtime
 * stubs keep a frame of a few words (walk_with_anchor_pc in context.c
 * scans as many). */
enum { SLOTS = 8 };

/* The nmethod pc returns into, when pc is one of its call sites. */
static const wasp_nmethod *call_site(const wasp_code_map *map, uint64_t pc)
{
    const wasp_nmethod *nm = pc >= 4096 ? wasp_code_map_find(map, pc) : NULL;
    return nm && wasp_nmethod_is_call_site(nm, pc) ? nm : NULL;
}

uint64_t wasp_runtime_caller(const void *jni_env, uint64_t sp, const wasp_code_map *map,
                             const wasp_nmethod **out)
{
    wasp_anchor_view a;
    if (!map || !wasp_frame_anchor_read(jni_env, sp, &a) || a.sp % 8 != 0 ||
        (a.state != WASP_THREAD_IN_VM && a.state != WASP_THREAD_IN_VM_TRANS &&
         a.state != WASP_THREAD_IN_NATIVE))
        return 0; /* (an aligned sp above the interrupted one: stack[-1] is at or above it) */
    const uint64_t *stack = (const uint64_t *)(uintptr_t)a.sp; /* above sp, mapped */
    /* The anchor's pc when HotSpot set it (a native method's wrapper sets
     * its own, a place without a debug record); else where HotSpot would
     * fill it from, the return address just below its sp, which must be a
     * call site (a call from compiled code into the VM returns there). */
    uint64_t pc = a.pc;
    const wasp_nmethod *nm = pc >= 4096 ? wasp_code_map_find(map, pc) : NULL;
    if (!nm && !pc)
        nm = call_site(map, pc = stack[-1]);
    /* Else a runtime stub's frame (C2's allocation and monitor stubs): its
     * caller's return address among the first slots above it. */
    for (int i = 0; !nm && i < SLOTS && a.sp + 8u * (uint64_t)(i + 1) < a.stack_base; i++)
        nm = call_site(map, pc = stack[i]);
    if (!nm)
        return 0;
    *out = nm;
    return pc - 1; /* within the call: its debug record is the first after */
}
