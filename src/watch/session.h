/*
 * The session's settings: the analyses that run and the options the handler
 * and the thread code read. Filled by agent.c (setup) with one
 * wasp_session_set call before sampling starts, and read-only while it runs
 * (a new session, wasp attach after wasp detach, sets them again while
 * sampling is off). The mechanisms chosen are mechanisms.h.
 *
 * ASYNC-SIGNAL-SAFE: read by the signal handler; nothing writes it while
 * sampling is on.
 */
#ifndef WASP_SESSION_H
#define WASP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

typedef void (*wasp_agct_fn)(void *trace, int depth, void *ucontext);

typedef struct wasp_session {
    uint32_t enabled;          /* the analyses running (a bit per analysis id) */
    double float_threshold;
    uint32_t max_frames;
    int context;               /* WASP_CONTEXT_WALK, _CHAIN, _CHAIN_CHECK (watch/caller_chain.h) */
    int nslots;                /* watchpoints per thread */
    wasp_agct_fn agct;         /* AsyncGetCallTrace, NULL when the JVM has none */
    void *jvm;                 /* JavaVM*, for threads adopted at attach */
    double watch_budget;       /* watch events' share of CPU time, 0: no limit */
} wasp_session;

/* The settings (never NULL; all zero before the first session). */
const wasp_session *wasp_session_get(void);
/* Analysis id runs in this session (its bit in enabled). */
bool wasp_session_runs(int id);
/* agent.c only, before sampling starts. */
void wasp_session_set(const wasp_session *s);

#endif
