/*
 * Profiled threads: creating a thread's profiling state when it starts,
 * quieting it when it ends or when the run ends. The state itself
 * (watch/thread_state.h) stays until the profile is written, and goes when
 * the session ends (wasp_threads_retire_all).
 * Not for signal handlers.
 */
#ifndef WASP_THREADS_H
#define WASP_THREADS_H

#include <jvmti.h>

#include "agent/options.h"
#include "watch/thread_state.h"

/* on_end: what to keep of a thread that ends (its state is freed after). */
void wasp_threads_init(const wasp_options *o, void (*on_end)(const wasp_thread *t));
/* Start profiling the calling thread. Failures are logged once and leave the
 * thread unprofiled. */
void wasp_thread_begin(JNIEnv *env, const char *name);
/* Start profiling the threads that already run (agent loaded by attach),
 * except JVM-internal ones, under their Java names. Returns how many. */
int wasp_threads_adopt_existing(jvmtiEnv *jvmti, JNIEnv *env);
/* The calling thread's state, NULL when it is not profiled. A thread adopted
 * at attach is found by its tid the first time (a scan of the registry). */
wasp_thread *wasp_thread_self_or_adopted(void);
/* Around a JVMTI callback of wasp's on a program thread (an allocation
 * sampled, a class prepared): the thread's samples meanwhile count as
 * wasp's (samples.in_wasp), not at the program's line that led there.
 * enter returns the thread's state (NULL when not profiled), which leave
 * takes. */
wasp_thread *wasp_agent_enter(void);
void wasp_agent_leave(wasp_thread *t);
/* Stop profiling the calling thread (it is ending). */
void wasp_thread_finish(void);
/* Stop every thread's sampling, wait until no handler is running, then call
 * visit (if not NULL) on each thread still registered. */
void wasp_threads_stop_all(void (*visit)(const wasp_thread *t));
/* A snapshot: every running thread in turn is held off its handler for a
 * moment, its watches dropped (as at a collection), its records given to
 * fold and then cleared, so that the next snapshot folds only what came
 * after. Returns how many threads were passed over (a handler of theirs did
 * not finish). */
int wasp_threads_fold_live(void (*fold)(const wasp_thread *t));
/* How full the fullest table of any running thread is (0 to 1; 1 when an
 * analysis's own table turned a sample away since the last fold): when to
 * fold them (agent.c) before samples are dropped for room. */
double wasp_threads_fullest(void);
/* The session ends: every thread still registered (stopped already by
 * wasp_threads_stop_all and folded) leaves the registry and its tables are
 * freed, so the next session (wasp attach again) starts with none. */
void wasp_threads_retire_all(void);
/* Calls visit on every registered thread (under the registry lock), without
 * stopping any: for threads wasp_threads_stop_all has stopped already. */
void wasp_threads_visit(void (*visit)(const wasp_thread *t));
/* Samples taken so far by every thread profiled in this session, ended or
 * running (the "samples" counter the profile will hold). */
uint64_t wasp_threads_samples(void);
/* CPU seconds the thread ran (so far, or until it ended). */
double wasp_thread_cpu_seconds(const wasp_thread *t);

#endif
