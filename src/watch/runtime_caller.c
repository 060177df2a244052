/*
 * See runtime_caller.h.
 *
 * ASYNC-SIGNAL-SAFE: runs in the sampling handler; reads the interrupted
 * thread's own JavaThread and stack (between its anchor's sp and its stack
 * base, mapped) and the code map the caller entered. No writes.
 */
#include "watch/runtime_caller.h"

#include "watch/frame_anchor.h"
#include "watch/interpreter.h"

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

int wasp_stub_caller(const wasp_anchor_view *a, const wasp_code_map *map, wasp_stub_call *c)
{
    const uint64_t *stack = (const uint64_t *)(uintptr_t)a->sp; /* above sp, mapped */
    uint64_t pc = a->pc ? a->pc : stack[-1];
    if (!map || pc < 4096 || wasp_code_map_find(map, pc) || wasp_interpreter_holds(pc))
        return 0; /* no stub: compiled code's own call, or the interpreter's */
    /* The stub's frame: its saved fp and return address at the anchor's fp
     * (on the stack above its sp, below the stack's base, so mapped). */
    if (a->fp >= a->sp && a->fp % 8 == 0 && a->fp + 16 <= a->stack_base) {
        const uint64_t *f = (const uint64_t *)(uintptr_t)a->fp;
        if ((c->nm = call_site(map, f[1]))) {
            *c = (wasp_stub_call){f[1], a->fp + 16, f[0], c->nm};
            return 1;
        }
    }
    for (int i = 0; i < SLOTS && a->sp + 8u * (uint64_t)(i + 1) < a->stack_base; i++)
        if ((c->nm = call_site(map, stack[i]))) {
            *c = (wasp_stub_call){stack[i], a->sp + 8u * (uint64_t)(i + 1), a->fp, c->nm};
            return 1;
        }
    return 0;
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
    /* Else a runtime stub's frame (C1's and C2's allocation and monitor
     * stubs): its caller's call. */
    wasp_stub_call c;
    if (!nm && wasp_stub_caller(&a, map, &c)) {
        nm = c.nm;
        pc = c.ret;
    }
    if (!nm)
        return 0;
    *out = nm;
    return pc - 1; /* within the call: its debug record is the first after */
}
