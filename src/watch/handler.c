/*
 * The SIGTRAP handler: address samples arm watchpoints, watchpoint traps
 * classify pairs. Every perf event wasp opens delivers a synchronous SIGTRAP
 * (attr.sigtrap) whose sig_data names the thread, the event kind and the slot;
 * any other SIGTRAP goes to the handler that was installed before ours.
 *
 * ASYNC-SIGNAL-SAFE: everything in this file runs in the handler. No malloc,
 * no stdio, no locks; memory the program owns is only read via wasp_safe_read
 * (or read_code, for the page the thread is executing);
 * errno is preserved.
 */
#include "watch/handler.h"

#include <errno.h>
#include <jni.h>
#include <link.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "analysis/objects.h"
#include "common/clock.h"
#include "isa/isa.h"
#include "sample/signal.h"
#include "watch/chain.h"
#include "watch/engine.h"
#include "watch/runtime.h"
#include "watch/slots.h"

wasp_runtime wasp_rt;

static struct sigaction previous;
static volatile int installed;
static volatile uint32_t probe_counts[16]; /* start-up proofs, by event kind */
static volatile uint64_t max_period_ns;    /* the longest sampling period backoff set */

/* glibc 2.36 lacks si_perf_flags: it follows si_addr, the data and the type
 * in the kernel's layout. */
enum { WASP_TRAP_PERF_FLAG_ASYNC = 1 };
static int trap_was_async(const siginfo_t *si)
{
    const char *tail = (const char *)si + offsetof(siginfo_t, si_addr) + sizeof(void *);
    return !wasp_perf_fasync && si->si_code == 6 /* TRAP_PERF */ &&
           (*(const uint32_t *)(tail + sizeof(unsigned long) + 4) & WASP_TRAP_PERF_FLAG_ASYNC);
}

/* ---- code bytes ------------------------------------------------------------ */

/* Copy the n code bytes at addr, where `anchor` is an address the thread is
 * executing (the interrupted or trapping PC): its page is certainly mapped —
 * code cannot be freed under a thread running it — so bytes on that page are
 * copied directly, saving a system call per sample; the rest goes through
 * wasp_safe_read. Returns the bytes copied (a prefix). */
static size_t read_code(uint64_t addr, uint8_t *dst, size_t n, uint64_t anchor)
{
    const uint64_t page = 4096;
    uint64_t lo = anchor & ~(page - 1), hi = lo + page;
    if (addr >= lo && addr + n <= hi) {
        memcpy(dst, (const void *)(uintptr_t)addr, n);
        return n;
    }
    if (addr >= lo && addr < hi) { /* starts on the page, runs past it */
        size_t first = (size_t)(hi - addr);
        memcpy(dst, (const void *)(uintptr_t)addr, first);
        return first + wasp_safe_read(hi, dst + first, n - first);
    }
    if (addr < lo && addr + n > lo && addr + n <= hi) { /* ends on the page */
        size_t head = (size_t)(lo - addr);
        if (wasp_safe_read(addr, dst, head) != head)
            return 0;
        memcpy(dst + head, (const void *)(uintptr_t)lo, n - head);
        return n;
    }
    return wasp_safe_read(addr, dst, n);
}

/* ---- calling contexts ---------------------------------------------------- */

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

