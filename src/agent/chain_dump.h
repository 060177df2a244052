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

#include <stdint.h>

#include "profile/profile.h"
#include "watch/thread_state.h"

/* Takes a thread's quadruples and check samples (once per thread). */
void wasp_chain_harvest(const wasp_thread *t);

/* Whether frames[0..n) are a chain context (watch/caller_chain.h). */
int wasp_chain_is_context(const wasp_rframe *frames, uint32_t n);
/* Expands a chain context into Java frames, leaf first, at most cap into
 * out; *end is set to the text of the frame that ends the chain ("[chain
 * ends: ...]") or NULL when it reached no end worth a frame. Returns the
 * count. */
int wasp_chain_expand(const wasp_rframe *marks, wasp_rframe *out, int cap, const char **end);

/* The context mode's metadata and the check's agreement. */
void wasp_chain_meta(wasp_profile *p);

#endif
