/*
 * Calling contexts in the handler: AsyncGetCallTrace from the instruction
 * itself, interned in the thread's records (see kit.h).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler.
 */
#include <jni.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"

#include "watch/caller_chain.h"
#include "watch/code_map.h"
#include "watch/frame_anchor.h"
#include "watch/kit.h"
#include "watch/runtime_caller.h"
#include "watch/session.h"

/* AsyncGetCallTrace's statuses (HotSpot's forte.cpp) that wasp retries: a
 * thread outside Java whose last Java frame it cannot find or walk from
 * (ticks_unknown_not_Java, ticks_not_walkable_not_Java), and a PC in code
 * that is no Java frame, or none it can walk from, while the thread is in
 * Java (ticks_unknown_Java, ticks_not_walkable_Java). */
enum {
    AGCT_UNKNOWN_NOT_JAVA = -3,
    AGCT_NOT_WALKABLE_NOT_JAVA = -4,
    AGCT_UNKNOWN_JAVA = -5,
    AGCT_NOT_WALKABLE_JAVA = -6
};

typedef struct {
    void *env;
    int num_frames;
    wasp_rframe *frames;
} agct_trace;

/* The first depth frames at uc into frames (the leaf first): their count, or
 * AsyncGetCallTrace's status (<= 0). It reads the context, never writes it. */
static int walk_into(wasp_thread *t, const ucontext_t *uc, wasp_rframe *frames, int depth)
{
    agct_trace trace = {.env = t->jni_env, .num_frames = 0, .frames = frames};
    wasp_session_get()->agct(&trace, depth, (void *)(uintptr_t)uc);
    return trace.num_frames;
}

static int walk(wasp_thread *t, const ucontext_t *uc)
{
    return walk_into(t, uc, t->scratch, (int)wasp_session_get()->max_frames);
}

static int walk_with_anchor_pc(wasp_thread *t, const ucontext_t *uc, wasp_rframe *frames,
                               int depth);

/* A thread in the JVM's runtime by way of a runtime stub (a C1 allocation
 * blob, a C2 allocation stub): walked from the compiled call that led to
 * the stub, with the anchor set to that call as if the method had called
 * the runtime itself. AsyncGetCallTrace describes the first Java frame it
 * finds past a stub by the debug record after its pc (it takes any frame
 * but the anchor's own for one interrupted anywhere), which past a call is
 * the next call's: a C1 method's `new int[n]` came out at the next line
 * (`new int[1][]` below it held 82% of the samples of an allocation loop,
 * the allocation 6%). At the anchor's own pc it takes the call's record.
 * The anchor is put back as it was (see walk_with_anchor_pc). The frames'
 * count, or -1 when the thread is not in the runtime by way of a stub. */
static int walk_from_stub_caller(wasp_thread *t, const ucontext_t *uc, wasp_rframe *frames,
                                 int depth)
{
    wasp_anchor_view a;
    if (!wasp_frame_anchor_read(t->jni_env, (uint64_t)uc->uc_mcontext.gregs[REG_RSP], &a) ||
        (a.state != WASP_THREAD_IN_VM && a.state != WASP_THREAD_IN_VM_TRANS) || a.sp % 8)
        return -1;
    const wasp_code_map *map = wasp_code_map_enter();
    wasp_stub_call c;
    int n = -1;
    if (wasp_stub_caller(&a, map, &c)) {
        *a.sp_slot = c.sp;
        *a.fp_slot = c.fp;
        *a.pc_slot = c.ret;
        n = walk_into(t, uc, frames, depth);
        *a.sp_slot = a.sp;
        *a.fp_slot = a.fp;
        *a.pc_slot = a.pc;
    }
    wasp_code_map_leave();
    return n;
}

int wasp_top_java_frame(wasp_thread *t, const ucontext_t *uc, wasp_rframe *out)
{
    const wasp_session *s = wasp_session_get();
    if (!s->agct || !t->jni_env)
        return 0;
    /* (A stub's compiled caller is counted before this is asked:
     * wasp_runtime_caller, handler.c's count_place.) */
    int n = walk_into(t, uc, out, 1);
    /* In the runtime the interpreter called (an array's zeroing in
     * InterpreterRuntime::newarray), whose anchor has no pc yet: 2,477 of
     * 2,515 samples of a -Xint loop of new int[200000] went to no line. */
    if (n == AGCT_UNKNOWN_NOT_JAVA || n == AGCT_NOT_WALKABLE_NOT_JAVA)
        n = walk_with_anchor_pc(t, uc, out, 1);
    return n == 1 && out->bci >= 0;
}

