/*
 * The SIGTRAP handler: it hands address samples and watchpoint traps to the
 * enabled analyses' handler parts (handler_part.h) and names none of
 * them. Every perf event wasp opens delivers a synchronous SIGTRAP
 * (attr.sigtrap) whose sig_data names the thread, the event kind and the slot;
 * any other SIGTRAP goes to the handler that was installed before ours. It
 * also keeps the sampler's own cost in check and paces it
 * (sampler_period.h).
 *
 * ASYNC-SIGNAL-SAFE: everything in this file runs in the handler. No malloc,
 * no stdio, no locks; memory the program owns is only read via wasp_safe_read;
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

#include "common/clock.h"
#include "sample/signal.h"
#include "watch/budget.h"
#include "watch/chain.h"
#include "watch/code_map.h"
#include "watch/engine.h"
#include "watch/handler_part.h"
#include "watch/interpreter.h"
#include "watch/kit.h"
#include "watch/object_hit.h"
#include "watch/pc_hist.h"
#include "watch/mechanisms.h"
#include "watch/run_state.h"
#include "watch/runtime_caller.h"
#include "watch/sampler_period.h"
#include "watch/thread_registry.h"

static struct sigaction previous;
static volatile int installed;
static volatile uint32_t probe_counts[16]; /* start-up proofs, by event kind */

/* glibc 2.36 lacks si_perf_flags: it follows si_addr, the data and the type
 * in the kernel's layout. */
enum { WASP_TRAP_PERF_FLAG_ASYNC = 1 };
static int trap_was_async(const siginfo_t *si)
{
    const char *tail = (const char *)si + offsetof(siginfo_t, si_addr) + sizeof(void *);
    return !wasp_perf_fasync && si->si_code == 6 /* TRAP_PERF */ &&
           (*(const uint32_t *)(tail + sizeof(unsigned long) + 4) & WASP_TRAP_PERF_FLAG_ASYNC);
}

/* ---- the enabled analyses' parts ------------------------------------------- */

/* Set by wasp_handler_enable before sampling starts; read-only afterwards. */
static void (*sample_hooks[WASP_ANALYSES])(wasp_thread *, const wasp_sample_view *);
static int nsample_hooks;
static const wasp_handler_part *object_parts[WASP_ANALYSES];
static int nobject_parts;
static const wasp_handler_part *no_object_parts[WASP_ANALYSES];
static int nno_object_parts;
static const wasp_handler_part *birth_parts[WASP_ANALYSES];
static int nbirth_parts;
static void (*window_hooks[WASP_ANALYSES])(wasp_thread *, const ucontext_t *,
                                           const wasp_window_access *);
static int nwindow_hooks;
static void (*end_hooks[WASP_ANALYSES])(wasp_thread *);
static int nend_hooks;

/* Parts that share a hook (the pair analyses) have it called once. */
#define ADD_ONCE(list, n, fn)                                                                      \
    do {                                                                                           \
        int seen_ = 0;                                                                             \
        for (int k_ = 0; k_ < (n); k_++)                                                           \
            seen_ |= (list)[k_] == (fn);                                                           \
        if ((fn) && !seen_)                                                                        \
            (list)[(n)++] = (fn);                                                                  \
    } while (0)

void wasp_handler_enable(uint32_t enabled)
{
    nsample_hooks = nobject_parts = nno_object_parts = nbirth_parts = nwindow_hooks = 0;
    nend_hooks = 0;
    int only_pairs = enabled != 0;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_handler_part *p = wasp_handler_part_of(id);
        if (!(enabled & (1u << id)))
            continue;
        only_pairs &= p->pair != NULL;
        if (p->enable)
            p->enable(enabled);
        if (p->on_object)
            object_parts[nobject_parts++] = p;
        if (p->on_no_object)
            no_object_parts[nno_object_parts++] = p;
        if (p->on_birth)
            birth_parts[nbirth_parts++] = p;
        ADD_ONCE(sample_hooks, nsample_hooks, p->on_sample);
        ADD_ONCE(window_hooks, nwindow_hooks, p->on_window_access);
        ADD_ONCE(end_hooks, nend_hooks, p->on_thread_end);
    }
    /* Other analyses use every sample (shares, object costs): no pacing. */
    wasp_pacing_enable(only_pairs);
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

/* A sample signal held back while the page engine handled a fault of this
 * thread arrives as soon as the engine returns to the program: at the pc
 * it returned to, within microseconds. The fault's time was CPU time, so
 * such samples would crowd onto the instructions that fault (and re-arm
 * the page they fault on: seen, a store loop holding most samples and a
 * planted silent store's F_prog halved). */
