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
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP and SIGSEGV handlers.
 */
#include "watch/budget.h"

#include <time.h>

#include "common/clock.h"
#include "watch/engine.h"
#include "watch/runtime.h"

enum { BUDGET_EVERY = 4 };
static const double BUDGET_BANK_NS = 100e6;

int wasp_budget_allows(wasp_thread *t)
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
    double earned =
        wasp_rt.watch_budget * (double)(cpu > t->budget_cpu_ns ? cpu - t->budget_cpu_ns : 0);
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

int wasp_budget_spent(const wasp_thread *t)
{
    if (wasp_rt.watch_budget <= 0)
        return 0;
    /* Also between checks: a thread that spends its time in faults takes few
     * samples that reach a check (they land in wasp's handling). */
    double unchecked = (double)(t->watch_cost_ns - t->budget_cost_seen_ns);
    double credit = t->budget_ledger_ns > 0 ? t->budget_ledger_ns : 0;
    return t->budget_over || unchecked > credit + wasp_rt.watch_budget * BUDGET_BANK_NS;
}