/* Puts k native return addresses (the leaf's caller first) under the n Java
 * frames in t->scratch, which holds WASP_NATIVE_FRAMES_MAX more. */
static int prepend_native(wasp_thread *t, int n, const uint64_t *pcs, int k)
{
    if (k <= 0)
        return n;
    for (int i = n - 1; i >= 0; i--)
        t->scratch[i + k] = t->scratch[i];
    for (int i = 0; i < k; i++)
        t->scratch[i] = (wasp_rframe){.bci = WASP_RFRAME_NATIVE, .method = (void *)(uintptr_t)pcs[i]};
    t->rec.counters[WASP_C_STACK_NATIVE_FRAMES] += (uint64_t)k;
    return n + k;
}

/* The n frames in t->scratch were walked from a stub's caller at its return
 * address ret (walk_from_caller). When they name the caller's method without
 * a position (bci < 0), ret goes before them, for the profile's writer to
 * place the call by the method's own debug records (agent/dump.c): on JDK 25
 * the first record after a C2 leaf call to a fill stub can be the return's
 * safepoint poll, which has none, and AsyncGetCallTrace then describes the
 * frame as a native one (3-58% of DeadStoreFill's dead stores came out at
 * `reset` without a line). The handler cannot place it: the compiled methods
 * are published in batches, and the first seconds' are not there yet. The
 * scratch array has a slot for it past max_frames and the native frames
 * (agent/threads.c). Returns the count. */
static int mark_caller(wasp_thread *t, int n, uint64_t ret)
{
    if (n <= 0 || t->scratch[0].bci >= 0)
        return n;
    memmove(&t->scratch[1], &t->scratch[0], (size_t)n * sizeof *t->scratch);
    t->scratch[0] = (wasp_rframe){.bci = WASP_RFRAME_CALLER_AT, .method = (void *)(uintptr_t)ret};
    t->rec.counters[WASP_C_STACK_CALLER_AT]++;
    return n + 1;
}

/* Walks again from the caller of the code at the PC: generated stubs (fill,
 * arraycopy, compare, string intrinsics) are not Java frames, so the walk
 * from their PC fails. Their caller's return address is on the stack: at
 * [rbp + 8] when the stub built a frame (enter), else at [rsp] or a few
 * slots above it (stubs that push registers). The first slot whose value the
 * JVM accepts as a return address into Java code wins; a value that is not
 * code is refused by AsyncGetCallTrace itself, which validates every PC. */
