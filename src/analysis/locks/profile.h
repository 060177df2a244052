/*
 * Lock activity (`-e locks`) in the profile: lock samples by (class of the
 * locked object, acquiring Java context, where): acquiring and releasing
 * compare-and-swaps on the mark word in generated code (where "") and
 * samples in the runtime's monitor-enter slow paths (where: the function).
 * Section LOCK (profile.c).
 */
#ifndef WASP_ANALYSIS_LOCKS_PROFILE_H
#define WASP_ANALYSIS_LOCKS_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct wasp_profile wasp_profile;

/* One (class, context, where)'s samples. Strings are the profile's: cls the
 * locked object's class ("" when not known), where "" for the generated
 * code's fast path or the slow-path function ("ObjectMonitor::TrySpin"). ctx
 * is the Java context alone (no native leaf, no instruction), so the fast
 * and slow paths of one monitorenter share it. */
typedef struct wasp_lock_entry {
    uint32_t cls, where, ctx;
    double acquire; /* samples at an acquiring compare-and-swap */
    double release; /* ... at a releasing one */
    double slow;    /* samples in a slow-path function */
} wasp_lock_entry;

const wasp_lock_entry *wasp_profile_locks(const wasp_profile *p, uint32_t *n);
/* Adds e's samples to the entry with e's key, creating it: 0, or -1 when an
 * id is out of range or out of memory. */
int wasp_profile_add_lock(wasp_profile *p, const wasp_lock_entry *e);
/* Samples of threads found blocked by a wall-clock look at every thread
 * (agent_blocked.c): cls the class of the object a thread waits for, where
 * WASP_LOCK_MONITOR (entering a synchronized block or method) or
 * WASP_LOCK_PARK (parked by a java.util.concurrent lock: cls is the park's
 * blocker, as LockSupport.getBlocker says), ctx the blocked thread's Java
 * frames. seconds: the wall-clock time the samples stand for (each sample
 * the time since the look before). */
#define WASP_LOCK_MONITOR "monitor"
#define WASP_LOCK_PARK "park"
typedef struct wasp_lock_blocked {
    uint32_t cls, where, ctx;
    uint32_t pad_;
    double samples, seconds;
} wasp_lock_blocked;

const wasp_lock_blocked *wasp_profile_locks_blocked(const wasp_profile *p, uint32_t *n);
int wasp_profile_add_lock_blocked(wasp_profile *p, const wasp_lock_blocked *b);
/* Does the report show the locks section? */
bool wasp_profile_has_locks(const wasp_profile *p);

#endif
