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
 * Each analysis that watches has a ledger of its own, credited with its
 * share of the budget (the budget over the analyses watching) and debited
 * with what its watches cost: under one ledger, the pair analyses' windows
 * (thousands of faults for a few samples on page protection) spent the
 * budget before the allocations' TLAB watches (a fault or two each) could
 * arm any (pdfbox under -e all: 2 TLAB watches against 693 under -e alloc
 * alone). A cost no one analysis caused is shared evenly.
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

/* The analyses whose watches the budget is shared among, set before
 * sampling starts and read-only afterwards. */
static uint32_t watching;
static int nwatching;

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

/* Each analysis's spending over every thread, as their checks saw it
 * (scaled): with many threads, each in debt by up to a watch when it
 * ended, the threads' own ledgers let the process spend many times its
 * budget. */
static uint64_t process_spent_ns[WASP_ANALYSES];
/* The process's CPU time when the session started: a JVM that ran for hours
 * before wasp attach must not lend the session a budget of those hours. */
static uint64_t process_cpu_start_ns;

static int watches(int analysis)
{
    return analysis >= 0 && analysis < WASP_ANALYSES && (watching >> analysis & 1u);
}

void wasp_budget_session_start(uint32_t analyses)
{
    watching = 0;
    for (int a = 0; a < WASP_ANALYSES; a++)
        watching |= analyses & (1u << a);
    nwatching = __builtin_popcount(watching);
    __atomic_store_n(&process_seen_ns, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&process_modeled_ns, 0, __ATOMIC_RELAXED);
    for (int a = 0; a < WASP_ANALYSES; a++)
        __atomic_store_n(&process_spent_ns[a], 0, __ATOMIC_RELAXED);
    process_cpu_start_ns = wasp_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

void wasp_budget_charge(wasp_thread *t, int analysis, uint64_t ns)
{
    t->watch_cost_ns += ns;
    if (watches(analysis)) {
        t->budget_cost_ns[analysis] += ns;
        return;
    }
    for (int a = 0; a < WASP_ANALYSES; a++)
        if (watches(a))
            t->budget_cost_ns[a] += ns / (uint64_t)nwatching;
}

void wasp_budget_charge_seen(wasp_thread *t, uint64_t ns)
{
    /* The ledgers scale what they are charged by the model's correction:
     * this cost is no model's, so it goes in divided by it, and stays out
     * of watch_cost_ns, which the correction compares with the samples in
     * wasp's handling. */
    if (!nwatching)
        return;
    uint64_t share = (uint64_t)((double)ns / cost_scale(t)) / (uint64_t)nwatching;
    for (int a = 0; a < WASP_ANALYSES; a++)
        if (watches(a))
            t->budget_cost_ns[a] += share;
}

int wasp_budget_owner(const wasp_thread *t, int slot)
{
    if (slot < 0 || slot >= t->capacity || !t->reservoir[slot].in_use)
        return -1;
    return t->reservoir[slot].analysis;
}

/* One check of t's ledgers: each credited with its share of t's CPU time
 * since the last check, debited with its watches' cost (scaled); open while
 * in credit and its share of the process's budget is not spent. */
static void check(wasp_thread *t, double budget, const wasp_mechanisms *m)
{
    uint64_t cpu = wasp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    if (!t->budget_cpu_ns)
        t->budget_cpu_ns = cpu > t->cpu_ns_start && t->cpu_ns_start ? t->cpu_ns_start : cpu;
    __atomic_add_fetch(&process_seen_ns, t->self_sampled_ns - t->budget_self_seen_ns,
                       __ATOMIC_RELAXED);
    t->budget_self_seen_ns = t->self_sampled_ns;
    double share = budget / nwatching, scale = cost_scale(t);
    double earned = share * (double)(cpu > t->budget_cpu_ns ? cpu - t->budget_cpu_ns : 0);
    double bank = share * BUDGET_BANK_NS;
    t->budget_cpu_ns = cpu;
    double allowed = -1; /* the process's budget for one share: read when needed */
    uint64_t modeled_all = 0, foreign = 0;
    uint32_t open = 0;
    for (int a = 0; a < WASP_ANALYSES; a++) {
        if (!watches(a))
            continue;
        uint64_t modeled = t->budget_cost_ns[a] - t->budget_cost_seen_ns[a];
        t->budget_cost_seen_ns[a] = t->budget_cost_ns[a];
        modeled_all += modeled;
        double spent = (double)modeled * scale;
        double *ledger = &t->budget_ledger_ns[a];
        *ledger += earned - spent;
        if (*ledger > bank)
            *ledger = bank;
        uint64_t all = __atomic_add_fetch(&process_spent_ns[a], (uint64_t)spent, __ATOMIC_RELAXED);
        if (*ledger <= 0)
            continue;
        if (allowed < 0) {
            allowed = share * (double)(wasp_clock_ns(CLOCK_PROCESS_CPUTIME_ID) -
                                       process_cpu_start_ns);
            uint64_t unowned = m->watch && m->watch->unowned_cost_ns ? m->watch->unowned_cost_ns()
                                                                     : 0;
            foreign = unowned / (uint64_t)nwatching;
        }
        if ((double)(all + foreign) <= allowed)
            open |= 1u << a;
    }
    __atomic_add_fetch(&process_modeled_ns, modeled_all, __ATOMIC_RELAXED);
    t->budget_open = open;
}

int wasp_budget_allows(wasp_thread *t, int analysis)
{
    double budget = wasp_session_get()->watch_budget;
    const wasp_mechanisms *m = wasp_chosen();
    t->budget_asks++;
    if (budget <= 0 || !m->watch_event_ns || !nwatching)
        return 1;
    /* An analysis that does not watch (none should ask) may arm while any may. */
    uint32_t mine = watches(analysis) ? 1u << analysis : watching;
    if (t->budget_countdown) {
        t->budget_countdown--;
        return (t->budget_open & mine) != 0;
    }
    /* Paced samples are rare: each checks (budget's answer is not stale). */
    t->budget_countdown = t->pace_shift ? 0 : BUDGET_EVERY - 1;
    check(t, budget, m);
    return (t->budget_open & mine) != 0;
}

/* Whether t's watches of analysis a are deep in debt (see wasp_budget_spent). */
static int in_debt(const wasp_thread *t, int a, double share)
{
    /* The budget gates arming (wasp_budget_allows); a watch already armed
     * runs to its end unless its analysis is deep in debt. Cutting watches
     * as soon as the ledger dips below zero threw away what they had cost:
     * watches that live through many faults (a hot page) were dropped nearly
     * all, and the pairs left were those with a short reuse distance. The
     * debt allowed is one watch at its fault cap, or the bank if larger; it
     * is repaid by arming less afterwards. Counted also between checks: a
     * thread that spends its time in faults takes few samples that reach a
     * check (they land in wasp's handling). */
    double debt = (double)(t->budget_cost_ns[a] - t->budget_cost_seen_ns[a]) * cost_scale(t) -
                  t->budget_ledger_ns[a];
    double limit = share * BUDGET_BANK_NS;
    double one_watch = (double)WASP_WATCH_FAULT_CAP * (double)wasp_chosen()->watch_event_ns;
    return debt > (one_watch > limit ? one_watch : limit);
}

int wasp_budget_spent(const wasp_thread *t, int analysis)
{
    double budget = wasp_session_get()->watch_budget;
    if (budget <= 0 || !nwatching)
        return 0;
    double share = budget / nwatching;
    if (watches(analysis))
        return in_debt(t, analysis, share);
    for (int a = 0; a < WASP_ANALYSES; a++)
        if (watches(a) && in_debt(t, a, share))
            return 1;
    return 0;
}
