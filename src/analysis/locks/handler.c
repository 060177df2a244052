/*
 * Lock activity (Inoue and Nakatani, OOPSLA'09, Section 5.2) in the handler.
 * HotSpot emits no ProbeNOP, so the lock-acquiring instructions themselves
 * are what samples find: a compare-and-swap on an object's mark word (offset
 * 0 of the object) in generated code — the fast path of monitorenter (stack
 * locking, lightweight locking) and of monitorexit — gives the locked
 * object's class; a sample whose PC is in one of the runtime's monitor-enter
 * slow paths (libjvm functions found by the agent part, records.h) counts
 * the acquiring context's slow path, with the object's class when the
 * monitor being entered is found. Both keep the sample's Java context.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler: no allocation, no locks,
 * no stdio; memory is read only through wasp_safe_read (java_object.c).
 */
#include "watch/handler_part.h"
#include "analysis/locks/lock_stack.h"
#include "analysis/locks/records.h"
#include "heap/java_layout.h"
#include "heap/heap_addresses.h"
#include "heap/java_object.h"
#include "heap/klass_set.h"
#include "watch/frame_anchor.h"
#include "watch/sampler_period.h"

#include <string.h>

enum {
    C_CAS, C_NOT_OBJECT, C_OTHER_CAS, C_SLOW, C_TABLE_FULL, C_CLASS_SET_FULL, C_MONITOR,
    C_SLOW_BY_PENDING, C_SLOW_BY_REGISTER, C_LOCK_STACK, C_LOCK_STACK_NOT_OBJECT,
};

wasp_lock_code wasp_lock_code_ranges;

int wasp_lock_slow_function(const wasp_lock_code *c, uint64_t pc)
{
    if (pc < c->jvm_lo || pc >= c->jvm_hi)
        return -1;
    uint32_t lo = 0, hi = c->n < WASP_LOCK_FUNCS ? c->n : WASP_LOCK_FUNCS;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (pc < c->lo[mid])
            hi = mid;
        else if (pc >= c->hi[mid])
            lo = mid + 1;
        else
            return (int)mid;
    }
    return -1;
}

int wasp_lock_cas_kind(uint64_t written)
{
    switch (written & 3) {
    case 0:
        return WASP_LOCK_ACQUIRE;
    case 1:
        return WASP_LOCK_RELEASE;
    default:
        return -1;
    }
}

int wasp_lock_cas_source(const uint8_t *insn, unsigned len)
{
    unsigned i = 0, rex = 0;
    while (i < len && (insn[i] == 0xf0 || insn[i] == 0x66 || insn[i] == 0x2e || insn[i] == 0x3e))
        i++;
    if (i < len && (insn[i] & 0xf0) == 0x40)
        rex = insn[i++];
    if (i + 3 > len || insn[i] != 0x0f || insn[i + 1] != 0xb1)
        return -1;
    return (int)((insn[i + 2] >> 3 & 7) | (rex & 4) << 1);
}

int wasp_lock_mark_kind(uint64_t mark)
{
    /* The mark now is what the other kind of compare-and-swap writes. */
    int k = wasp_lock_cas_kind(mark);
    return k < 0 ? k : WASP_LOCK_ACQUIRE + WASP_LOCK_RELEASE - k;
}

static void count(wasp_thread *t, int which)
{
    t->rec.part_counters[WASP_ID_locks][which]++;
}

static void record(wasp_thread *t, uint64_t klass, uint32_t ctx, uint32_t kind)
{
    wasp_lock_thread *lt = t->part_state[WASP_ID_locks];
    uint64_t x = klass * 0x9e3779b97f4a7c15ull ^ ((uint64_t)kind << 32 | ctx);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    uint32_t h = (uint32_t)(x >> 40);
    for (uint32_t i = 0; i < 32; i++) {
        wasp_lock_rec *r = &lt->recs[(h + i) & (WASP_LOCK_SLOTS - 1)];
        if (r->ctx == 0) {
            r->klass = klass;
            r->kind = kind;
            r->ctx = ctx + 1;
        } else if (r->ctx != ctx + 1 || r->klass != klass || r->kind != kind) {
            continue;
        }
        r->samples += wasp_sample_weight(t);
        return;
    }
    count(t, C_TABLE_FULL);
}

/* The object of the inflated monitor a mark word (monitor | 2) points to:
 * HotSpot's ObjectMonitor holds its object's handle (an oop*) right after
 * its header word, in JDK 17 to 25 (the slot holds a zpointer under
 * generational ZGC: heap/heap_addresses.h). Trusted only when that object's
 * mark word points back to the monitor and its header is valid. */
