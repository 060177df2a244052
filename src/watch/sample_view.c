/*
 * The sample's view: registers and the code at the interrupted PC, and the
 * accesses analyses find there (see kit.h).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler. Code bytes are read with
 * wasp_read_code.
 */
#include <string.h>

#include "watch/kit.h"
#include "watch/frame_anchor.h"
#include "watch/thread_state.h"

void wasp_view_init(wasp_sample_view *v, const wasp_thread *t, const ucontext_t *uc,
                    const wasp_address_sample *s)
{
    v->s = s;
    v->uc = uc;
    wasp_isa_regs_from_ucontext(uc, &v->regs);
    const wasp_frame_anchor_layout *fa = &wasp_frame_anchor;
    if (t->jni_env && fa->thread_size && __atomic_load_n(&fa->ready, __ATOMIC_ACQUIRE)) {
        v->regs.vm_lo = (uint64_t)(uintptr_t)t->jni_env + (uint64_t)fa->thread_from_env;
        v->regs.vm_hi = v->regs.vm_lo + fa->thread_size;
    }
    v->n = wasp_read_code(s->pc, v->code, s->has_addr ? WASP_MAX_INSN : sizeof v->code,
                          (uint64_t)uc->uc_mcontext.gregs[REG_RIP]);
}

int wasp_view_find(const wasp_sample_view *v, int wanted, wasp_access *acc, uint64_t *at)
{
    if (!v->n)
        return -1;
    if (!v->s->has_addr)
        return wasp_isa_find_access(v->code, v->n, v->s->pc, &v->regs, wanted, WASP_VIEW_INSNS,
                                    acc, at);
    int rc = wasp_isa_decode_access(v->code, v->n, v->s->pc, &v->regs, acc);
    *at = v->s->pc;
    if (rc != 1)
        return rc;
    acc->addr = v->s->addr;
    if (!(acc->kind & wanted))
        return 0;
    return wasp_isa_is_program_data(acc, &v->regs) ? 1 : 2;
}

int wasp_view_prev(const wasp_sample_view *v, int wanted, wasp_access *acc, uint64_t *at,
                   uint8_t *insn)
{
    /* x86 cannot be decoded backwards with certainty: the earlier bytes say
     * where the last instruction starts when decoding from them agrees,
     * else the longest candidate is taken (a shorter one is most often the
     * tail of the real one). */
    if (v->s->has_addr)
        return 0;
    uint8_t before[WASP_SYNC_WINDOW];
    size_t n = wasp_read_code(v->s->pc - sizeof before, before, sizeof before, v->s->pc);
    if (n != sizeof before) { /* a mapping starts within the window: the last bytes only */
        n = wasp_read_code(v->s->pc - WASP_MAX_INSN, before, WASP_MAX_INSN, v->s->pc);
        if (n != WASP_MAX_INSN)
            return 0;
    }
    if (wasp_isa_prev_accesses(before, n, v->s->pc, &v->regs, acc, 1) != 1 ||
        !(acc->kind & wanted))
        return 0;
    *at = v->s->pc - acc->len;
    memcpy(insn, before + n - acc->len, acc->len);
    return 1;
}

void wasp_view_insn(const wasp_sample_view *v, uint64_t at, uint8_t len, uint8_t *insn)
{
    memcpy(insn, v->code + (at - v->s->pc), len);
}

void wasp_view_count_miss(wasp_thread *t, int rc)
{
    t->rec.counters[rc == 0   ? WASP_C_SAMPLES_NOMEM
                    : rc == 2 ? WASP_C_SAMPLES_IGNORED
                              : WASP_C_SAMPLES_UNDECODABLE]++;
}
