/*
 * One decoded x86-64 instruction, reduced to what the access analyses use:
 * its length, its explicit data-memory operand (how to compute the address,
 * width, load/store), the registers it writes, whether control may leave
 * straight-line code after it, and the value a plain store writes.
 *
 * Decoding is a pure function of the bytes, so results are memoized (memo.h):
 * a cold Zydis decode costs ~4000 cycles in the handler (its tables are out of
 * cache after a millisecond of Java code), and a sample decodes up to ~40
 * windows (the backward search tries every length ending at the PC, the
 * forward scan walks up to 24 instructions).
 *
 * ASYNC-SIGNAL-SAFE: everything declared here runs inside the signal handlers.
 * Internal to src/isa; other code uses isa.h.
 */
#ifndef WASP_ISA_INSN_H
#define WASP_ISA_INSN_H

#include <stddef.h>
#include <stdint.h>

#include "isa/memo.h"

enum wasp_insn_flag {
    WASP_INSN_VALID = 1,    /* the bytes decode */
    WASP_INSN_MEM = 2,      /* has an explicit data-memory operand we can compute */
    WASP_INSN_TRANSFER = 4, /* the next instruction in memory may not run next */
    WASP_INSN_ODD = 8,      /* never a heap access of compiled code (odd_access) */
    WASP_INSN_ADDR32 = 16,  /* 0x67 prefix: the address wraps at 4 GiB */
    WASP_INSN_ATOMIC = 32,  /* a locked read-modify-write (lock prefix, or xchg with memory) */
    WASP_INSN_CMPXCHG = 64, /* cmpxchg: compare-and-swap */
    WASP_INSN_REP = 128,    /* rep stos: rcx more elements from the address on */
};

/* Register operands of the address: a wasp_regs.gpr index, this for RIP, or -1. */
enum { WASP_INSN_RIP = 16 };

typedef struct wasp_insn {
    int64_t disp;         /* memory operand displacement */
    uint64_t imm;         /* the immediate a `mov` store writes (src_imm) */
    uint16_t size;        /* memory operand bytes */
    uint16_t writes;      /* GPRs written unconditionally (bit = wasp_regs index) */
    uint16_t cond_writes; /* GPRs maybe written (cmov, cmpxchg) */
    uint8_t length;
    uint8_t flags;        /* wasp_insn_flag */
    int8_t base;          /* address base: gpr index, WASP_INSN_RIP or -1 */
    int8_t index;         /* address index: gpr index or -1 */
    uint8_t scale;        /* 1, 2, 4, 8 */
    uint8_t kind;         /* WASP_ACCESS_LOAD | WASP_ACCESS_STORE */
    uint8_t float_size;   /* 4 or 8 when the operand holds float/double */
    int8_t src_reg;       /* the register a `mov` store writes from, or -1 */
    uint8_t src_imm;      /* 1: a `mov` store of the immediate imm */
    uint8_t string;       /* wasp_insn_string: a stos or movs, rep or not */
} wasp_insn;

/* The string moves a watch can see trap (memset's and memcpy's `rep stosb`
 * and `rep movsb`, the JVM's clearing loops): their element size is `size`,
 * their flags carry WASP_INSN_REP when repeated. */
enum wasp_insn_string { WASP_STRING_NONE, WASP_STRING_STOS, WASP_STRING_MOVS };

/* Decode the instruction at the start of bytes[0..n) (n is clamped to 15):
 * 0 with *out filled, -1 when the bytes do not decode (out->flags is then 0).
 * Memoized; same answer as wasp_insn_decode_direct. */
int wasp_insn_decode(const uint8_t *bytes, size_t n, wasp_insn *out);

/* The same, always through Zydis (the memo's miss path, and for tests). */
int wasp_insn_decode_direct(const uint8_t *bytes, size_t n, wasp_insn *out);

/* Whether bytes[0..n) are exactly one instruction (n <= 15): 0 with *out
 * filled, else -1. Not memoized (callers remember what they conclude). */
int wasp_insn_decode_exact(const uint8_t *bytes, size_t n, wasp_insn *out);

/* The length of the instruction at the start of bytes[0..n) (n clamped to
 * 15), or -1 when the bytes do not decode: what wasp_insn_decode says of
 * them, for callers that need no more (the backward search's
 * synchronisation). A memo hit answers; a miss decodes the instruction
 * without its operands (a third less than the whole decode, measured) and
 * is not remembered: most such windows are code no one samples again. */
int wasp_insn_length(const uint8_t *bytes, size_t n);

/* The table behind wasp_insn_decode. */
extern const wasp_memo wasp_insn_memo;

#endif