static int monitor_object(uint64_t mark, wasp_java_object *o)
{
    uint64_t handle = 0, obj = 0, back = 0;
    if (wasp_safe_read(mark - 2 + 8, &handle, 8) != 8 || !handle || (handle & 7) ||
        wasp_safe_read(handle, &obj, 8) != 8 || !(obj = wasp_heap_slot_address(obj)) ||
        wasp_safe_read(obj, &back, 8) != 8 || back != mark)
        return 0;
    return wasp_java_object_at(obj, obj, NULL, o) == 1;
}

/* The WASP_MAX_INSN code bytes that end at the interrupted PC, for the
 * instruction that just ran (software samples: the one that held the thread
 * up); 0 when there is none to look at (a PMU sample: the sampled access is
 * at the PC), or the bytes cannot be read. */
static int code_before(const wasp_sample_view *v, uint8_t before[WASP_MAX_INSN])
{
    uint64_t pc = v->s->pc;
    return !v->s->executed && pc >= WASP_MAX_INSN &&
           wasp_read_code(pc - WASP_MAX_INSN, before, WASP_MAX_INSN, pc) == WASP_MAX_INSN;
}

/* The `lock cmpxchg` that ended at the interrupted PC (before: the bytes up
 * to it, code_before). wasp_view_prev does not look for accesses without a
 * displacement, and the mark word is at offset 0: a lock prefix k bytes
 * back that decodes as a cmpxchg of exactly k bytes. cmpxchg changes only
 * rax and memory, never its address registers in HotSpot's code, so the
 * address is recomputed from the registers now. */
static int prev_cas(const wasp_sample_view *v, const uint8_t *before, wasp_object_hit *h)
{
    uint64_t pc = v->s->pc;
    for (unsigned k = 4; before && k <= WASP_MAX_INSN; k++) {
        const uint8_t *b = before + WASP_MAX_INSN - k;
        if (b[0] != 0xf0 || wasp_isa_decode_access(b, k, pc - k, &v->regs, &h->acc) != 1 ||
            h->acc.len != k || h->acc.atomic != 2)
            continue;
        h->at = pc - k;
        memcpy(h->insn, b, k);
        h->executed = 1;
        return 1;
    }
    return 0;
}

/* A compare-and-swap at the sample: the one that just ran, else the
 * thread's next access (the sampled one on a PMU). */
static int find_cas(const wasp_sample_view *v, const uint8_t *before, wasp_object_hit *h)
{
    if (prev_cas(v, before, h))
        return 1;
    const int any = WASP_ACCESS_LOAD | WASP_ACCESS_STORE;
    if (wasp_view_find(v, any, &h->acc, &h->at) != 1 || h->acc.atomic != 2)
        return 0;
    wasp_view_insn(v, h->at, h->acc.len, h->insn);
    h->executed = v->s->executed;
    return 1;
}

/* The code that called into libjvm: HotSpot keeps frame pointers, so the
 * rbp chain is followed (reads through wasp_safe_read, within 1 MiB above
 * sp) to the first return address outside libjvm — a Java frame or the
 * runtime stub that called the slow path. AsyncGetCallTrace cannot walk
 * from a PC in libjvm while the thread is still "in Java"; from the caller
 * it can (stubs: context.c's retry). *out is uc with the caller's pc, sp
 * and fp; *pc the call instruction (the return address - 1). */
static int runtime_caller(const wasp_lock_code *code, const ucontext_t *uc, ucontext_t *out,
                          uint64_t *pc)
{
    uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
    uint64_t fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
    for (int i = 0; i < 16; i++) {
        uint64_t w[2]; /* saved rbp, return address */
        if (fp < sp || fp - sp > (1u << 20) || (fp & 7) || wasp_safe_read(fp, w, sizeof w) != sizeof w)
            return 0;
        if (w[1] < code->jvm_lo || w[1] >= code->jvm_hi) {
            *out = *uc;
            out->uc_mcontext.gregs[REG_RIP] = (greg_t)w[1];
            out->uc_mcontext.gregs[REG_RSP] = (greg_t)(fp + 16);
            out->uc_mcontext.gregs[REG_RBP] = (greg_t)w[0];
            *pc = w[1] - 1;
            return 1;
        }
        sp = fp + 16;
        fp = w[0];
    }
    return 0;
}

/* The class of the object whose monitor the thread announced it is
 * entering (records.h), or 0. */
static uint64_t pending_class(const wasp_thread *t, const wasp_lock_code *code)
{
    uint64_t monitor = 0;
    wasp_java_object o;
    if (!code->pending_monitor_offset || !t->jni_env ||
        !__atomic_load_n(&wasp_frame_anchor.ready, __ATOMIC_ACQUIRE))
        return 0;
    uint64_t at = (uint64_t)(uintptr_t)t->jni_env + (uint64_t)wasp_frame_anchor.thread_from_env +
                  code->pending_monitor_offset;
    if (wasp_safe_read(at, &monitor, sizeof monitor) != sizeof monitor || !monitor ||
        (monitor & 7) || !monitor_object(monitor | 2, &o))
        return 0;
    return o.klass;
}