static int walk_from_caller(wasp_thread *t, ucontext_t *copy, uint64_t sp, uint64_t fp)
{
    enum { SLOTS = 8 };
    uint64_t slots[SLOTS + 1];
    int nslots = 0;
    if (fp >= sp && fp - sp < 4096)
        slots[nslots++] = fp + 8; /* the stub's own frame: caller's return address */
    for (int i = 0; i < SLOTS; i++)
        if (sp + 8u * (uint64_t)i != fp + 8)
            slots[nslots++] = sp + 8u * (uint64_t)i;
    for (int i = 0; i < nslots; i++) {
        uint64_t ret;
        if (wasp_safe_read(slots[i], &ret, sizeof ret) != sizeof ret)
            continue;
        /* Stack addresses and small integers are not return addresses. */
        if (ret < 4096 || (ret > sp - (1u << 20) && ret < sp + (1u << 20)))
            continue;
        uint64_t caller_fp = fp;
        if (slots[i] == fp + 8 && wasp_safe_read(fp, &caller_fp, sizeof caller_fp) != sizeof caller_fp)
            continue;
        /* ret - 1 is inside the call instruction: the JVM then describes
         * the call site by the debug info before it. At ret itself it takes
         * the next recorded point, which for the leaf calls C2 makes to
         * fill stubs (they carry no debug info) is the next statement,
         * often in another method. */
        copy->uc_mcontext.gregs[REG_RIP] = (greg_t)(ret - 1);
        copy->uc_mcontext.gregs[REG_RSP] = (greg_t)(slots[i] + 8);
        copy->uc_mcontext.gregs[REG_RBP] = (greg_t)caller_fp;
        int n = walk(t, copy);
        if (n > 0)
            return mark_caller(t, n, ret);
    }
    /* Native code called from Java without leaving it (the JVM's leaf calls:
     * monitor exit, barriers, code-cache lookups) pushes more than a few
     * slots, but keeps frame pointers (libjvm does): follow rbp up to the
     * first return address the JVM accepts. The native return addresses
     * passed on the way go under the Java frames. */
    uint64_t natives[WASP_NATIVE_FRAMES_MAX];
    int nn = 0;
    for (uint64_t f = fp; nn < WASP_NATIVE_FRAMES_MAX && f >= sp && f % 8 == 0 &&
                          f - sp < (1u << 20);) {
        uint64_t link[2]; /* saved rbp, return address */
        if (wasp_safe_read(f, link, sizeof link) != sizeof link)
            break;
        uint64_t ret = link[1];
        if (ret < 4096 || (ret > sp - (1u << 20) && ret < sp + (1u << 20)))
            break;
        if (f != fp) { /* [fp + 8] was tried above */
            copy->uc_mcontext.gregs[REG_RIP] = (greg_t)(ret - 1);
            copy->uc_mcontext.gregs[REG_RSP] = (greg_t)(f + 16);
            copy->uc_mcontext.gregs[REG_RBP] = (greg_t)link[0];
            int n = walk(t, copy);
            if (n > 0)
                return prepend_native(t, n, natives, nn);
        }
        natives[nn++] = ret;
        if (link[0] <= f)
            break;
        f = link[0];
    }
    return -1;
}

/* A thread in the VM whose frame anchor has its last Java sp but not yet
 * its pc (HotSpot fills the pc lazily, make_walkable: the return address
 * just below that sp). The walk is retried with the pc filled in as HotSpot
 * would fill it. When the frame so described (or the anchor as it was,
 * when it had its pc) is a runtime stub the JVM cannot walk past (C2's
 * allocation stubs), the anchor is then set, one slot at a time, to the
 * stub's caller: a return address among the first slots
 * above the stub's sp, which AsyncGetCallTrace accepts only when it returns
 * into Java code. The anchor is put back as it was. Only the interrupted
 * thread itself writes its anchor while it is in the VM, and it is stopped
 * in this handler; no one walks a thread in the VM meanwhile. */
static int walk_with_anchor_pc(wasp_thread *t, const ucontext_t *uc, wasp_rframe *frames,
                               int depth)
{
    enum { SLOTS = 8 };
    wasp_anchor_view a;
    uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
    if (!wasp_frame_anchor_read(t->jni_env, sp, &a) || (a.state != WASP_THREAD_IN_VM &&
                                    a.state != WASP_THREAD_IN_VM_TRANS))
        return -1;
    const uint64_t *stack = (const uint64_t *)(uintptr_t)a.sp; /* on the stack, above sp */
    int n = -1;
    if (!a.pc) {
        uint64_t ret = stack[-1];
        if (ret < 4096)
            return -1;
        *a.pc_slot = ret;
        n = walk_into(t, uc, frames, depth);
    }
    for (int i = 0; n <= 0 && i < SLOTS && a.sp + 8u * (uint64_t)(i + 1) < a.stack_base; i++) {
        uint64_t caller = stack[i];
        if (caller < 4096 || (caller >= sp && caller < a.stack_base))
            continue; /* not a return address: a small value or a stack address */
        *a.sp_slot = a.sp + 8u * (uint64_t)i + 8;
        *a.pc_slot = caller;
        n = walk_into(t, uc, frames, depth);
    }
    *a.sp_slot = a.sp;
    *a.pc_slot = a.pc;
    return n;
}

