/*
 * The interrupted thread's registers as a signal frame holds them: general
 * registers in uc_mcontext, xmm/ymm/zmm 0-15 in the FXSAVE/XSAVE area the
 * kernel wrote. Shared by the emulators (emulate.c, emulate_arith.c), which
 * change them on the thread's behalf.
 *
 * ASYNC-SIGNAL-SAFE: all but wasp_signal_regs_init, which runs once on an
 * ordinary thread.
 */
#ifndef WASP_SIGNAL_REGS_H
#define WASP_SIGNAL_REGS_H

#include <Zydis/Zydis.h>
#include <stdint.h>
#include <ucontext.h>

/* Learn the CPU's XSAVE layout (ymm/zmm upper halves). */
void wasp_signal_regs_init(void);

/* The gregs index of general register g (hardware encoding order). */
int wasp_greg_index(int g);

/* A general register as its encoding number 0-15 and width in bytes; -1 for
 * ah/bh/ch/dh and anything that is not a general register. */
int wasp_gpr(ZydisRegister r, int *width);

/* A vector register 0-15 as its number and width in bytes, or -1. */
int wasp_vreg(ZydisRegister r, int *width);

/* Write value into general register g with x86's rules for a `width`-byte
 * destination: 8/16-bit writes merge, 32-bit writes clear the top. */
void wasp_gpr_write(ucontext_t *uc, int g, int width, uint64_t value);

/* The bytes of vector register r, `width` (16, 32 or 64) of them, into out. */
int wasp_vector_bytes(const ucontext_t *uc, int r, int width, uint8_t *out);

/* Load n bytes (n <= width) into vector register r: the rest of the low 128
 * bits cleared; above them cleared for VEX/EVEX (vex), kept for legacy SSE. */
int wasp_vector_load(ucontext_t *uc, int r, int width, const uint8_t *src, int n, int vex);

/* The interrupted thread's MXCSR, and a place to write it back; NULL when the
 * frame has no FP state. */
uint32_t *wasp_signal_mxcsr(ucontext_t *uc);

#endif
