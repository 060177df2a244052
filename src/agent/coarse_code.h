/*
 * Compiled methods whose lines are coarse: compiled before HotSpot's
 * DebugNonSafepoints was on, so their debug records are at safepoints only
 * (calls, a loop's back edge, returns), and a sample between two counts at
 * the next one's line: a loop's header instead of the line in its body.
 * That is the code of a JVM wasp attached to that was started without the
 * flag: wasp turns it on, and only code compiled from then on is exact.
 *
 * The agent library stays loaded between sessions, and a later attach sees
 * the flag on: the methods compiled before the first attach are remembered
 * here (by code address and method), for as long as the JVM runs, less
 * those the JVM unloads while a session listens.
 *
 * Not async-signal-safe: JVMTI callbacks, under the code map's lock.
 */
#ifndef WASP_COARSE_CODE_H
#define WASP_COARSE_CODE_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

/* Remembers the method compiled at start as coarse. */
void wasp_coarse_code_add(uint64_t start, jmethodID method);
/* Done adding (sorts what was added). */
void wasp_coarse_code_added(void);
/* Whether the method compiled at start was remembered as coarse. */
bool wasp_coarse_code_has(uint64_t start, jmethodID method);
/* The JVM unloaded it: an address taken again holds new code. */
void wasp_coarse_code_forget(uint64_t start, jmethodID method);

#endif