/* Context of the instruction at pc, walking the stack described by uc. */
static uint32_t capture_context(wasp_thread *t, const ucontext_t *uc, uint64_t pc,
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

/* ---- slots ---------------------------------------------------------------- */

static void free_slot(wasp_thread *t, int i, wasp_counter_id reason)
{
    if (t->slots[i].state != WASP_SLOT_FREE) {
        wasp_slot_disarm(t, i);
        if (reason < WASP_C_COUNT)
            t->rec.counters[reason]++;
    }
    wasp_reservoir_release(&t->reservoir[i]);
}

/* Watchpoints never outlive a GC epoch (JXPerf Sec. 5.3). */
static int epoch_check(wasp_thread *t)
{
    uint32_t now = __atomic_load_n(&wasp_rt.epoch, __ATOMIC_ACQUIRE);
    if (t->epoch == now)
        return 0;
    for (int i = 0; i < t->nslots; i++)
        free_slot(t, i, WASP_C_DROP_GC);
    t->epoch = now;
    return 1;
}

static uint64_t read_value(uint64_t addr, int len, int *ok)
{
    uint64_t v = 0;
    *ok = wasp_safe_read(addr, &v, (size_t)len) == (size_t)len;
    return v;
}

/* ---- samples -------------------------------------------------------------- */

static const wasp_analysis_client *pick_client(wasp_thread *t, int kind)
{
    const wasp_analysis_client *c[2 * WASP_AN_COUNT];
    int n = 0;
    if (kind & WASP_ACCESS_STORE)
        for (int i = 0; i < wasp_rt.nstore_clients; i++)
            c[n++] = wasp_rt.store_clients[i];
    if (kind & WASP_ACCESS_LOAD)
        for (int i = 0; i < wasp_rt.nload_clients; i++)
            c[n++] = wasp_rt.load_clients[i];
    if (n == 0)
        return NULL;
    return c[n == 1 ? 0 : wasp_rng_next(&t->rng) % (uint64_t)n];
}

enum { SCAN_BYTES = 128, SCAN_INSNS = 24 };

/* What a sample lets the analyses see: the registers and the code ahead. */
typedef struct sample_view {
    const wasp_address_sample *s;
    wasp_regs regs;
    uint8_t code[SCAN_BYTES];
    size_t n;
} sample_view;

static void view_init(sample_view *v, const ucontext_t *uc, const wasp_address_sample *s)
{
    v->s = s;
    wasp_isa_regs_from_ucontext(uc, &v->regs);
    v->n = read_code(s->pc, v->code, s->has_addr ? WASP_MAX_INSN : sizeof v->code,
                     (uint64_t)uc->uc_mcontext.gregs[REG_RIP]);
}

/* The access of a kind in `wanted` the sample names. Software samples: the
 * thread's next access of that kind, at the interrupted PC or a few
 * straight-line instructions later while its address can still be computed
 * from the registers now. PMU samples: the access they report (it already
 * ran). Returns 1 found, 0 none, -1 undecodable, 2 not program data. */
static int view_find(const sample_view *v, int wanted, wasp_access *acc, uint64_t *at)
{
    if (!v->n)
        return -1;
    if (!v->s->has_addr)
        return wasp_isa_find_access(v->code, v->n, v->s->pc, &v->regs, wanted, SCAN_INSNS, acc,
                                    at);
    int rc = wasp_isa_decode_access(v->code, v->n, v->s->pc, &v->regs, acc);
    *at = v->s->pc;
    if (rc != 1)
        return rc;
    acc->addr = v->s->addr;
    if (!(acc->kind & wanted))
        return 0;
    return wasp_isa_is_program_data(acc, v->regs.gpr[4]) ? 1 : 2;
}

/* The access that just ran: an instruction ending at the interrupted PC with
 * a program-data operand of a kind in `wanted` whose address its registers
 * still give (software samples only). x86 cannot be decoded backwards with
 * certainty; the longest candidate is taken. Returns 1 with acc, *at and
 * insn filled. */
static int view_prev(const sample_view *v, int wanted, wasp_access *acc, uint64_t *at,
                     uint8_t *insn)
{
    uint8_t before[WASP_MAX_INSN];
    if (v->s->has_addr ||
        read_code(v->s->pc - sizeof before, before, sizeof before, v->s->pc) != sizeof before ||
        wasp_isa_prev_accesses(before, sizeof before, v->s->pc, &v->regs, acc, 1) != 1 ||
        !(acc->kind & wanted))
        return 0;
    *at = v->s->pc - acc->len;
    memcpy(insn, before + sizeof before - acc->len, acc->len);
    return 1;
}

static void count_miss(wasp_thread *t, int rc)
{
    t->rec.counters[rc == 0   ? WASP_C_SAMPLES_NOMEM
                    : rc == 2 ? WASP_C_SAMPLES_IGNORED
                              : WASP_C_SAMPLES_UNDECODABLE]++;
}

/* The access a sample gives to a watchpoint analysis, and that analysis.
 * Software samples choose the analysis first, so each enabled analysis gets
 * an equal share of samples whatever the program's mix of loads and stores;
 * PMU samples go to an analysis that takes their kind. */
static const wasp_analysis_client *locate(wasp_thread *t, const sample_view *v, wasp_access *acc,
                                          uint64_t *at, uint8_t *insn, int *executed)
{
    const int any = WASP_ACCESS_LOAD | WASP_ACCESS_STORE;
    const wasp_analysis_client *client = NULL;
    int rc;
    *executed = v->s->executed;
    if (!v->s->has_addr) {
        client = pick_client(t, any);
        rc = view_find(v, client->samples, acc, at);
        if (rc == 0) {
            /* Nothing of that kind ahead (a loop without stores, say): give
             * the sample to an analysis of the other kind. */
            int other = client->samples ^ any;
            const wasp_analysis_client *c2 = pick_client(t, other);
            if (c2 && (rc = view_find(v, other, acc, at)) == 1)
                client = c2;
        }
        if (rc == 0) {
            /* Nothing straight ahead (a branch comes first, as in a search
             * loop): the access that just ran, most often the one that held
             * the thread up. It has executed: no first trap. */
            if (view_prev(v, client->samples, acc, at, insn) &&
                wasp_isa_is_program_data(acc, v->regs.gpr[4])) {
                *executed = 1;
                return client;
            }
        }
    } else {
        rc = view_find(v, any, acc, at);
        if (rc == 1 && !(client = pick_client(t, acc->kind)))
            rc = 0;
    }
    if (rc != 1) {
        count_miss(t, rc);
        return NULL;
    }
    memcpy(insn, v->code + (*at - v->s->pc), acc->len);
    return client;
}

/* The watchpoint engine's CPU budget: the watch events (traps, or faults
 * stepped over) of this thread's watches, at the cost the start-up proof
 * measured, stay under wasp_rt.watch_budget of the thread's CPU time; faults
 * by threads that own no watch on the page, under that share of the
 * process's. The thread's budget is a ledger credited with its share of each
 * stretch of CPU time and debited with the events' cost; it banks at most
 * BUDGET_BANK_NS of CPU time's worth, so arming is spread evenly over the run
 * instead of spending savings in bursts (which would draw correlated
 * evidence from one phase of the program). Checked every BUDGET_EVERY
 * samples (a clock read is a system call). */
enum { BUDGET_EVERY = 4 };
static const double BUDGET_BANK_NS = 100e6;

static int budget_allows(wasp_thread *t)
{
    if (wasp_rt.watch_budget <= 0 || !wasp_rt.watch_event_ns)
        return 1;
    if (t->budget_countdown) {
        t->budget_countdown--;
        return t->budget_open;
    }
    t->budget_countdown = BUDGET_EVERY - 1;
    uint64_t cpu = wasp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    if (!t->budget_cpu_ns)
        t->budget_cpu_ns = cpu > t->cpu_ns_start && t->cpu_ns_start ? t->cpu_ns_start : cpu;
    double earned = wasp_rt.watch_budget * (double)(cpu > t->budget_cpu_ns ? cpu - t->budget_cpu_ns : 0);
    double spent = (double)(t->watch_cost_ns - t->budget_cost_seen_ns);
    t->budget_cpu_ns = cpu;
    t->budget_cost_seen_ns = t->watch_cost_ns;
    t->budget_ledger_ns += earned - spent;
    double bank = wasp_rt.watch_budget * BUDGET_BANK_NS;
    if (t->budget_ledger_ns > bank)
        t->budget_ledger_ns = bank;
    int open = t->budget_ledger_ns > 0;
    uint64_t foreign = wasp_page_foreign_cost_ns();
    if (open && foreign)
        open = (double)foreign <=
               wasp_rt.watch_budget * (double)wasp_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    t->budget_open = open;
    t->budget_over = !open;
    return open;
}

/* A watchpoint for a new watch of `analysis` on [addr, addr+len): the slot
 * the reservoir picks, re-targeted. Returns the slot (watch state cleared,
 * still to be given its state), or NULL with the reason counted. */
static wasp_slot *claim_slot(wasp_thread *t, int analysis, uint64_t addr, int len, int loads_too)
{
    if (!budget_allows(t)) {
        wasp_reservoir_credit(t->reservoir, t->nslots, analysis);
        t->rec.counters[WASP_C_DROP_BUDGET]++;
        return NULL;
    }
    wasp_reservoir_result r = wasp_reservoir_offer(t->reservoir, t->nslots, analysis, &t->rng);
    if (r.slot < 0) {
        t->rec.counters[WASP_C_DROP_RESERVOIR]++;
        return NULL;
    }
    wasp_slot *slot = &t->slots[r.slot];
    if (r.replaced && slot->state != WASP_SLOT_FREE)
        t->rec.counters[WASP_C_DROP_REPLACED]++;
    int armed = wasp_slot_arm(t, r.slot, addr, len, loads_too);
    if (armed != 0) {
        slot->state = WASP_SLOT_FREE;
        wasp_reservoir_release(&t->reservoir[r.slot]);
        t->rec.counters[armed == WASP_ARM_NOT_WATCHABLE ? WASP_C_DROP_NOT_HEAP
                                                        : WASP_C_DROP_ARM_FAILED]++;
        return NULL;
    }
    slot->addr = addr;
    slot->epoch = t->epoch;
    memset(&slot->watch, 0, sizeof slot->watch);
    slot->watch.len = (uint8_t)len;
    return slot;
}

/* The access the object-level analyses (objects, replicas) blame, and the
 * tracked object it touched.
 *
 * A CPU-time sample lands just after the instruction that held the thread up
 * (a cache miss, most often): for the cost of objects, that access — the one
 * ending at the interrupted PC — is the one to blame. x86 cannot be decoded
 * backwards with certainty; the longest instruction that ends there is taken
 * (a shorter one is most often the tail of the real one, and would point
 * anywhere). When none ends there with a memory operand, the thread's next
 * access is taken, as for the other analyses. */
typedef struct heap_access {
    wasp_access acc;
    uint64_t at;
    uint8_t insn[WASP_MAX_INSN];
    wasp_obj obj;
    int remote;
    int executed; /* the access already ran (memory shows its effect) */
} heap_access;

static wasp_obj_result heap_locate(wasp_thread *t, const sample_view *v, heap_access *h)
{
    int n = 0;
    if (view_prev(v, WASP_ACCESS_LOAD | WASP_ACCESS_STORE, &h->acc, &h->at, h->insn)) {
        h->executed = 1;
        n = 1;
    }
    int rc = 1;
    if (n == 0 && (rc = view_find(v, WASP_ACCESS_LOAD | WASP_ACCESS_STORE, &h->acc, &h->at)) == 1) {
        memcpy(h->insn, v->code + (h->at - v->s->pc), h->acc.len);
        h->executed = v->s->executed;
        n = 1;
    }
    if (n == 0) {
        if (wasp_rt.nstore_clients + wasp_rt.nload_clients == 0)
            count_miss(t, rc); /* else the watchpoint analyses' own look counts it */
        return WASP_OBJ_MISS;
    }
    t->rec.counters[WASP_C_OBJ_SAMPLES]++;
    wasp_obj_result r = wasp_objects_attribute(
        wasp_rt.objmap, h->acc.addr & wasp_rt.heap_address_mask,
        __atomic_load_n(&wasp_rt.epoch, __ATOMIC_ACQUIRE),
        __atomic_load_n(&wasp_rt.objmap_epoch, __ATOMIC_ACQUIRE), wasp_rt.numa_nodes, &h->obj,
        &h->remote);
    if (r != WASP_OBJ_HIT)
        t->rec.counters[r == WASP_OBJ_STALE ? WASP_C_OBJ_STALE : WASP_C_OBJ_UNATTRIBUTED]++;
    return r;
}

/* Replicas: compare the sampled field's value with the same field of the
 * site's previously sampled object, when next accessed (a watchpoint). */
static void sample_replica(wasp_thread *t, const ucontext_t *uc, const heap_access *h)
{
    uint64_t field;
    int len;
    wasp_watch_span(h->acc.addr, h->acc.size, &field, &len);
    /* The field's value as the sampled access leaves it: memory, unless it is
     * a store that has not run yet — then the value it is about to store. */
    int ok;
    uint64_t value = read_value(field, len, &ok);
    if (!h->executed && (h->acc.kind & WASP_ACCESS_STORE)) {
        ok = h->acc.has_src && h->acc.size <= 8 && field == h->acc.addr;
        value = h->acc.src;
    }
    uint64_t waddr, v1;
    uint8_t wlen;
    uint32_t epoch = __atomic_load_n(&wasp_rt.epoch, __ATOMIC_ACQUIRE);
    /* The map compares masked addresses (ZGC colours); a watchpoint needs the
     * address the program uses, so work from the object's base as seen here. */
    uint64_t base = field - ((field & wasp_rt.heap_address_mask) - h->obj.start);
    /* Contents only: the header (mark word, class, array length — 16 bytes
     * with compressed class pointers) is the same for every object of a
     * site, or differs for reasons that are not the program's data. */
    if (field - base < 16)
        return;
    wasp_replica_action act =
        wasp_replica_sample(t->replica_snaps, WASP_REPLICA_SNAPS, h->obj.site, epoch, base,
                            h->obj.size, field, (uint8_t)len, value, ok, &waddr, &wlen, &v1);
    if (act == WASP_REPLICA_DIFFERENT) {
        uint32_t ctx = capture_context(t, uc, h->at, h->insn, h->acc.len);
        wasp_records_replica(&t->rec, h->obj.site, ctx, 0.0, 1.0);
        t->rec.counters[WASP_C_REPL_COMPARED]++;
        return;
    }
    if (act != WASP_REPLICA_WATCH)
        return;
    epoch_check(t);
    wasp_slot *slot = claim_slot(t, WASP_SLOT_REPLICA, waddr, wlen, 1);
    if (!slot)
        return;
    slot->watch.v1 = v1;
    slot->site = h->obj.site;
    slot->state = WASP_SLOT_ARMED; /* any access to the field is the comparison */
    t->rec.counters[WASP_C_REPL_ARMED]++;
}

/* The object-level analyses on one sample. */
static void sample_heap(wasp_thread *t, const ucontext_t *uc, const sample_view *v)
{
    heap_access h;
    if (heap_locate(t, v, &h) != WASP_OBJ_HIT)
        return;
    if (wasp_rt.objects) {
        uint32_t ctx = capture_context(t, uc, h.at, h.insn, h.acc.len);
        wasp_records_access(&t->rec, h.obj.site, ctx, 1.0, h.remote ? 1.0 : 0.0);
    }
    if (wasp_rt.replicas)
        sample_replica(t, uc, &h);
}

/* wasp's own code (the page engine's SIGSEGV handler, say), set once by
 * wasp_handler_install: samples that land there measure wasp, not the
 * program. */
static uint64_t self_lo, self_hi;

static int in_wasp(const ucontext_t *uc)
{
    uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    /* The trap flag: the page engine is stepping the access at pc for us. */
    return (pc >= self_lo && pc < self_hi) ||
           (uc->uc_mcontext.gregs[REG_EFL] & 0x100) != 0;
}

static void on_sample(wasp_thread *t, const ucontext_t *uc)
{
    wasp_address_sample s;
    t->rec.counters[WASP_C_SAMPLES]++;
    if (in_wasp(uc) || (wasp_rt.watch && wasp_rt.watch->busy && wasp_rt.watch->busy(t->tid))) {
        t->rec.counters[WASP_C_SAMPLES_SELF]++;
        return;
    }
    if (!wasp_rt.source->take(wasp_rt.source, t, uc, &s))
        return;

    sample_view v;
    view_init(&v, uc, &s);
    if (wasp_rt.objects || wasp_rt.replicas)
        sample_heap(t, uc, &v);
    if (wasp_rt.nstore_clients + wasp_rt.nload_clients == 0)
        return;
    wasp_access acc;
    uint64_t at;
    uint8_t insn[WASP_MAX_INSN];
    int executed;
    const wasp_analysis_client *client = locate(t, &v, &acc, &at, insn, &executed);
    if (!client)
        return;
    t->rec.counters[WASP_C_SAMPLES_MEMORY]++;
    epoch_check(t);

    uint64_t waddr;
    int wlen;
    wasp_watch_span(acc.addr, acc.size, &waddr, &wlen);
    wasp_slot *slot = claim_slot(t, client->id, waddr, wlen, client->watch_loads);
    if (!slot)
        return;
    t->rec.counters[WASP_C_ARMED]++;
    slot->access_size = acc.size;
    slot->watch_loads = client->watch_loads;
    slot->first_end = at + acc.len;
    slot->watch.float_size = acc.float_size;
    slot->watch_ctx = capture_context(t, uc, at, insn, acc.len);

    int ok;
    uint64_t now = read_value(waddr, wlen, &ok);
    client->on_sample(&slot->watch, now, ok);
    if (executed) {
        /* The access already happened (PMU samples, or the one that just
         * ran): no first trap. */
        client->on_first_trap(&slot->watch, now);
        slot->state = WASP_SLOT_ARMED;
    } else {
        slot->state = WASP_SLOT_FIRST;
    }
}

/* ---- traps ---------------------------------------------------------------- */

/* The instruction that ended at trap_pc (cached per thread by trap PC). */
static int trap_instruction(wasp_thread *t, const wasp_slot *slot, uint64_t trap_pc,
                            const wasp_regs *regs, wasp_access *acc, uint8_t *insn)
{
    unsigned h = (unsigned)(trap_pc ^ (trap_pc >> 7)) & 63;
    if (t->trap_cache_pc[h] == trap_pc) {
        uint8_t len = t->trap_cache_len[h];
        if (read_code(trap_pc - len, insn, len, trap_pc - 1) == len) {
            wasp_regs before = *regs;
            before.rip = trap_pc - len;
            if (wasp_isa_decode_access(insn, len, trap_pc - len, &before, acc) == 1 &&
                acc->len == len) {
                acc->kind = t->trap_cache_kind[h];
                return 1;
            }
        }
    }
    uint8_t buf[WASP_MAX_INSN];
    size_t n = read_code(trap_pc - sizeof buf, buf, sizeof buf, trap_pc - 1);
    if (n != sizeof buf)
        return 0;
    if (!wasp_isa_recover_trap(buf, n, trap_pc, regs, slot->addr, slot->watch.len, acc))
        return 0;
    memcpy(insn, buf + sizeof buf - acc->len, acc->len);
    t->trap_cache_pc[h] = trap_pc;
    t->trap_cache_len[h] = acc->len;
    t->trap_cache_kind[h] = acc->kind;
    return 1;
}

static void classify(wasp_thread *t, int i, const wasp_analysis_client *client,
                     wasp_verdict v, int approx, const ucontext_t *uc, uint64_t insn_pc,
                     const uint8_t *insn, uint8_t insn_len)
{
    wasp_slot *slot = &t->slots[i];
    double weight = wasp_reservoir_release(&t->reservoir[i]);
    wasp_slot_disarm(t, i);
    double bytes = weight * (double)slot->access_size;
    wasp_totals *tot = &t->rec.totals[client->id];
    tot->bytes += bytes;
    tot->pairs += weight;
    t->rec.counters[WASP_C_CLASSIFIED]++;
    if (v != WASP_VERDICT_WASTE)
        return;
    if (approx)
        tot->wasted_approx += bytes;
    else
        tot->wasted += bytes;
    uint32_t trap_ctx = capture_context(t, uc, insn_pc, insn, insn_len);
    wasp_records_pair(&t->rec, client->id, approx ? WASP_PAIR_APPROX : 0, slot->watch_ctx,
                      trap_ctx, bytes, weight);
}

/* A replica comparison: the watched field of the later object was accessed;
 * compare what it holds now with the earlier object's sampled value. */
static void replica_trap(wasp_thread *t, int i, const ucontext_t *uc)
{
    wasp_slot *slot = &t->slots[i];
    int ok;
    uint64_t now = read_value(slot->addr, slot->watch.len, &ok);
    if (!ok) {
        free_slot(t, i, WASP_C_DROP_UNREADABLE);
        return;
    }
    uint64_t trap_pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    wasp_regs regs;
    wasp_isa_regs_from_ucontext(uc, &regs);
    wasp_access acc;
    uint8_t insn[WASP_MAX_INSN];
    uint32_t ctx;
    if (trap_instruction(t, slot, trap_pc, &regs, &acc, insn))
        ctx = capture_context(t, uc, trap_pc - acc.len, insn, acc.len);
    else
        ctx = capture_context(t, uc, trap_pc, insn, 0);
    int same = wasp_replica_same(now, slot->watch.v1, slot->watch.len);
    wasp_records_replica(&t->rec, slot->site, ctx, same ? 1.0 : 0.0, same ? 0.0 : 1.0);
    t->rec.counters[WASP_C_REPL_COMPARED]++;
    if (wasp_rt.site_comparisons && slot->site < WASP_MAX_SITES_COUNTED)
        __atomic_add_fetch(&wasp_rt.site_comparisons[slot->site], 1, __ATOMIC_RELAXED);
    wasp_slot_disarm(t, i);
    wasp_reservoir_release(&t->reservoir[i]);
}

static void on_watch(wasp_thread *t, int i, const ucontext_t *uc, int async)
{
    if (i >= t->nslots)
        return;
    wasp_slot *slot = &t->slots[i];
    if (slot->state == WASP_SLOT_FREE)
        return; /* a signal that raced with disarming */
    t->rec.counters[WASP_C_TRAPPED]++;
    if (wasp_rt.watch && wasp_rt.watch->events_are_traps)
        t->watch_cost_ns += wasp_rt.watch_event_ns;
    if (epoch_check(t))
        return;
    if (async) {
        free_slot(t, i, WASP_C_DROP_ASYNC);
        return;
    }
    if (t->reservoir[i].analysis == WASP_SLOT_REPLICA) {
        replica_trap(t, i, uc);
        return;
    }
    const wasp_analysis_client *client =
        wasp_analysis_client_for((wasp_analysis)t->reservoir[i].analysis);
    int ok;
    uint64_t after = read_value(slot->addr, slot->watch.len, &ok);
    if (!ok) {
        free_slot(t, i, WASP_C_DROP_UNREADABLE);
        return;
    }
    uint64_t trap_pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    if (slot->state == WASP_SLOT_FIRST) {
        if (trap_pc != slot->first_end) {
            free_slot(t, i, WASP_C_DROP_FIRST_TRAP);
            return;
        }
        client->on_first_trap(&slot->watch, after);
        slot->state = WASP_SLOT_ARMED;
        return;
    }

    wasp_regs regs;
    wasp_isa_regs_from_ucontext(uc, &regs);
    wasp_access acc;
    uint8_t insn[WASP_MAX_INSN];
    if (!trap_instruction(t, slot, trap_pc, &regs, &acc, insn)) {
        free_slot(t, i, WASP_C_DROP_TRAP_DECODE);
        return;
    }
    int approx = 0;
    wasp_verdict v = client->on_trap(&slot->watch, acc.kind, after, wasp_rt.float_threshold,
                                     &approx);
    switch (v) {
    case WASP_VERDICT_WAIT:
        return;
    case WASP_VERDICT_DROP:
        free_slot(t, i, (acc.kind & WASP_ACCESS_LOAD) ? WASP_C_DROP_UNREADABLE
                                                       : WASP_C_DROP_STORE_CHAIN);
        return;
    default:
        classify(t, i, client, v, approx, uc, trap_pc - acc.len, insn, acc.len);
    }
}

/* ---- dispatch ------------------------------------------------------------- */

/* Sampling costs the thread its handler time: past SAMPLER_BUDGET of the
 * thread's sampled CPU time, the thread's period doubles (up to
 * SAMPLER_MAX_SLOWDOWN times the asked-for one), so no setting can starve the
 * program. Checked every SAMPLER_WINDOW samples. */
enum { SAMPLER_WINDOW = 32, SAMPLER_MAX_SLOWDOWN = 1024 };
static const double SAMPLER_BUDGET = 0.10;

static void sampler_backoff(wasp_thread *t, uint64_t spent)
{
    t->handler_ns += spent;
    if (++t->handler_samples < SAMPLER_WINDOW)
        return;
    uint64_t window = (uint64_t)SAMPLER_WINDOW * t->period_ns;
    int over = (double)t->handler_ns > SAMPLER_BUDGET * (double)window;
    t->handler_ns = 0;
    t->handler_samples = 0;
    wasp_source *src = wasp_rt.source;
    if (!over || !src->set_period || !t->period_ns ||
        t->period_ns >= src->period * SAMPLER_MAX_SLOWDOWN)
        return;
    uint64_t next = t->period_ns * 2;
    if (src->set_period(src, t, next) != 0)
        return;
    t->period_ns = next;
    t->rec.counters[WASP_C_SAMPLER_BACKOFF]++;
    uint64_t max = __atomic_load_n(&max_period_ns, __ATOMIC_RELAXED);
    while (next > max &&
           !__atomic_compare_exchange_n(&max_period_ns, &max, next, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
}

static void enter(wasp_thread *t, int kind, int slot, ucontext_t *uc, int async)
{
    /* in_handler: a signal that interrupted another of our handlers on this
     * thread (the page engine's SIGSEGV handler lets SIGTRAP through). */
    if (!t || !t->active || !wasp_rt.sampling || t->in_handler)
        return;
    t->in_handler = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (t->active) {
        if (kind == WASP_EV_SAMPLE) {
            uint64_t t0 = wasp_clock_ns(CLOCK_MONOTONIC);
            on_sample(t, uc);
            sampler_backoff(t, wasp_clock_ns(CLOCK_MONOTONIC) - t0);
        } else if (kind == WASP_EV_WATCH) {
            on_watch(t, slot, uc, async);
        }
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->in_handler = 0;
}

void wasp_handler_watch_event(wasp_thread *t, int slot, void *uc, int async)
{
    enter(t, WASP_EV_WATCH, slot, uc, async);
}

static void on_sigtrap(int sig, siginfo_t *si, void *ucv)
{
    int saved = errno;
    uint64_t data;
    if (!wasp_perf_signal_data(si, &data)) {
        if (!wasp_page_on_step(si, ucv))
            wasp_chain_signal(&previous, sig, si, ucv);
        errno = saved;
        return;
    }
    uint32_t index = (uint32_t)((data >> 8) & 0xffffff);
    int kind = (int)((data >> 4) & 0xf), slot = (int)(data & 0xf);
    if (index == WASP_PROBE_INDEX) {
        __atomic_add_fetch(&probe_counts[kind], 1, __ATOMIC_RELAXED);
    } else if (index < WASP_MAX_THREADS) {
        enter(wasp_rt.threads[index], kind, slot, ucv, trap_was_async(si));
    }
    errno = saved;
}

int wasp_handler_slot_lost(wasp_thread *t, int slot, int reason)
{
    if (t->in_handler || slot >= t->nslots)
        return -1;
    t->in_handler = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (t->slots[slot].state != WASP_SLOT_FREE) {
        t->slots[slot].state = WASP_SLOT_FREE;
        if (reason >= 0 && reason < WASP_C_COUNT)
            t->rec.counters[reason]++;
    }
    wasp_reservoir_release(&t->reservoir[slot]);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->in_handler = 0;
    return 0;
}

int wasp_handler_budget_spent(const wasp_thread *t)
{
    if (wasp_rt.watch_budget <= 0)
        return 0;
    /* Also between checks: a thread that spends its time in faults takes few
     * samples that reach a check (they land in wasp's handling). */
    double unchecked = (double)(t->watch_cost_ns - t->budget_cost_seen_ns);
    double credit = t->budget_ledger_ns > 0 ? t->budget_ledger_ns : 0;
    return t->budget_over || unchecked > credit + wasp_rt.watch_budget * BUDGET_BANK_NS;
}

uint32_t wasp_handler_probe_count(int kind)
{
    return __atomic_load_n(&probe_counts[kind & 15], __ATOMIC_RELAXED);
}

uint64_t wasp_handler_max_period(void)
{
    return __atomic_load_n(&max_period_ns, __ATOMIC_RELAXED);
}

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    uint64_t me = (uint64_t)(uintptr_t)&wasp_handler_install;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo && me < hi) {
            self_lo = lo;
            self_hi = hi;
            return 1;
        }
    }
    return 0;
}

int wasp_handler_install(void)
{
    if (installed)
        return 0;
    dl_iterate_phdr(find_self, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigtrap;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTRAP, &sa, &previous) != 0)
        return -1;
    installed = 1;
    return 0;
}

void wasp_thread_release_slots(wasp_thread *t)
{
    for (int i = 0; i < t->nslots; i++)
        free_slot(t, i, WASP_C_DROP_EXIT);
}
