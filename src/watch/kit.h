/*
 * What an analysis may use inside the signal handler: the sample's view (the
 * registers and the code at the interrupted PC), the calling context of an
 * instruction, watchpoint slots, and safe reads of the program's memory.
 * The handler (handler.c) dispatches; analyses (src/analysis/) decide, with
 * these tools.
 *
 * ASYNC-SIGNAL-SAFE: every function here runs in the handler of the thread it
 * is given. None allocates, locks, or reads memory that may fault.
 */
#ifndef WASP_WATCH_KIT_H
#define WASP_WATCH_KIT_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "isa/isa.h"
#include "sample/source.h"
#include "watch/slots.h"
#include "watch/thread_state.h"

/* ---- the sample's view (sample_view.c) ---- */

enum { WASP_VIEW_BYTES = 128, WASP_VIEW_INSNS = 24 };

typedef struct wasp_sample_view {
    const wasp_address_sample *s;
    const ucontext_t *uc;
    wasp_regs regs;
    uint8_t code[WASP_VIEW_BYTES]; /* code from the sampled PC */
    size_t n;                      /* bytes of it readable */
} wasp_sample_view;

/* The sample s of thread t interrupted at uc (the view's registers know
 * t's JavaThread: not program data). */
void wasp_view_init(wasp_sample_view *v, const wasp_thread *t, const ucontext_t *uc,
                    const wasp_address_sample *s);
/* The access of a kind in `wanted` the sample names. Software samples: the
 * thread's next access of that kind, at the interrupted PC or a few
 * straight-line instructions later while its address can still be computed
 * from the registers now. PMU samples: the access they report (it already
 * ran). Returns 1 found, 0 none, -1 undecodable, 2 not program data. */
int wasp_view_find(const wasp_sample_view *v, int wanted, wasp_access *acc, uint64_t *at);
/* The access that just ran: an instruction ending at the interrupted PC with
 * a memory operand of a kind in `wanted` whose address its registers still
 * give (software samples only). Returns 1 with acc, *at and insn filled. */
int wasp_view_prev(const wasp_sample_view *v, int wanted, wasp_access *acc, uint64_t *at,
                   uint8_t *insn);
/* The bytes of the instruction wasp_view_find returned (acc->len of them at at). */
void wasp_view_insn(const wasp_sample_view *v, uint64_t at, uint8_t len, uint8_t *insn);
/* Counts a sample wasp_view_find's result rc (0, -1, 2) made useless. */
void wasp_view_count_miss(wasp_thread *t, int rc);

/* ---- calling contexts (context.c) ---- */

/* The Java frame the thread runs (AsyncGetCallTrace, one frame: its method
 * and bytecode index), for a sample in the interpreter, where it is the
 * method being interpreted, or in the runtime it called, where it is the
 * method that made the call (the frame anchor's pc filled in when HotSpot
 * has not yet): 1 with *out, else 0. */
int wasp_top_java_frame(wasp_thread *t, const ucontext_t *uc, wasp_rframe *out);

/* t->jni_env of a thread that ran before the agent attached (adopted
 * without one): asked of the JVM. The handler asks at every sample until it
 * has it (TLAB reads and the frame anchor need it), and a stack walk asks
 * too: the page engine's faults can come before a thread's first sample. */
void wasp_thread_find_env(wasp_thread *t);

/* The records' context id of the instruction at pc (its bytes insn, insn_len
 * of them), walking the Java stack described by uc. */
uint32_t wasp_capture_context(wasp_thread *t, const ucontext_t *uc, uint64_t pc,
                              const uint8_t *insn, uint8_t insn_len);

/* ---- watchpoints (watch_kit.c) ---- */

/* A watchpoint owned by analysis `owner` on [addr, addr+len): the slot the
 * reservoir picks, armed. Returns the slot with its watch state cleared, for
 * the caller to fill; NULL with the reason counted (budget spent, reservoir
 * kept older watches, not watchable, arming failed). */
wasp_slot *wasp_watch_claim(wasp_thread *t, int owner, uint64_t addr, int len, int loads_too);
/* A window watch (handler.h, wasp_window_access): [addr, addr+len) watched
 * for analysis `owner` in one of t's window slots, when t has a pending
 * watch of that analysis on the same page, no watch on those bytes, and a
 * window slot is free. It carries no reservoir weight: the analysis shares
 * the sample's among the watches it started (a page watched for longer
 * gives more pairs, not more weight). NULL: none. */
wasp_slot *wasp_watch_claim_window(wasp_thread *t, int owner, uint64_t addr, int len,
                                   int loads_too);
/* A hold: a window slot that watches no bytes of addr's page but keeps it
 * watched (the page engine keeps it closed), for analysis `owner`, beside a
 * watch of that analysis there. Only engines with window slots have holds.
 * NULL: none (no window slot free, the budget spent, or arming failed). */
wasp_slot *wasp_watch_claim_hold(wasp_thread *t, int owner, uint64_t addr, int loads_too);
/* Watch i, of the same owner, moved to [addr, addr+len) at once (one engine
 * call, no reservoir offer: the same sample goes on). NULL when the budget
 * is spent or the engine refused: the watch is then dropped. */
wasp_slot *wasp_watch_move(wasp_thread *t, int i, uint64_t addr, int len, int loads_too);
/* Ends watch i for a reason (a counter, or WASP_C_COUNT for none). */
void wasp_watch_drop(wasp_thread *t, int i, wasp_counter_id reason);
/* Counts watch i as dropped for reason (a counter; out of range: none): a
 * window watch as armed.window.dropped whatever the reason, since it stands
 * for no sample of its own and the dropped.* counters count samples' watches;
 * a hold not at all. */
void wasp_watch_count_drop(wasp_thread *t, int i, int reason);
/* Ends watch i, judged: disarms it and returns its reservoir weight. */
double wasp_watch_done(wasp_thread *t, int i);
/* Watchpoints never outlive a GC epoch (JXPerf Sec. 5.3): drops them all
 * when the epoch moved. Returns 1 when it did. */
int wasp_watch_epoch_check(wasp_thread *t);
/* The instruction that touched the slot's bytes and trapped at trap_pc:
 * the one ending there (decoded backwards, cached per thread), or a
 * repeated string instruction still running there (acc.in_progress; its
 * start is then trap_pc itself). 1 with acc and insn filled; -1 when a
 * repeated string instruction at trap_pc has not reached the bytes yet
 * (not this trap: its later one will be); 0 when nothing decodes. */
int wasp_watch_trap_insn(wasp_thread *t, const wasp_slot *slot, uint64_t trap_pc,
                         const wasp_regs *regs, wasp_access *acc, uint8_t *insn);
/* The context of the access that trapped at uc's PC (its own instruction
 * when it can be decoded, else the PC alone). */
uint32_t wasp_watch_trap_context(wasp_thread *t, const wasp_slot *slot, const ucontext_t *uc);
/* Where the instruction wasp_watch_trap_insn found starts. */
uint64_t wasp_watch_trap_insn_pc(uint64_t trap_pc, const wasp_access *acc);

/* 1 when the chosen engine watches only the Java heap (engine.h,
 * set_heap): its events come out of its own CPU budget, and memory outside
 * the heap, such as a thread's JavaThread, cannot be watched. */
int wasp_watch_heap_only(void);

/* The 4 KiB page addr is on (what the page engine protects, a window reaches). */
uint64_t wasp_watch_page_of(uint64_t addr);

/* len bytes at addr (program memory, read safely); *ok = 0 when unreadable. */
uint64_t wasp_read_value(uint64_t addr, int len, int *ok);

#endif