/* Before the thread announces the monitor (its first spin, quick_enter),
 * the object or its monitor is in one of its registers: an object in the
 * heap whose mark word points to its monitor, or a monitor whose object's
 * mark points back to it (monitor_object's check, which an unrelated value
 * passes only by being such a pair). Register values near the stack or
 * below 64 KiB are not tried; a try is two or three reads. 0: none. */
static uint64_t register_class(const wasp_sample_view *v)
{
    /* The arguments' registers first (quick_enter's object, the runtime
     * entries'), then the callee-saved ones (a spin loop's monitor), then
     * the rest; never rsp, rbp. */
    static const int order[] = {7, 6, 2, 3, 12, 13, 14, 15, 1, 0, 8, 9, 10, 11};
    const wasp_java_layout *l = &wasp_java;
    uint64_t sp = v->regs.gpr[4];
    wasp_java_object o;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        uint64_t r = v->regs.gpr[order[k]], mark = 0;
        if ((r & 7) || r < 65536 || (r >= sp - 65536 && r < sp + (1u << 20)))
            continue;
        if (r >= l->heap_lo && r < l->heap_hi) {
            if (wasp_safe_read(r, &mark, sizeof mark) == sizeof mark && (mark & 3) == 2 &&
                monitor_object(mark, &o))
                return o.klass;
        } else if (monitor_object(r | 2, &o)) {
            return o.klass;
        }
    }
    return 0;
}

/* The object a lock-stack instruction worked on, read after it ran: its
 * register, or the slot the top now points past (pushed) or at (popped). */
static uint64_t lock_stack_object(const wasp_sample_view *v, const wasp_lock_stack_op *op)
{
    uint64_t thread = v->regs.gpr[15], obj = 0;
    uint32_t top = 0;
    if (op->form == WASP_LOCK_STACK_CMP || op->form == WASP_LOCK_STACK_PUSH)
        return v->regs.gpr[op->reg];
    if (wasp_safe_read(thread + (uint64_t)op->disp, &top, sizeof top) != sizeof top || top < 8)
        return 0;
    uint64_t slot = thread + top - (op->form == WASP_LOCK_STACK_UP ? 8 : 0);
    if (v->regs.vm_lo && (slot < v->regs.vm_lo || slot + 8 > v->regs.vm_hi))
        return 0;
    return wasp_safe_read(slot, &obj, sizeof obj) == sizeof obj ? obj : 0;
}

/* A software sample right after a lock-stack instruction of lightweight
 * locking (lock_stack.h): the lock's work, as the compare-and-swap is;
 * recorded as its acquisition or release. */
static void lock_stack_sample(wasp_thread *t, const wasp_sample_view *v, const uint8_t *before)
{
    static const unsigned lengths[] = {4, 5, 8};
    uint64_t pc = v->s->pc;
    if (!before)
        return;
    /* HotSpot's compiled code keeps the current JavaThread in r15. */
    if (v->regs.vm_lo && v->regs.gpr[15] != v->regs.vm_lo)
        return;
    wasp_lock_stack_op op = {0};
    unsigned k = 0;
    for (unsigned i = 0; i < sizeof lengths / sizeof lengths[0] && !op.form; i++) {
        k = lengths[i];
        wasp_lock_stack_decode(before + WASP_MAX_INSN - k, k, &op);
    }
    if (!op.form)
        return;
    /* A check is the exit's when the pop follows at once: a branch (6
     * bytes at most), then the pop (8). */
    unsigned next = v->n < 16 ? v->n : 16;
    int kind = WASP_LOCK_ACQUIRE;
    if (op.form == WASP_LOCK_STACK_DOWN || (op.form == WASP_LOCK_STACK_CMP && op.disp == -16) ||
        (op.form == WASP_LOCK_STACK_CMP && wasp_lock_stack_pops_next(v->code, next)))
        kind = WASP_LOCK_RELEASE;
    uint64_t obj = lock_stack_object(v, &op);
    wasp_java_object o;
    if (!obj || wasp_java_object_at(obj, obj, wasp_object_hit_recent(t), &o) != 1 || o.offset != 0) {
        count(t, C_LOCK_STACK_NOT_OBJECT);
        return;
    }
    count(t, C_LOCK_STACK);
    if (!wasp_klass_set_add(o.klass))
        count(t, C_CLASS_SET_FULL);
    const uint8_t *insn = before + WASP_MAX_INSN - k;
    record(t, o.klass, wasp_capture_context(t, v->uc, pc - k, insn, (uint8_t)k), (uint32_t)kind);
}