/* Native frames between the leaf and the thread's last Java frame, by frame
 * pointer: a thread in native code (JNI) or in the VM has its Java frames
 * above the frame anchor's sp, and native code built with frame pointers
 * (libjvm, libraries built so) chains its frames through rbp below it. Each
 * link must lie on the stack between the interrupted sp and the anchor's sp
 * and go up; a return address is taken only when it is not a stack address.
 * Code without frame pointers ends the chain early or skips its own frame
 * ("where the frames allow"); the dump drops return addresses it cannot
 * name. Writes at most WASP_NATIVE_FRAMES_MAX return addresses to out, the
 * leaf's caller first. */
static int native_frames(wasp_thread *t, const ucontext_t *uc, uint64_t *out)
{
    wasp_anchor_view a;
    uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
    if (!wasp_frame_anchor_read(t->jni_env, sp, &a) || (a.state != WASP_THREAD_IN_NATIVE &&
                                    a.state != WASP_THREAD_IN_VM &&
                                    a.state != WASP_THREAD_IN_VM_TRANS))
        return 0;
    uint64_t fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
    int n = 0;
    while (n < WASP_NATIVE_FRAMES_MAX && fp >= sp && fp % 8 == 0 && fp + 16 <= a.sp) {
        const uint64_t *link = (const uint64_t *)(uintptr_t)fp; /* saved rbp, return address */
        uint64_t up = link[0], ret = link[1];
        if (ret < 4096 || (ret >= sp && ret < a.stack_base))
            break;
        out[n++] = ret;
        if (up <= fp)
            break;
        fp = up;
    }
    return n;
}

/* Puts the native frames found by frame pointer under the n Java frames in
 * t->scratch (leaf first). */
static int add_native_frames(wasp_thread *t, const ucontext_t *uc, int n)
{
    uint64_t pcs[WASP_NATIVE_FRAMES_MAX];
    return prepend_native(t, n, pcs, native_frames(t, uc, pcs));
}

/* The counter of a failed walk's cause: AsyncGetCallTrace's status, 0 down
 * to -10 (HotSpot's forte.cpp), in the order of the counters. */
_Static_assert(WASP_C_AGCT_SAFEPOINT == WASP_C_AGCT_NATIVE + 10, "one counter per status 0..-10");

static wasp_counter_id agct_cause(int status)
{
    if (status <= 0 && status >= -10)
        return (wasp_counter_id)(WASP_C_AGCT_NATIVE - status);
    return WASP_C_AGCT_OTHER;
}

/* The walk of the stack at the instruction at pc into t->scratch: its
 * frame count, or AsyncGetCallTrace's status (<= 0). */
static int walk_context(wasp_thread *t, const ucontext_t *uc, uint64_t pc)
{
    int n = -100;
    if (wasp_session_get()->agct && t->jni_env) {
        /* Walk from the instruction itself, not the PC after it, so the line
         * is the access's own. */
        /* The vDSO's monotonic clock (~30 ns a read here; the thread CPU
         * clock is a system call, ~1.7 us, more than a walk's retries). A walk
         * preempted midway counts its wait, rare at a few microseconds. */
        uint64_t t0 = wasp_clock_ns(CLOCK_MONOTONIC);
        ucontext_t copy = *uc;
        copy.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
        n = walk_from_stub_caller(t, &copy, t->scratch, (int)wasp_session_get()->max_frames);
        if (n > 0)
            t->rec.counters[WASP_C_AGCT_ANCHOR_PC]++;
        else
            n = walk(t, &copy);
        uint64_t t1 = wasp_clock_ns(CLOCK_MONOTONIC);
        if (n == AGCT_UNKNOWN_JAVA || n == AGCT_NOT_WALKABLE_JAVA) {
            /* Code that is no Java frame, or no walkable one, while the
             * thread runs Java: a stub (arraycopy, fill, compare), a vtable
             * or itable stub (no frame at all), a runtime leaf a stub called
             * (G1's barriers), or a compiled method's prologue. Retry from
             * the return addresses on the stack; in a prologue the method
             * just entered is then missing and the context is its call site.
             * Keep the first walk's status (the reason) unless the retry works. */
            int m = walk_from_caller(t, &copy, (uint64_t)uc->uc_mcontext.gregs[REG_RSP],
                                     (uint64_t)uc->uc_mcontext.gregs[REG_RBP]);
            if (m > 0)
                n = m;
        } else if (n == AGCT_UNKNOWN_NOT_JAVA || n == AGCT_NOT_WALKABLE_NOT_JAVA) {
            int m = walk_with_anchor_pc(t, &copy, t->scratch, (int)wasp_session_get()->max_frames);
            if (m > 0) {
                n = m;
                t->rec.counters[WASP_C_AGCT_ANCHOR_PC]++;
            }
        }
        if (n > 0)
            n = add_native_frames(t, uc, n);
        uint64_t t2 = wasp_clock_ns(CLOCK_MONOTONIC);
        t->rec.counters[WASP_C_STACK_WALKS]++;
        t->rec.counters[WASP_C_STACK_WALK_NS] += t2 - t0;
        t->rec.counters[WASP_C_STACK_RETRY_NS] += t2 - t1;
    }
    return n;
}

