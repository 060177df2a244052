/*
 * Installing the SIGTRAP handler (handler.c) that serves every wasp perf event.
 */
#ifndef WASP_HANDLER_H
#define WASP_HANDLER_H

#include <stdint.h>

#include "isa/isa.h"
#include "watch/thread_state.h"

/* Install once; the handler stays (inert when sampling is off) so a late
 * signal never meets the default action, which would kill the JVM. */
int wasp_handler_install(void);

/* The analyses the handler serves (a bit per analysis id): their handler
 * parts' enable hooks run, and their sample, object and trap hooks are set.
 * Call before sampling starts. */
void wasp_handler_enable(uint32_t enabled);

/* An access of thread t that an engine saw whole, on a page where t has a
 * watch (the page engine's faults): the instruction at pc (insn, acc.len
 * bytes of it) made access acc, and has run (the context's PC is past it).
 * hit: it touched t's watched bytes, whose traps were delivered first. */
typedef struct wasp_window_access {
    uint64_t pc;
    wasp_access acc;
    uint8_t insn[WASP_MAX_INSN];
    uint8_t hit;
} wasp_window_access;

/* An access of t, on t's own thread, that an engine finding hits itself
 * (the page engine) saw on a page where t has a watch, has run (the
 * context's PC past it): it is the trap of each of the n watches in slots
 * it touched, as debug registers would each trap, then, when the engine
 * decoded it whole (a not NULL), a window access, which the analyses may
 * watch at no extra cost to the engine (wasp_watch_claim_window). One
 * handler entry: the access's context is taken once. ASYNC-SIGNAL-SAFE. */
void wasp_handler_access(wasp_thread *t, const uint16_t *slots, int n, void *ucontext,
                         const wasp_window_access *a);

/* An engine gave up t's watch in `slot`: the slot is free, counted under
 * reason (a wasp_counter_id). Call only on t's own thread with the engine's
 * watch already gone. Returns -1 when t's handler is running (the slot is
 * left as it is). ASYNC-SIGNAL-SAFE. */
int wasp_handler_slot_lost(wasp_thread *t, int slot, int reason);

/* The page engine returns thread t (its own thread) to the program at pc
 * after handling a fault: a sample signal held back meanwhile arrives right
 * there, and is counted as wasp's, not the program's. ASYNC-SIGNAL-SAFE. */
void wasp_mark_wasp_exit(wasp_thread *t, uint64_t pc);

/* Start-up proofs: signals of kind WASP_EV_* received for WASP_PROBE_INDEX. */
uint32_t wasp_handler_probe_count(int kind);
/* The calling thread (t, its own state; NULL is ignored) allocated the
 * tracked object b: the enabled analyses' on_birth run, with this thread's
 * signal handler held off. Called from the allocation event, not from a
 * signal handler. */
struct wasp_birth;
void wasp_handler_object_born(wasp_thread *t, const struct wasp_birth *b);

/* Disarm every slot of t, counting armed ones as unfinished. Call with t's
 * signals quiet (t inactive, or from t itself with sampling off). */
void wasp_thread_release_slots(wasp_thread *t);

#endif
