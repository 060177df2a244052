/*
 * The watchpoint engine's CPU budget (budget.c): a thread's watch events —
 * traps, or faults stepped over — at the cost the start-up proof measured,
 * stay under wasp_rt.watch_budget of its CPU time.
 *
 * ASYNC-SIGNAL-SAFE: called from the SIGTRAP and SIGSEGV handlers.
 */
#ifndef WASP_WATCH_BUDGET_H
#define WASP_WATCH_BUDGET_H

#include "watch/thread_state.h"

/* May t arm another watch now? Checks the ledger every few calls. */
int wasp_budget_allows(wasp_thread *t);
/* Whether t's budget is spent (at its last check, or since by its faults). */
int wasp_budget_spent(const wasp_thread *t);

#endif
