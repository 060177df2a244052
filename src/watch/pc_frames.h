/*
 * A compiled method's debug information as JVMTI's CompiledMethodLoad gives
 * it (PCStackInfo): for each PC with a record, the Java frames there, the
 * innermost (inlined) first. Used by CallerChaining's dump
 * (agent/chain_dump.h) and the CPU samples by line (agent/cpu_lines_dump.c)
 * to turn a PC into frames.
 *
 * Pure lookups over arrays its owner (agent/code_map_load.c) filled; not
 * for signal handlers (nothing here needs one, nothing forbids it either).
 */
#ifndef WASP_PC_FRAMES_H
#define WASP_PC_FRAMES_H

#include <stdint.h>

#include "watch/records.h"

typedef struct wasp_pc_frames {
    uint32_t npcs;
    const uint64_t *pcs;     /* sorted ascending */
    const uint32_t *first;   /* per pc: index of its first frame in frames */
    const uint16_t *nframes; /* per pc */
    const wasp_rframe *frames;
    /* The code past the last record (issue 40: C2's out-of-line stubs,
     * e.g. G1's write-barrier slow paths, the safepoint poll's, the
     * exception and deopt handlers), as ntail ranges from pcs[npcs - 1]
     * on, the i-th ending (exclusive) at tail_end[i]; tail_to[i] is where
     * it jumps back into the body, 0 when it does not (wasp_pc_frames_tail). */
    uint32_t ntail;
    const uint64_t *tail_end;
    const uint64_t *tail_to;
    void *root; /* the compiled method (jmethodID); NULL: none given */
} wasp_pc_frames;

/* The frames of the first record whose PC is above `after`, at most cap into
 * out (leaf first). Returns their count, 0 when no record lies above.
 *
 * Why "above": a record describes the state after the instruction that ends
 * at its PC. A sampled instruction at pc is described by the first record
 * after it (lookup with after = pc, as AsyncGetCallTrace does); a call site
 * by the record at its return address ret (after = ret - 1).
 *
 * Past the last record: a range of the tail that jumps back to the body at
 * `to` runs in place of the code just before `to` (a stub is the slow path
 * of the instruction that branched to it), so it is described as a sample
 * at to - 1; other code there (no way back, or past the last range) is the
 * root method's at no line (bci -1) when root is given, as is all the code
 * of a method without records (a native method's wrapper). */
int wasp_pc_frames_at(const wasp_pc_frames *d, uint64_t after, wasp_rframe *out, int cap);

/* The frames of the first record above `after` whose innermost frame has a
 * position (bci >= 0), at most cap into out (leaf first); 0 when none. Where
 * a call's own record has no scope (JDK 25's return poll after a leaf
 * call), the next one with a position stands for it. No tail, no root. */
int wasp_pc_frames_placed(const wasp_pc_frames *d, uint64_t after, wasp_rframe *out, int cap);

/* Splits code [from, end) (the method's bytes, code[0] at base; from: its
 * last record's PC) into the ranges wasp_pc_frames_at reads: each ends with
 * a jump, into the body [base, from] (tail_to: its target) or out of the
 * method, or with a ret (tail_to 0). At most cap; returns their count (the
 * code after the last range, or after bytes that do not decode, has none). */
uint32_t wasp_pc_frames_tail(const uint8_t *code, uint64_t base, uint64_t end, uint64_t from,
                             uint64_t *tail_end, uint64_t *tail_to, uint32_t cap);

/* A compiled method's code, for the dump to tell which method a sample
 * taken before the method was published fell in (watch/pc_hist.h). */
typedef struct wasp_code_range {
    uint64_t start, end;
    uint32_t id;
} wasp_code_range;

/* Sorts n ranges by start, and sets reach[i] to the highest end of
 * r[0..i] (the lookup's bound on how far back a holder may start). */
void wasp_code_ranges_sort(wasp_code_range *r, uint64_t *reach, uint32_t n);
/* The id of the one range holding pc; 0 when none does, or several (an
 * address reused since the last dump: which held it then is not known). */
uint32_t wasp_code_ranges_holder(const wasp_code_range *r, const uint64_t *reach, uint32_t n,
                                 uint64_t pc);

#endif
