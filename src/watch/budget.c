/*
 * The watchpoint engine's CPU budget (see budget.h). Faults by threads that
 * own no watch on the page stay under the same share of the process's CPU
 * time. The thread's budget is a ledger credited with its share of each
 * stretch of CPU time and debited with the events' cost; it banks at most
 * BUDGET_BANK_NS of CPU time's worth, so arming is spread evenly over the run
 * instead of spending savings in bursts (which would draw correlated
 * evidence from one phase of the program). Checked every BUDGET_EVERY calls
 * (a clock read is a system call).
 *
 * The events' cost is measured once at start-up, on a quiet process; in a
 * busy JVM a fault costs more (seen: 29 us where 18 us was measured, so a
 * 50% budget let the program run 5x slower). CPU-time samples that land in
 * wasp's handling measure the real share, so the model is scaled up by what
 * they show once they are enough to say.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP and SIGSEGV handlers.
 */
#include "watch/budget.h"

#include <time.h>

#include "common/clock.h"
#include "watch/engine.h"
#include "watch/mechanisms.h"
#include "watch/session.h"

enum { BUDGET_EVERY = 4 };
static const double BUDGET_BANK_NS = 100e6;
/* Self samples' CPU time before they calibrate the model (~50 samples at
 * the default period), and the largest correction believed. */
static const double CALIBRATE_AFTER_NS = 50e6, CALIBRATE_MAX = 8.0;

/* Self samples' time and the modeled cost over every thread, as their
 * checks reported them: a thread too short-lived to calibrate the model on
 * its own samples takes the process's correction (GcStress under ZGC: its
 * faults cost ~4x the start-up measurement, on threads of ~50 samples). */
static uint64_t process_seen_ns, process_modeled_ns;

static double scale_of(double seen, double modeled)
{
    if (seen < CALIBRATE_AFTER_NS || seen <= modeled)
        return 1.0;
    double k = seen / modeled;
    return k < CALIBRATE_MAX ? k : CALIBRATE_MAX;
}

/* How much the measured event cost understates t's real one (>= 1). */
static double cost_scale(const wasp_thread *t)
{
    if ((double)t->self_sampled_ns >= CALIBRATE_AFTER_NS)
        return scale_of((double)t->self_sampled_ns, (double)t->watch_cost_ns);
    return scale_of((double)__atomic_load_n(&process_seen_ns, __ATOMIC_RELAXED),
                    (double)__atomic_load_n(&process_modeled_ns, __ATOMIC_RELAXED));
}

/* Every thread's spending as its checks saw it (scaled): with many threads,
 * each in debt by up to a watch when it ended, the threads' own ledgers let
 * the process spend many times its budget. */
static uint64_t process_spent_ns;
/* The process's CPU time when the session started: a JVM that ran for hours
 * before wasp attach must not lend the session a budget of those hours. */
static uint64_t process_cpu_start_ns;

void wasp_budget_session_start(void)
{
    __atomic_store_n(&process_seen_ns, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&process_modeled_ns, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&process_spent_ns, 0, __ATOMIC_RELAXED);
    process_cpu_start_ns = wasp_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

int wasp_budget_allows(wasp_thread *t)
{
    double budget = wasp_session_get()->watch_budget;
    const wasp_mechanisms *m = wasp_chosen();
    t->budget_asks++;
    if (budget <= 0 || !m->watch_event_ns)
        return 1;
    if (t->budget_countdown) {
        t->budget_countdown--;
        return t->budget_open;
    }
    /* Paced samples are rare: each checks (budget's answer is not stale). */
    t->budget_countdown = t->pace_shift ? 0 : BUDGET_EVERY - 1;
    uint64_t cpu = wasp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    if (!t->budget_cpu_ns)
        t->budget_cpu_ns = cpu > t->cpu_ns_start && t->cpu_ns_start ? t->cpu_ns_start : cpu;
    uint64_t modeled = t->watch_cost_ns - t->budget_cost_seen_ns;
    __atomic_add_fetch(&process_modeled_ns, modeled, __ATOMIC_RELAXED);
    __atomic_add_fetch(&process_seen_ns, t->self_sampled_ns - t->budget_self_seen_ns,
                       __ATOMIC_RELAXED);
    t->budget_self_seen_ns = t->self_sampled_ns;
    double earned = budget * (double)(cpu > t->budget_cpu_ns ? cpu - t->budget_cpu_ns : 0);
    double spent = (double)modeled * cost_scale(t);
    t->budget_cpu_ns = cpu;
    t->budget_cost_seen_ns = t->watch_cost_ns;
    t->budget_ledger_ns += earned - spent;
    double bank = budget * BUDGET_BANK_NS;
    if (t->budget_ledger_ns > bank)
        t->budget_ledger_ns = bank;
    uint64_t all = __atomic_add_fetch(&process_spent_ns, (uint64_t)spent, __ATOMIC_RELAXED);
    int open = t->budget_ledger_ns > 0;
    uint64_t foreign = m->watch && m->watch->unowned_cost_ns ? m->watch->unowned_cost_ns() : 0;
    if (open)
        open = (double)(all + foreign) <=
               budget * (double)(wasp_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - process_cpu_start_ns);
    t->budget_open = open;
    return open;
}

int wasp_budget_spent(const wasp_thread *t)
{
    double budget = wasp_session_get()->watch_budget;
    if (budget <= 0)
        return 0;
    /* The budget gates arming (wasp_budget_allows); a watch already armed
     * runs to its end unless the thread is deep in debt. Cutting watches as
     * soon as the ledger dips below zero threw away what they had cost:
     * watches that live through many faults (a hot page) were dropped nearly
     * all, and the pairs left were those with a short reuse distance. The
     * debt allowed is one watch at its fault cap, or the bank if larger; it
     * is repaid by arming less afterwards. Counted also between checks: a
     * thread that spends its time in faults takes few samples that reach a
     * check (they land in wasp's handling). */
    double debt = (double)(t->watch_cost_ns - t->budget_cost_seen_ns) * cost_scale(t) -
                  t->budget_ledger_ns;
    double limit = budget * BUDGET_BANK_NS;
    double one_watch = (double)WASP_WATCH_FAULT_CAP * (double)wasp_chosen()->watch_event_ns;
    return debt > (one_watch > limit ? one_watch : limit);
}