static void on_sample(wasp_thread *t, const wasp_sample_view *v)
{
    const wasp_lock_code *code = &wasp_lock_code_ranges;
    uint64_t pc = v->s->pc;
    if (pc >= code->jvm_lo && pc < code->jvm_hi) {
        int f = wasp_lock_slow_function(code, pc);
        if (f < 0)
            return; /* other runtime code: not lock activity */
        count(t, C_SLOW);
        /* The context from the code that called into the runtime: one per
         * call site and Java stack (the function is the record's kind). */
        ucontext_t caller;
        uint64_t at = code->lo[f];
        const ucontext_t *uc = v->uc;
        if (runtime_caller(code, v->uc, &caller, &at))
            uc = &caller;
        uint32_t ctx = wasp_capture_context(t, uc, at, v->code, 0);
        uint64_t klass = pending_class(t, code);
        if (klass)
            count(t, C_SLOW_BY_PENDING);
        else if ((klass = register_class(v)) != 0)
            count(t, C_SLOW_BY_REGISTER);
        if (klass && !wasp_klass_set_add(klass))
            count(t, C_CLASS_SET_FULL);
        record(t, klass, ctx, WASP_LOCK_SLOW + (uint32_t)f);
        return;
    }
    wasp_object_hit h;
    uint8_t bytes[WASP_MAX_INSN];
    const uint8_t *before = code_before(v, bytes) ? bytes : NULL;
    if (!find_cas(v, before, &h)) {
        lock_stack_sample(t, v, before);
        return;
    }
    int src = wasp_lock_cas_source(h.insn, h.acc.len);
    if (src < 0 || h.acc.size != 8) {
        count(t, C_OTHER_CAS);
        return;
    }
    wasp_java_object o;
    int kind;
    if (h.acc.disp == 0) {
        /* On the mark word itself (the access's address is the object).
         * After it ran, the register it wrote from says what it did; before
         * (the thread's next access), that register may not be set yet, and
         * the mark word says what it will do. */
        uint64_t mark = 0;
        if (h.executed)
            kind = wasp_lock_cas_kind(v->regs.gpr[src]);
        else
            kind = wasp_safe_read(h.acc.addr, &mark, 8) == 8 ? wasp_lock_mark_kind(mark) : -1;
        if (kind < 0 ||
            wasp_java_object_at(h.acc.addr, h.acc.addr, wasp_object_hit_recent(t), &o) != 1 ||
            o.offset != 0) {
            count(t, kind < 0 ? C_OTHER_CAS : C_NOT_OBJECT);
            return;
        }
        count(t, C_CAS);
    } else if (h.acc.has_base && !h.acc.has_index && (h.acc.base_val & 3) == 2) {
        /* On an inflated monitor's owner: the base is the mark word (the
         * monitor | 2); the object is the one whose mark that is. */
        if (!monitor_object(h.acc.base_val, &o)) {
            count(t, C_NOT_OBJECT);
            return;
        }
        kind = WASP_LOCK_ACQUIRE;
        count(t, C_MONITOR);
    } else {
        count(t, C_OTHER_CAS);
        return;
    }
    if (!wasp_klass_set_add(o.klass))
        count(t, C_CLASS_SET_FULL);
    uint32_t ctx = wasp_capture_context(t, v->uc, h.at, h.insn, h.acc.len);
    record(t, o.klass, ctx, (uint32_t)kind);
}

const wasp_handler_part wasp_handler_locks = {
    .needs = WASP_NEEDS_JAVA,
    .wants = WASP_WANTS_LOADS | WASP_WANTS_STORES,
    .on_sample = on_sample,
    .counters = {[C_CAS] = "locks.mark_cas",
                 [C_NOT_OBJECT] = "locks.cas_not_object",
                 [C_OTHER_CAS] = "locks.cas_other",
                 [C_SLOW] = "locks.slow_path",
                 [C_TABLE_FULL] = "locks.table_full",
                 [C_CLASS_SET_FULL] = "locks.class_set_full",
                 [C_MONITOR] = "locks.monitor_cas",
                 [C_SLOW_BY_PENDING] = "locks.slow_by_pending_monitor",
                 [C_SLOW_BY_REGISTER] = "locks.slow_by_register",
                 [C_LOCK_STACK] = "locks.lock_stack",
                 [C_LOCK_STACK_NOT_OBJECT] = "locks.lock_stack_not_object"},
    .thread_state = sizeof(wasp_lock_thread),
    .period_ns = wasp_period_for_shares, /* lock classes by share */
};
