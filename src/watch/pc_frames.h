/*
 * A compiled method's debug information as JVMTI's CompiledMethodLoad gives
 * it (PCStackInfo): for each PC with a record, the Java frames there, the
 * innermost (inlined) first. Used by CallerChaining's dump
 * (agent/chain_dump.h) to turn a PC into frames.
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
} wasp_pc_frames;

/* The frames of the first record whose PC is above `after`, at most cap into
 * out (leaf first). Returns their count, 0 when no record lies above.
 *
 * Why "above": a record describes the state after the instruction that ends
 * at its PC. A sampled instruction at pc is described by the first record
 * after it (lookup with after = pc, as AsyncGetCallTrace does); a call site
 * by the record at its return address ret (after = ret - 1). */
int wasp_pc_frames_at(const wasp_pc_frames *d, uint64_t after, wasp_rframe *out, int cap);

#endif
