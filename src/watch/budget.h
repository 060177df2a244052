/*
 * The watchpoint engine's CPU budget (budget.c): a thread's watch events —
 * traps, or faults stepped over — at the cost the start-up proof measured,
 * stay under the session's watch_budget of its CPU time (session.h).
 *
 * ASYNC-SIGNAL-SAFE: called from the SIGTRAP and SIGSEGV handlers.
 */
#ifndef WASP_WATCH_BUDGET_H
#define WASP_WATCH_BUDGET_H

#include "watch/thread_state.h"

/* Faults one watch may cost its owner before the page engine drops it,
 * whatever the budget (0 included): a watch whose bytes are never touched
 * again on a page the program sweeps would otherwise slow it down for good. */
enum { WASP_WATCH_FAULT_CAP = 4096 };

/* A session starts (before sampling): the process-wide ledger from zero,
 * against the process's CPU time from now on. */
void wasp_budget_session_start(void);
/* May t arm another watch now? Checks the ledger every few calls. */
int wasp_budget_allows(wasp_thread *t);
/* Whether t is so far over its budget that its armed watches must go. */
int wasp_budget_spent(const wasp_thread *t);

#endif