/* --context chain: the sample as (pc, depth) with no walk, when its PC is
 * in a compiled method of known frame shape (watch/caller_chain.h); in
 * check mode the walk is taken too and kept beside it. 1 with *ctx (0 when
 * the records are full), or 0 when the sample must be walked. */
static int chain_context(wasp_thread *t, const ucontext_t *uc, uint64_t pc, const uint8_t *insn,
                         uint8_t insn_len, uint32_t *ctx)
{
    wasp_rframe marks[2];
    uint64_t t0 = wasp_clock_ns(CLOCK_MONOTONIC);
    if (wasp_chain_capture(t, uc, pc, insn, insn_len, marks) != 2) {
        t->rec.counters[WASP_C_CHAIN_WALKED]++;
        return 0;
    }
    t->rec.counters[WASP_C_CHAIN_MAPPED]++;
    t->rec.counters[WASP_C_CHAIN_NS] += wasp_clock_ns(CLOCK_MONOTONIC) - t0;
    int slot = wasp_session_get()->context == WASP_CONTEXT_CHAIN_CHECK ? wasp_chain_check_slot(t) : -1;
    if (slot >= 0) {
        int n = walk_context(t, uc, pc);
        wasp_chain_check_set(t, slot, marks, n > 0 ? wasp_records_trace(&t->rec, t->scratch, n) : 0);
    }
    uint32_t trace = wasp_records_trace(&t->rec, marks, 2);
    *ctx = trace ? wasp_records_context(&t->rec, trace, pc, insn, insn_len) : 0;
    return 1;
}

void wasp_thread_find_env(wasp_thread *t)
{
    const wasp_session *s = wasp_session_get();
    if (!t->jni_env && s->jvm) {
        /* GetEnv only reads the current thread's VM pointer. */
        JavaVM *vm = s->jvm;
        void *env = NULL;
        if ((*vm)->GetEnv(vm, &env, JNI_VERSION_1_6) == JNI_OK)
            t->jni_env = env;
    }
}

uint32_t wasp_capture_context(wasp_thread *t, const ucontext_t *uc, uint64_t pc,
                              const uint8_t *insn, uint8_t insn_len)
{
    const wasp_session *s = wasp_session_get();
    wasp_thread_find_env(t);
    /* Within one handler entry the stack is where it was: a vector access
     * over many window members is their one context (a walk is ~9 us). */
    if (t->ctx_memo_entry == t->entries && t->ctx_memo_pc == pc && t->ctx_memo_len == insn_len)
        return t->ctx_memo;
    uint32_t ctx;
    if (s->context == WASP_CONTEXT_WALK || !chain_context(t, uc, pc, insn, insn_len, &ctx)) {
        int n = walk_context(t, uc, pc);
        if (n <= 0) {
            t->rec.counters[WASP_C_AGCT_FAILED]++;
            t->rec.counters[agct_cause(n)]++;
        }
        uint32_t trace = wasp_records_trace(&t->rec, t->scratch, n);
        ctx = wasp_records_context(&t->rec, trace, pc, insn, insn_len);
    }
    t->ctx_memo_entry = t->entries;
    t->ctx_memo_pc = pc;
    t->ctx_memo_len = insn_len;
    t->ctx_memo = ctx;
    return ctx;
}
