/*
 * What the locks analysis keeps per thread: lock samples by (class of the
 * locked object, calling context, kind). A kind is an acquiring or releasing
 * compare-and-swap on an object's mark word in generated code, or a sample
 * in one of the runtime's monitor-enter slow paths (WASP_LOCK_SLOW + the
 * function's index in the slow-path table; klass that of the object being
 * entered, or 0 when not found: handler.c). The agent part finds
 * the slow-path functions in libjvm before sampling starts and names the
 * classes when the run stops (agent.c).
 *
 * ASYNC-SIGNAL-SAFE: the table is filled by the SIGTRAP handler of its own
 * thread and read by the dump after sampling stopped; the slow-path table is
 * written before sampling starts and only read while it runs.
 */
#ifndef WASP_ANALYSIS_LOCKS_RECORDS_H
#define WASP_ANALYSIS_LOCKS_RECORDS_H

#include <stdint.h>

enum {
    WASP_LOCK_SLOTS = 2048,   /* per thread; a power of two */
    WASP_LOCK_FUNCS = 64,     /* slow-path functions at most */
    WASP_LOCK_ACQUIRE = 0,    /* kinds */
    WASP_LOCK_RELEASE = 1,
    WASP_LOCK_SLOW = 2,       /* + the function's index */
};

typedef struct wasp_lock_rec {
    uint64_t klass;   /* Klass* of the locked object; 0: not known (slow paths) */
    uint32_t ctx;     /* the thread's records' context id + 1; 0 = empty slot */
    uint32_t kind;    /* WASP_LOCK_ACQUIRE, _RELEASE, or _SLOW + function */
    double samples;   /* weighted: the CPU time each stood for, in periods asked for
                       * (watch/sampler_period.h), so a thread whose period backoff
                       * raised counts its time in full */
} wasp_lock_rec;

typedef struct wasp_lock_thread {
    wasp_lock_rec recs[WASP_LOCK_SLOTS];
} wasp_lock_thread;

/* The runtime's code: libjvm's text [jvm_lo, jvm_hi) and, in it, the
 * monitor-enter slow paths [lo[i], hi[i]) sorted by address; and where a
 * JavaThread keeps the monitor it is entering (JavaThread::
 * _current_pending_monitor, from VMStructs; 0: not known), set once the
 * runtime's first spin failed and until it owns it. */
typedef struct wasp_lock_code {
    uint64_t jvm_lo, jvm_hi;
    uint64_t lo[WASP_LOCK_FUNCS], hi[WASP_LOCK_FUNCS];
    uint32_t n;
    uint64_t pending_monitor_offset;
} wasp_lock_code;

extern wasp_lock_code wasp_lock_code_ranges;

/* The index of the slow-path range holding pc, or -1. Async-signal-safe. */
int wasp_lock_slow_function(const wasp_lock_code *c, uint64_t pc);

/* The kind of a compare-and-swap on a mark word that writes `written`:
 * stack locking (JDK <= 22) writes the address of a lock record on the
 * stack, lightweight locking the mark with its lock bits cleared — both with
 * lock bits 00 (0 itself: the lightweight-locked mark of an object with no
 * hash code and age 0); unlocking writes back a mark with the unlocked bits
 * 01. WASP_LOCK_ACQUIRE, WASP_LOCK_RELEASE, or -1 (a monitor installed). */
int wasp_lock_cas_kind(uint64_t written);
/* The kind of the compare-and-swap about to run on a mark word that holds
 * mark now: unlocked (01) it locks, locked (00: a lock record's address or
 * a lightweight-locked mark, 0 included) it unlocks; -1 for a monitor. */
int wasp_lock_mark_kind(uint64_t mark);

/* The general register (hardware number) a 64-bit `lock cmpxchg` of len
 * bytes writes from, -1 when the bytes are not one. */
int wasp_lock_cas_source(const uint8_t *insn, unsigned len);

#endif
