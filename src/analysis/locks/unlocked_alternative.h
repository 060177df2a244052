/*
 * The JDK's classes whose methods lock on every call, for a sharing between
 * threads most uses do not need, and what does the same without the lock
 * (the summary's words for an uncontended lock, docs/locks.md). Pure.
 */
#ifndef WASP_ANALYSIS_LOCKS_UNLOCKED_ALTERNATIVE_H
#define WASP_ANALYSIS_LOCKS_UNLOCKED_ALTERNATIVE_H

/* What to say after "uncontended:" for a lock of class cls (Java notation),
 * NULL when there is nothing to suggest. */
const char *wasp_lock_unlocked_alternative(const char *cls);

#endif
