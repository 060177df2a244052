/*
 * The watchpoint engine's CPU budget (budget.c): a thread's watch events —
 * traps, or faults stepped over — at the cost the start-up proof measured,
 * stay under the session's watch_budget of its CPU time (session.h). Each
 * analysis that watches has its share of the budget, kept apart: under
 * `-e all` on page protection the pair analyses' windows, whose faults are
 * many, spent what the allocations' TLAB watches needed (docs/corpus.md,
 * Finding 15).
 *
 * ASYNC-SIGNAL-SAFE: called from the SIGTRAP and SIGSEGV handlers.
 */
#ifndef WASP_WATCH_BUDGET_H
#define WASP_WATCH_BUDGET_H

#include <stdint.h>

#include "watch/thread_state.h"

/* Faults one watch may cost its owner before the page engine drops it,
 * whatever the budget (0 included): a watch whose bytes are never touched
 * again on a page the program sweeps would otherwise slow it down for good. */
enum { WASP_WATCH_FAULT_CAP = 4096 };

/* A session starts (before sampling): the process-wide ledgers from zero,
 * against the process's CPU time from now on, the budget shared evenly
 * among the analyses of `watching` (a bit per analysis id). */
void wasp_budget_session_start(uint32_t watching);
/* May t arm another watch for analysis now? Checks the ledgers every few
 * calls. */
int wasp_budget_allows(wasp_thread *t, int analysis);
/* Whether t's watches of analysis are so far over its budget that they must
 * go. */
int wasp_budget_spent(const wasp_thread *t, int analysis);
/* t's watch events cost ns, to analysis's share (-1, or an analysis that
 * does not watch: to every share evenly). */
void wasp_budget_charge(wasp_thread *t, int analysis, uint64_t ns);
/* t spent ns that its samples saw its watches cost (not a modeled event:
 * the string moves they slow, handler.c), to every share evenly. */
void wasp_budget_charge_seen(wasp_thread *t, uint64_t ns);
/* The analysis holding t's slot, -1 when the slot is nobody's. */
int wasp_budget_owner(const wasp_thread *t, int slot);

#endif
