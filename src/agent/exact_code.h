/*
 * Compiled methods whose lines are exact, in an attached JVM. The others
 * are coarse: compiled while HotSpot's DebugNonSafepoints was off, so their debug records are at safepoints only
 * (calls, a loop's back edge, returns), and a sample between two counts at
 * the next one's line: a loop's header instead of the line in its body.
 * That is the code of a JVM wasp attached to that was started without the
 * flag: wasp turns it on for the session (and off again at the detach, as
 * it found it), and only code compiled meanwhile is exact.
 *
 * So what is remembered, from one attach to the next (the agent library
 * stays loaded), is the code compiled while a session had the flag on: its
 * code address and method, less what the JVM unloads while a session
 * listens, and at each attach less what the JVM no longer reports. A method
 * reported at an attach is coarse unless remembered so.
 *
 * Not async-signal-safe: JVMTI callbacks, under the code map's lock.
 */
#ifndef WASP_EXACT_CODE_H
#define WASP_EXACT_CODE_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

/* Remembers the method compiled at start as exact (compiled with the flag on). */
void wasp_exact_code_add(uint64_t start, jmethodID method);
/* Whether the method compiled at start was remembered as exact; each one
 * asked about is marked as still there. */
bool wasp_exact_code_has(uint64_t start, jmethodID method);
/* Forgets those not asked about since the last call (no longer compiled);
 * sorts what was added. */
void wasp_exact_code_prune(void);
/* The JVM unloaded it: an address taken again holds new code. */
void wasp_exact_code_forget(uint64_t start, jmethodID method);

#endif
