/*
 * The session's background thread, `wasp-folds`: every tick it lets the
 * agent fold the threads' records into the profile when their tables fill
 * (so no sample is dropped for room), and, with snapshot=DURATION, write the
 * profile so far every interval, so that a JVM that is killed (SIGKILL, the
 * kernel's OOM killer, a container stopped) loses at most one interval.
 * Not for signal handlers.
 */
#ifndef WASP_SNAPSHOTS_H
#define WASP_SNAPSHOTS_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

/* The agent's work of a tick, on the background thread; due: a snapshot
 * interval has passed. */
typedef void (*wasp_snapshot_fn)(jvmtiEnv *jvmti, JNIEnv *env, int due);

/* Start the thread (live phase): fn every tick ns (every snapshot_ns, when
 * shorter), due every snapshot_ns (0: never). 0, or -1 with why[]. */
int wasp_snapshots_start(jvmtiEnv *jvmti, JNIEnv *env, uint64_t snapshot_ns, uint64_t tick,
                         wasp_snapshot_fn fn, char *why, size_t len);
/* No more ticks (the thread ends when it next wakes; not waited for: at the
 * VM's death agent threads may be gone already). */
void wasp_snapshots_stop(void);

#endif