enum { WASP_EXIT_WINDOW_NS = 20000 };

void wasp_mark_wasp_exit(wasp_thread *t, uint64_t pc)
{
    t->wasp_exit_pc = pc;
    t->wasp_exit_ns = wasp_clock_ns(CLOCK_MONOTONIC);
}

static int just_out_of_wasp(const wasp_thread *t, const ucontext_t *uc)
{
    if ((uint64_t)uc->uc_mcontext.gregs[REG_RIP] != t->wasp_exit_pc)
        return 0;
    return wasp_clock_ns(CLOCK_MONOTONIC) - t->wasp_exit_ns < WASP_EXIT_WINDOW_NS;
}

/* Every sample of the program's own time, at its place (pc_hist.h): the
 * summary's CPU shares. A sample in the JVM's runtime or a native method
 * counts at the compiled line that called it (runtime_caller.h); one in the
 * interpreter, or in the runtime the interpreter called, at the method and
 * bytecode a one-frame walk finds (interpreter.h). */
static void count_place(wasp_thread *t, const ucontext_t *uc)
{
    uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    const wasp_code_map *map = wasp_code_map_enter();
    const wasp_nmethod *nm = map ? wasp_code_map_find(map, pc) : NULL;
    uint64_t caller = 0;
    wasp_rframe top;
    if (!nm)
        caller = wasp_runtime_caller(t->jni_env, (uint64_t)uc->uc_mcontext.gregs[REG_RSP], map,
                                     &nm);
    if (caller)
        wasp_pc_hist_count_caller(nm->id, caller);
    else if (!nm && wasp_top_java_frame(t, uc, &top)) {
        /* The interpreter (its live bcp in r13: interpreter.h), or the
         * runtime it called (the bcp saved for the call). */
        int32_t bci = wasp_interpreter_holds(pc)
                          ? wasp_interpreter_bci(top.method, (uint64_t)uc->uc_mcontext.gregs[REG_R13],
                                                 top.bci)
                          : top.bci;
        wasp_pc_hist_count_interpreted(top.method, bci);
    } else
        wasp_pc_hist_count(nm ? nm->id : 0, pc); /* ids not told apart: pc_hist.h */
    wasp_code_map_leave();
}

/* Whether a watch is armed on t (a debug register enabled). */
static int armed(const wasp_thread *t)
{
    for (int i = 0; i < t->capacity; i++)
        if (t->reservoir[i].in_use)
            return 1;
    return 0;
}

/* The charge below stops new arming, but not the watches already armed,
 * which are what slows the move: one that never traps (its bytes never
 * stored again, as start-up's write-once data) slowed every memset of its
 * thread to the run's end, and the budget, spent, paced sampling, so the
 * reservoir's lottery that might replace it ran rarely. DeadStoreMemset
 * ran 4-7x as long in about 1 run of 10, each with one watch still armed
 * at exit, and a CI run found no pair of its planted line at all. So the
 * watches of an analysis deep in debt go, as page protection's do
 * (budget.h, wasp_budget_spent). */
static void drop_costly_watches(wasp_thread *t)
{
    for (int i = 0; i < t->capacity; i++)
        if (t->reservoir[i].in_use && wasp_budget_spent(t, t->reservoir[i].analysis))
            wasp_watch_drop(t, i, WASP_C_DROP_STRING_COST);
}

/* A sample in a repeated string move while a watch is armed stands for
 * time the watch made that move take (mechanisms.h, string_watch_share):
 * charged to the watch budget, which then arms less, so that a program's
 * memset and memcpy do not run many times slower for the run's length
 * (ReplicaRing's copies on JDK 17: the JVM's clearing of them went from 5%
 * to 20% of the program's CPU). Shared by the analyses that watch: any
 * armed watch slows every string move of its thread. */
static void charge_string_move(wasp_thread *t, const wasp_sample_view *v,
                               const wasp_mechanisms *m)
{
    if (!(m->string_watch_share > 0) || !m->source->time_based || !armed(t) ||
        !wasp_isa_repeated_string(v->code, v->n))
        return;
    t->rec.counters[WASP_C_STRING_UNDER_WATCH]++;
    wasp_budget_charge_seen(t, (uint64_t)((double)t->sampler.period_ns * m->string_watch_share));
    drop_costly_watches(t);
}

