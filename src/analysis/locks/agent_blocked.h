/*
 * Time blocked on locks (`-e locks`): a wall-clock look at every Java thread
 * every WASP_LOCK_BLOCKED_PERIOD_MS, from a thread of the agent's own
 * (agent_blocked.c). A thread found waiting to enter a monitor is a sample
 * of the class of the object it waits for (JVMTI GetCurrentContendedMonitor);
 * one found parked by a java.util.concurrent lock, of its park's blocker
 * (LockSupport.getBlocker: an AbstractQueuedSynchronizer such as
 * ReentrantLock$NonfairSync, as JFR's jdk.ThreadPark names it). Each sample
 * stands for the wall-clock time since the look before. A CPU-time sampler
 * cannot see these threads: they use no CPU.
 *
 * Not for signal handlers.
 */
#ifndef WASP_ANALYSIS_LOCKS_AGENT_BLOCKED_H
#define WASP_ANALYSIS_LOCKS_AGENT_BLOCKED_H

#include "agent/dump.h"

enum { WASP_LOCK_BLOCKED_PERIOD_MS = 10 };

/* Starts the looking thread (it waits for the VM to be live): 0, or -1 with
 * one log line (blocked time is then not measured). */
int wasp_locks_blocked_start(void);
/* Stops it; what it found stays for wasp_locks_blocked_finish. */
void wasp_locks_blocked_stop(void);
/* Its samples into the profile, with their metadata, each context as
 * java_context makes it (the acquiring context); then forgets them. */
void wasp_locks_blocked_finish(wasp_dump *d, uint32_t (*java_context)(wasp_profile *, uint32_t));

#endif
