/*
 * Emulating arithmetic with one memory operand (see emulate_arith.c).
 * ASYNC-SIGNAL-SAFE.
 */
#ifndef WASP_EMULATE_ARITH_H
#define WASP_EMULATE_ARITH_H

#include <Zydis/Zydis.h>
#include <stdint.h>
#include <ucontext.h>

#include "isa/isa.h"

/* Do insn (decoded, operands ops, memory operand ops[m] at ea) on the
 * registers in uc, its memory access through mem, when it is a form
 * emulated here; leaves RIP alone. Returns 1 when done, 0 when not such a
 * form (nothing changed), -1 when the memory access failed. The caller sees
 * to it that no other thread can reach the memory meanwhile: a
 * read-modify-write here is not atomic. */
int wasp_emulate_arith(ucontext_t *uc, const ZydisDecodedInstruction *insn,
                       const ZydisDecodedOperand *ops, int m, uint64_t ea,
                       const wasp_emulated_memory *mem);

#endif