static void on_sample(wasp_thread *t, const ucontext_t *uc)
{
    wasp_address_sample s;
    const wasp_mechanisms *m = wasp_chosen();
    t->rec.counters[WASP_C_SAMPLES]++;
    if (m->source->tick)
        m->source->tick(m->source, &t->sampler); /* the next, randomised interval */
    if (in_wasp(uc) || t->in_agent || just_out_of_wasp(t, uc) ||
        (m->watch && m->watch->busy && m->watch->busy(t->tid))) {
        t->rec.counters[WASP_C_SAMPLES_SELF]++;
        if (m->source->time_based)
            t->self_sampled_ns += t->sampler.period_ns;
        return;
    }
    wasp_thread_find_env(t);
    count_place(t, uc);
    if (!m->source->take(m->source, &t->sampler, uc, &s))
        return;

    wasp_sample_view v;
    wasp_view_init(&v, t, uc, &s);
    charge_string_move(t, &v, m);
    if (nobject_parts) {
        wasp_object_hit h;
        if (wasp_object_hit_find(t, &v, &h, nsample_hooks == 0) == WASP_OBJ_HIT)
            for (int i = 0; i < nobject_parts; i++)
                object_parts[i]->on_object(t, &v, &h);
        else if (h.no_object)
            for (int i = 0; i < nno_object_parts; i++)
                no_object_parts[i]->on_no_object(t, &v, &h);
    }
    uint64_t refused = t->rec.counters[WASP_C_DROP_BUDGET];
    uint32_t asked = t->budget_asks;
    for (int i = 0; i < nsample_hooks; i++)
        sample_hooks[i](t, &v);
    refused = t->rec.counters[WASP_C_DROP_BUDGET] - refused;
    wasp_pace(t, refused != 0, !refused && t->budget_asks != asked);
}

/* A trap of a slot wasp holds no watch in (a signal that raced with
 * disarming, or one of a breakpoint some path left enabled): on an engine
 * whose events are traps of hardware that stays armed until disabled, disable
 * it, or every later access to that address traps again, for good if
 * the handler itself makes one (a watch on the stack, under our frames). */
static void quiet_stray_trap(wasp_thread *t, int i)
{
    const wasp_watch_engine *e = wasp_chosen()->watch;
    if (e && e->events_are_traps && i < t->nslots + t->nwindow)
        e->disarm(t, i);
}

static void on_watch(wasp_thread *t, int i, const ucontext_t *uc, int async)
{
    if (i >= t->nslots + t->nwindow)
        return;
    wasp_slot *slot = &t->slots[i];
    if (slot->state == WASP_SLOT_FREE) {
        quiet_stray_trap(t, i);
        return;
    }
    t->rec.counters[WASP_C_TRAPPED]++;
    const wasp_mechanisms *m = wasp_chosen();
    if (m->watch && m->watch->events_are_traps)
        wasp_budget_charge(t, wasp_budget_owner(t, i), m->watch_event_ns);
    if (wasp_watch_epoch_check(t))
        return;
    if (async) {
        wasp_watch_drop(t, i, WASP_C_DROP_ASYNC);
        return;
    }
    const wasp_handler_part *owner = wasp_handler_part_of(t->reservoir[i].analysis);
    if (owner && owner->on_trap)
        owner->on_trap(t, i, uc);
    else
        wasp_watch_drop(t, i, WASP_C_COUNT);
}

/* ---- dispatch ------------------------------------------------------------- */

/* Take t's handler for work on its own thread: 1 when taken (t is profiled,
 * and no handler of ours runs on it already: a signal that interrupted
 * another of our handlers — the page engine's SIGSEGV handler lets SIGTRAP
 * through — is ignored). hold also asks that sampling is on. Give it back
 * with let_go. */
