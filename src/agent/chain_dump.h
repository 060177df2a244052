/*
 * CallerChaining contexts at the dump (docs/context-chain.md): every
 * thread's quadruples merged into one calling-context tree
 * (watch/caller_cct.h), each chain context (pc, depth) expanded into Java
 * frames through it, check mode's comparison with AsyncGetCallTrace, and
 * what the profile says about the context mode.
 *
 * Not async-signal-safe: runs when threads are folded and the profile is
 * written, threads quiet.
 */
#ifndef WASP_CHAIN_DUMP_H
#define WASP_CHAIN_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "watch/thread_state.h"

/* Takes a thread's quadruples and check samples (once per thread). */
void wasp_chain_harvest(const wasp_thread *t);

/* Whether frames[0..n) are a chain context (watch/caller_chain.h). */
int wasp_chain_is_context(const wasp_rframe *frames, uint32_t n);
/* Expands a chain context into Java frames, leaf first, at most cap into
 * out, and writes into end the text of the frame that says where the chain
 * ended ("[chain ends: ...]"; the caller's buffer, not one of ours: the
 * library keeps no thread-local storage it does not need). Returns the
 * count. */
enum { WASP_CHAIN_END_TEXT = 160 };
int wasp_chain_expand(const wasp_rframe *marks, wasp_rframe *out, int cap, char *end,
                      size_t end_cap);

/* The context mode's metadata and the check's agreement, of the session so
 * far (p: its profile, all segments joined). final: the session ends, and
 * its quadruples go; a snapshot keeps them. */
void wasp_chain_meta(wasp_profile *p, int final);

#endif
