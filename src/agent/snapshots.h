/*
 * Periodic snapshots (snapshot=DURATION): every interval, while a session
 * runs, the profile so far is written over the last one, so that a JVM that
 * is killed (SIGKILL, the kernel's OOM killer, a container stopped) loses at
 * most one interval. Not for signal handlers.
 */
#ifndef WASP_SNAPSHOTS_H
#define WASP_SNAPSHOTS_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

/* Writes a snapshot, on the snapshot thread. */
typedef void (*wasp_snapshot_fn)(jvmtiEnv *jvmti, JNIEnv *env);

/* Start the snapshot thread (live phase): fn every ns. 0, or -1 with why[]. */
int wasp_snapshots_start(jvmtiEnv *jvmti, JNIEnv *env, uint64_t ns, wasp_snapshot_fn fn,
                         char *why, size_t len);
/* No more snapshots (the thread ends when it next wakes; not waited for: at
 * the VM's death agent threads may be gone already). */
void wasp_snapshots_stop(void);

#endif
