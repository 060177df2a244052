/*
 * The file descriptors wasp's per-thread events may hold. Each profiled
 * thread holds a perf event for its sampler and one per debug register
 * (five on the defaults), so a service of 400 threads under an open-file
 * limit of 2,048 had every descriptor taken by wasp and its own opens failed
 * ("Too many open files"). wasp keeps to a quarter of the descriptors the
 * process had free when the session began (RLIMIT_NOFILE's soft limit less
 * those open); a thread that would pass that is not profiled.
 *
 * Not async-signal-safe: thread start and end, and the session's start.
 */
#ifndef WASP_FD_BUDGET_H
#define WASP_FD_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

/* At the session's start: the budget from the limit and the descriptors
 * open now; nothing held, nothing refused. */
void wasp_fd_budget_start(void);
/* Takes n descriptors for a thread about to open its events: false (nothing
 * taken) when they would pass the budget; the first refusal is logged. */
bool wasp_fd_budget_take(int n, const char *thread_name);
/* Gives back n taken (those a thread did not open, or all at its end). */
void wasp_fd_budget_give(int n);
/* Threads refused this session. */
uint64_t wasp_fd_budget_refused(void);

#endif
