/*
 * CallerChaining contexts in the handler (Inoue & Nakatani, OOPSLA'09,
 * Section 6; docs/context-chain.md): a sample in a compiled method of known
 * frame size is described by its PC and its stack depth (the stack base
 * minus the address of its return address), with no stack walk; the
 * method's caller, read from the return address, goes into a per-thread
 * table of quadruples (caller, caller depth, callee, callee depth) from
 * which the dump builds the calling-context tree (watch/caller_cct.h) and
 * expands each sample.
 *
 * ASYNC-SIGNAL-SAFE: wasp_chain_capture and the check functions run in the
 * sampling handler of the thread they are given; the thread's tables are
 * allocated with it (wasp_chain_thread_new, outside handlers).
 */
#ifndef WASP_CALLER_CHAIN_H
#define WASP_CALLER_CHAIN_H

#include <stdint.h>
#include <ucontext.h>

#include "watch/records.h"

/* Context modes (wasp_session_get()->context). */
enum { WASP_CONTEXT_WALK = 0, WASP_CONTEXT_CHAIN = 1, WASP_CONTEXT_CHAIN_CHECK = 2 };

/* A chain context is two frames: {WASP_RFRAME_CHAIN, pc} then {nmethod id,
 * depth} (the depth in the method field). */
enum { WASP_RFRAME_CHAIN = INT32_MIN + 1 };

/* One caller-callee edge seen by a sample. caller_id 0: the return address
 * is in no compiled method (the interpreter, a stub, the VM's call stub);
 * caller_depth 0: the caller's frame size is unknown. */
typedef struct wasp_chain_quad {
    uint64_t ret_pc;
    uint32_t caller_id, callee_id;
    uint32_t caller_depth, callee_depth;
    uint64_t count; /* 0: empty slot */
} wasp_chain_quad;

/* A check-mode sample: its chain context and the trace AsyncGetCallTrace
 * gave for it (records trace id, 0: none). */
typedef struct wasp_chain_check {
    uint64_t pc;
    uint32_t id, depth;
    uint32_t trace;
} wasp_chain_check;

enum { WASP_CHAIN_QUADS = 4096, WASP_CHAIN_CHECKS = 2048 };

typedef struct wasp_chain_thread {
    wasp_chain_quad quads[WASP_CHAIN_QUADS]; /* open addressing */
    uint32_t nquads;
    uint32_t nchecks;
    uint32_t harvested;   /* taken by the dump (agent/chain_dump.h) */
    uint64_t checks_seen; /* check samples offered (checks keeps a uniform sample) */
    wasp_chain_check checks[WASP_CHAIN_CHECKS];
} wasp_chain_thread;

struct wasp_thread;

/* The chain context of the sample at pc (its instruction's bytes insn,
 * len of them; uc: the interrupted state) in frames[0..2), its quadruple
 * recorded. Returns 2, or 0 when the sample must be walked (its cause
 * counted). */
int wasp_chain_capture(struct wasp_thread *t, const ucontext_t *uc, uint64_t pc,
                       const uint8_t *insn, uint8_t len, wasp_rframe *frames);
/* Check mode keeps a uniform sample of WASP_CHAIN_CHECKS chain contexts per
 * thread with their walks: the slot for the next one, or -1 when it is not
 * kept (then it is not walked either). */
int wasp_chain_check_slot(struct wasp_thread *t);
/* Keeps the chain context frames (from wasp_chain_capture) with the walk's
 * trace in slot. */
void wasp_chain_check_set(struct wasp_thread *t, int slot, const wasp_rframe *frames,
                          uint32_t trace);

wasp_chain_thread *wasp_chain_thread_new(void);
void wasp_chain_thread_free(wasp_chain_thread *c);

#endif