static int take(wasp_thread *t)
{
    if (!t || !t->active || t->in_handler)
        return 0;
    t->in_handler = 1;
    /* A full fence, not a compiler one: quiet() on another CPU clears active
     * and then reads in_handler; without it both could read the old values. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (t->active) {
        t->entries++;
        return 1;
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->in_handler = 0;
    return 0;
}

static int hold(wasp_thread *t)
{
    return wasp_sampling() && take(t);
}

static void let_go(wasp_thread *t)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->in_handler = 0;
}

/* A handler's time, from the wall clock: read in the vDSO, where the
 * thread's CPU clock is a system call each side (2-3 us in all on these VMs,
 * a tenth of a short handler). The wall clock also counts time the thread
 * waited, preempted inside the handler (milliseconds, on a CPU shared with
 * another busy thread), which would push the sampler over its budget for
 * good: a time past HANDLER_PREEMPTED_NS is counted at that bound. No
 * handler of ours comes near it (the longest, a fields sample in an array
 * being cleared, ~170 us). One that did would still put the sampler over
 * its 10% budget at periods under 2 ms; at longer ones the bound hides it
 * from the backoff (the price of not reading the CPU clock). */
static const uint64_t HANDLER_PREEMPTED_NS = 200000;

static uint64_t handler_ns_since(uint64_t t0)
{
    uint64_t ns = wasp_clock_ns(CLOCK_MONOTONIC) - t0;
    return ns < HANDLER_PREEMPTED_NS ? ns : HANDLER_PREEMPTED_NS;
}

static void enter(wasp_thread *t, int kind, int slot, ucontext_t *uc, int async)
{
    if (!wasp_sampling()) {
        /* Stopping: the slots are released soon, from another thread; a
         * watch that traps meanwhile is disabled now. */
        if (kind == WASP_EV_WATCH && take(t)) {
            quiet_stray_trap(t, slot);
            let_go(t);
        }
        return;
    }
    if (!take(t))
        return;
    uint64_t t0 = wasp_clock_ns(CLOCK_MONOTONIC);
    if (kind == WASP_EV_SAMPLE) {
        on_sample(t, uc);
        wasp_sampler_backoff(t, handler_ns_since(t0));
    } else if (kind == WASP_EV_WATCH) {
        /* Only engines whose events are traps come here (debug registers:
         * charged per trap in on_watch); the page engine's accesses come
         * through wasp_handler_access. */
        on_watch(t, slot, uc, async);
        t->rec.counters[WASP_C_WATCH_HANDLER_NS] += handler_ns_since(t0);
    }
    let_go(t);
}

void wasp_handler_access(wasp_thread *t, const uint16_t *slots, int n, void *ucontext,
                         const wasp_window_access *a)
{
    if (!n && (!a || !nwindow_hooks))
        return;
    if (!hold(t))
        return; /* stopping: the slots are released soon (the engine's traps are not events) */
    uint64_t t0 = wasp_clock_ns(CLOCK_MONOTONIC);
    for (int i = 0; i < n; i++)
        on_watch(t, slots[i], ucontext, 0);
    for (int i = 0; a && i < nwindow_hooks; i++)
        window_hooks[i](t, ucontext, a);
    uint64_t ns = handler_ns_since(t0);
    t->rec.counters[WASP_C_WATCH_HANDLER_NS] += ns;
    /* The engine charged its faults without this work: the budget's. */
    wasp_budget_charge(t, n ? wasp_budget_owner(t, slots[0]) : -1, ns);
    let_go(t);
}

static void on_sigtrap(int sig, siginfo_t *si, void *ucv)
{
    int saved = errno;
    wasp_let_faults_through(ucv);
    uint64_t data;
    if (!wasp_perf_signal_data(si, &data)) {
        int handled = 0;
        for (const wasp_watch_engine *const *e = wasp_watch_engines; *e && !handled; e++)
            handled = (*e)->on_trap && (*e)->on_trap(si, ucv);
        if (!handled)
            wasp_chain_signal(&previous, sig, si, ucv);
        errno = saved;
        return;
    }
    uint32_t index = (uint32_t)((data >> 8) & 0xffffff);
    int kind = (int)((data >> 4) & 0xf), slot = (int)(data & 0xf);
    if (index == WASP_PROBE_INDEX) {
        __atomic_add_fetch(&probe_counts[kind], 1, __ATOMIC_RELAXED);
    } else if (index < WASP_MAX_THREADS) {
        enter(wasp_thread_at(index), kind, slot, ucv, trap_was_async(si));
    }
    errno = saved;
}

int wasp_handler_slot_lost(wasp_thread *t, int slot, int reason)
{
    if (t->in_handler || slot >= t->nslots + t->nwindow)
        return -1;
    t->in_handler = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (t->slots[slot].state != WASP_SLOT_FREE) {
        t->slots[slot].state = WASP_SLOT_FREE;
        wasp_watch_count_drop(t, slot, reason);
    }
    wasp_reservoir_release(&t->reservoir[slot]);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->in_handler = 0;
    return 0;
}

void wasp_handler_object_born(wasp_thread *t, const wasp_birth *b)
{
    /* Held like a signal: a sample or trap arriving meanwhile on this thread
     * is ignored rather than run over the slots being armed. */
    if (!nbirth_parts || !hold(t))
        return;
    for (int i = 0; i < nbirth_parts; i++)
        birth_parts[i]->on_birth(t, b);
    let_go(t);
}

uint32_t wasp_handler_probe_count(int kind)
{
    return __atomic_load_n(&probe_counts[kind & 15], __ATOMIC_RELAXED);
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
    for (int i = 0; i < t->nslots + t->nwindow; i++)
        wasp_watch_drop(t, i, WASP_C_DROP_EXIT);
    for (int i = 0; i < nend_hooks; i++)
        end_hooks[i](t);
}
