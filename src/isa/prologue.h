/*
 * The frame a HotSpot compiled method (C1 or C2, x86-64) builds, read from its
 * machine code: how big it is, where the return address lies relative to rsp
 * at each PC of the prologue, and the PCs where rsp is not the body's (pushes
 * and pops in the body, epilogues), where that relation does not hold.
 *
 * Why: CallerChaining (docs/context-chain.md) finds a sampled method's caller
 * from the return address, which a HotSpot compiled frame keeps at a fixed
 * offset from rsp, [rsp + frame_size - 8], once the prologue has run.
 *
 * Pure (Zydis decoding, no allocation): runs when a method is compiled, not
 * in a signal handler.
 */
#ifndef WASP_PROLOGUE_H
#define WASP_PROLOGUE_H

#include <stddef.h>
#include <stdint.h>

enum { WASP_PROLOGUE_STEPS = 4 };

typedef struct wasp_frame_shape {
    uint32_t frame_size;     /* bytes from the return address slot (included) to the body's rsp */
    uint32_t prologue_end;   /* offset of the first instruction after the prologue */
    uint32_t nsteps;
    /* From offset step_at[i] on (until the next step), the return address
     * lies at [rsp + step_ret[i]]; before step_at[0] at [rsp]. The last step
     * ends at prologue_end with step_ret = frame_size - 8. */
    uint32_t step_at[WASP_PROLOGUE_STEPS];
    uint32_t step_ret[WASP_PROLOGUE_STEPS];
} wasp_frame_shape;

/* Decodes the prologue of the code at code[0..n) (entry: the method's first
 * instruction, an inline-cache check before the verified entry is skipped).
 * Returns 0 with shape filled, -1 when the code has no prologue of a known
 * shape (stack bang `mov %eax,-N(%rsp)`, `push %rbp`, `mov %rsp,%rbp`,
 * `sub $N,%rsp`, `mov %rbp,N(%rsp)`). */
int wasp_prologue_decode(const uint8_t *code, size_t n, wasp_frame_shape *shape);

/* The ranges [start, end) of offsets after the prologue where rsp is not the
 * body's: from after an instruction that moves rsp (push, pop, sub, add)
 * until it is back, and from an epilogue's `add $N,%rsp` to its `ret` or
 * tail jump. Code that cannot be decoded is a range to the end. Writes at
 * most cap pairs (start, end) to ranges; returns their count, or -1 when
 * there are more than cap. */
int wasp_frame_unsafe_ranges(const uint8_t *code, size_t n, uint32_t from, uint32_t *ranges,
                             int cap);

/* Where the return address lies relative to rsp at offset off (< the end of
 * the range the shape covers), for offsets not in an unsafe range. */
static inline uint32_t wasp_frame_ret_offset(const wasp_frame_shape *s, uint32_t off)
{
    uint32_t ret = 0;
    for (uint32_t i = 0; i < s->nsteps; i++)
        if (off >= s->step_at[i])
            ret = s->step_ret[i];
    return off >= s->prologue_end ? s->frame_size - 8 : ret;
}

#endif
