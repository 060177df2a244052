/*
 * HotSpot's lightweight locking (the default since JDK 23, an option since
 * 21) keeps the objects a thread has locked on a lock stack in its
 * JavaThread: compiled code checks it, pushes and pops it around the
 * compare-and-swap on the mark word. On x86-64 those instructions address it
 * from r15, the current JavaThread:
 *
 *   cmp  -0x8(%r15,%top,1),%obj    is obj on top? (enter: recursive; exit: ours)
 *   cmp  -0x10(%r15,%top,1),%obj   exit: held twice, once below the top
 *   mov  %obj,(%r15,%top,1)        enter: push
 *   addl $0x8,TOP(%r15)            enter: top up
 *   subl $0x8,TOP(%r15)            exit: top down
 *
 * The loads they wait for hold the thread up as the compare-and-swap does:
 * on an AMD EPYC guest, JDK 25, a third of the samples of a hot lock's
 * enter and exit landed after them (docs/locks.md, "The lock stack").
 *
 * ASYNC-SIGNAL-SAFE: pure decoding.
 */
#ifndef WASP_ANALYSIS_LOCKS_LOCK_STACK_H
#define WASP_ANALYSIS_LOCKS_LOCK_STACK_H

#include <stdint.h>

enum wasp_lock_stack_form {
    WASP_LOCK_STACK_NONE = 0,
    WASP_LOCK_STACK_CMP,  /* cmp disp(%r15,%idx,1),%reg: disp -8 or -16 */
    WASP_LOCK_STACK_PUSH, /* mov %reg,(%r15,%idx,1) */
    WASP_LOCK_STACK_UP,   /* addl $8,disp(%r15) */
    WASP_LOCK_STACK_DOWN, /* subl $8,disp(%r15) */
};

typedef struct wasp_lock_stack_op {
    int form;
    int reg;      /* CMP, PUSH: the object's register (hardware number) */
    int32_t disp; /* CMP: -8 or -16; UP, DOWN: the top's offset in the thread */
} wasp_lock_stack_op;

/* The lock-stack instruction that the len bytes at insn are, exactly
 * (op->form NONE when they are not one). */
void wasp_lock_stack_decode(const uint8_t *insn, unsigned len, wasp_lock_stack_op *op);

/* Whether the n code bytes after a CMP with disp -8 take the exit's path:
 * a `subl $8,TOP(%r15)` within them (the enter's path goes to the
 * compare-and-swap instead). Give it the next 16 bytes or so: the exit's
 * body, further on, pops too. */
int wasp_lock_stack_pops_next(const uint8_t *code, unsigned n);

#endif
