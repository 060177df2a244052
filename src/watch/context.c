/*
 * Calling contexts in the handler: AsyncGetCallTrace from the instruction
 * itself, interned in the thread's records (see kit.h).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler.
 */
#include <jni.h>

#include "watch/kit.h"
#include "watch/runtime.h"

typedef struct {
    void *env;
    int num_frames;
    wasp_rframe *frames;
} agct_trace;

static int walk(wasp_thread *t, ucontext_t *uc)
{
    agct_trace trace = {.env = t->jni_env, .num_frames = 0, .frames = t->scratch};
    wasp_rt.agct(&trace, (int)wasp_rt.max_frames, uc);
    return trace.num_frames;
}

uint32_t wasp_capture_context(wasp_thread *t, const ucontext_t *uc, uint64_t pc,
                              const uint8_t *insn, uint8_t insn_len)
{
    int n = -100;
    if (!t->jni_env && wasp_rt.jvm) {
        /* A thread that ran before the agent attached: ask the JVM for its
         * JNIEnv (GetEnv only reads the current thread's VM pointer). */
        JavaVM *vm = wasp_rt.jvm;
        void *env = NULL;
        if ((*vm)->GetEnv(vm, &env, JNI_VERSION_1_6) == JNI_OK)
            t->jni_env = env;
    }
    if (wasp_rt.agct && t->jni_env) {
        /* Walk from the instruction itself, not the PC after it, so the line
         * is the access's own. */
        ucontext_t copy = *uc;
        copy.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
        n = walk(t, &copy);
        if (n < 0) {
            /* Generated stubs (arraycopy, math intrinsics) have no frame of
             * their own: retry from their caller, whose return address is on
             * top of the stack. */
            uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP], ret;
            if (wasp_safe_read(sp, &ret, sizeof ret) == sizeof ret) {
                copy.uc_mcontext.gregs[REG_RIP] = (greg_t)ret;
                copy.uc_mcontext.gregs[REG_RSP] = (greg_t)(sp + 8);
                int m = walk(t, &copy);
                if (m > 0)
                    n = m;
            }
        }
    }
    if (n <= 0)
        t->rec.counters[WASP_C_AGCT_FAILED]++;
    uint32_t trace = wasp_records_trace(&t->rec, t->scratch, n);
    return wasp_records_context(&t->rec, trace, pc, insn, insn_len);
}
