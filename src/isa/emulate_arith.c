/*
 * Emulating integer and scalar floating-point arithmetic with a memory
 * operand, for the page watchpoint engine (emulate.c decodes and dispatches
 * here). Java's compiled code does much of its memory access this way: a
 * `vaddsd 0x10(%rdx,%r8,8), %xmm5, %xmm5` in a loop over a double[], an
 * `add %r10, 0x10(%r11)` incrementing a field, a `cmp 0xc(%rsi), %eax`.
 * Stepping one costs two mprotect calls and a second signal; emulating it one
 * read (and one write) through /proc/self/mem.
 *
 * The operation itself is done by the same instruction on registers, here:
 * its flags are the CPU's own, undefined ones included, and a floating-point
 * result is the CPU's under the interrupted thread's MXCSR (rounding mode,
 * flush-to-zero), whose exception flags it then carries. Forms:
 *  - add, or, adc, sbb, and, sub, xor, cmp, test between a general register
 *    or an immediate and memory, either way round; inc, dec, neg, not of
 *    memory (1, 2, 4 or 8 bytes; no lock prefix); imul of a register by
 *    memory (two operands);
 *  - addsd/ss, subsd/ss, mulsd/ss, divsd/ss, minsd/ss, maxsd/ss with a memory
 *    source, legacy SSE (bits 64 or 32 and up of the destination kept) and
 *    VEX three-operand (the upper half from the first source, bits 128 and up
 *    cleared); ucomisd/ss and comisd/ss, legacy and VEX.
 * Anything else (EVEX, masked, locked, unmasked floating-point exceptions)
 * is refused and stepped by the caller.
 *
 * ASYNC-SIGNAL-SAFE: one read (and write) through the caller's memory,
 * registers only, no locks.
 */
#include <string.h>
#include <unistd.h>

#include "isa/emulate_arith.h"
#include "isa/signal_regs.h"

enum {
    ARITH_FLAGS = 0x8d5,   /* OF SF ZF AF PF CF */
    MXCSR_MASKS = 0x1f80,  /* every floating-point exception masked */
};

/* ---- integer --------------------------------------------------------------- */

/* The flags in, the operation, the flags out. Below the red zone: the
 * compiler may keep locals there, and pushfq writes under rsp. Register
 * operands only, as rsp moves meanwhile. */
#define FLAGS_IN                                                                                   \
    "lea -128(%%rsp), %%rsp\n\tpushfq\n\tandq $-2262, (%%rsp)\n\torq %[fl], (%%rsp)\n\tpopfq\n\t"
#define FLAGS_OUT "\n\tpushfq\n\tpopq %[fl]\n\tlea 128(%%rsp), %%rsp"

#define BINARY(insn, a, b, fl, bytes)                                                              \
    switch (bytes) {                                                                               \
    case 1:                                                                                        \
        __asm__(FLAGS_IN insn "b %b[b], %b[a]" FLAGS_OUT : [a] "+r"(a), [fl] "+r"(fl) : [b] "r"(b)); \
        break;                                                                                     \
    case 2:                                                                                        \
        __asm__(FLAGS_IN insn "w %w[b], %w[a]" FLAGS_OUT : [a] "+r"(a), [fl] "+r"(fl) : [b] "r"(b)); \
        break;                                                                                     \
    case 4:                                                                                        \
        __asm__(FLAGS_IN insn "l %k[b], %k[a]" FLAGS_OUT : [a] "+r"(a), [fl] "+r"(fl) : [b] "r"(b)); \
        break;                                                                                     \
    default:                                                                                       \
        __asm__(FLAGS_IN insn "q %q[b], %q[a]" FLAGS_OUT : [a] "+r"(a), [fl] "+r"(fl) : [b] "r"(b)); \
    }

/* imul has no byte form with two operands. */
#define MULTIPLY(a, b, fl, bytes)                                                                  \
    switch (bytes) {                                                                               \
    case 2:                                                                                        \
        __asm__(FLAGS_IN "imulw %w[b], %w[a]" FLAGS_OUT : [a] "+r"(a), [fl] "+r"(fl) : [b] "r"(b)); \
        break;                                                                                     \
    case 4:                                                                                        \
        __asm__(FLAGS_IN "imull %k[b], %k[a]" FLAGS_OUT : [a] "+r"(a), [fl] "+r"(fl) : [b] "r"(b)); \
        break;                                                                                     \
    case 8:                                                                                        \
        __asm__(FLAGS_IN "imulq %q[b], %q[a]" FLAGS_OUT : [a] "+r"(a), [fl] "+r"(fl) : [b] "r"(b)); \
        break;                                                                                     \
    default:                                                                                       \
        return -1;                                                                                 \
    }

#define UNARY(insn, a, fl, bytes)                                                                  \
    switch (bytes) {                                                                               \
    case 1: __asm__(FLAGS_IN insn "b %b[a]" FLAGS_OUT : [a] "+r"(a), [fl] "+r"(fl)); break;         \
    case 2: __asm__(FLAGS_IN insn "w %w[a]" FLAGS_OUT : [a] "+r"(a), [fl] "+r"(fl)); break;         \
    case 4: __asm__(FLAGS_IN insn "l %k[a]" FLAGS_OUT : [a] "+r"(a), [fl] "+r"(fl)); break;         \
    default: __asm__(FLAGS_IN insn "q %q[a]" FLAGS_OUT : [a] "+r"(a), [fl] "+r"(fl));               \
    }

/* a = a OP b (Intel order: a the first operand), fl the flags in and out.
 * Returns 1 when OP writes a, 0 when only the flags, -1 when not an
 * operation done here. */
static int integer_op(ZydisMnemonic mn, uint64_t *a_io, uint64_t b, uint64_t *fl_io, int bytes)
{
    uint64_t a = *a_io, fl = *fl_io & ARITH_FLAGS;
    int writes = 1;
    switch (mn) {
    case ZYDIS_MNEMONIC_ADD: BINARY("add", a, b, fl, bytes); break;
    case ZYDIS_MNEMONIC_OR: BINARY("or", a, b, fl, bytes); break;
    case ZYDIS_MNEMONIC_ADC: BINARY("adc", a, b, fl, bytes); break;
    case ZYDIS_MNEMONIC_SBB: BINARY("sbb", a, b, fl, bytes); break;
    case ZYDIS_MNEMONIC_AND: BINARY("and", a, b, fl, bytes); break;
    case ZYDIS_MNEMONIC_SUB: BINARY("sub", a, b, fl, bytes); break;
    case ZYDIS_MNEMONIC_XOR: BINARY("xor", a, b, fl, bytes); break;
    case ZYDIS_MNEMONIC_CMP: BINARY("cmp", a, b, fl, bytes); writes = 0; break;
    case ZYDIS_MNEMONIC_TEST: BINARY("test", a, b, fl, bytes); writes = 0; break;
    case ZYDIS_MNEMONIC_IMUL: MULTIPLY(a, b, fl, bytes); break;
    case ZYDIS_MNEMONIC_INC: UNARY("inc", a, fl, bytes); break;
    case ZYDIS_MNEMONIC_DEC: UNARY("dec", a, fl, bytes); break;
    case ZYDIS_MNEMONIC_NEG: UNARY("neg", a, fl, bytes); break;
    case ZYDIS_MNEMONIC_NOT: UNARY("not", a, fl, bytes); break;
    default: return -1;
    }
    *a_io = a;
    *fl_io = fl;
    return writes;
}

/* 1: a unary operation of integer_op's, 2: a binary one, 0: neither. */
static int integer_operands(ZydisMnemonic mn)
{
    switch (mn) {
    case ZYDIS_MNEMONIC_INC: case ZYDIS_MNEMONIC_DEC: case ZYDIS_MNEMONIC_NEG:
    case ZYDIS_MNEMONIC_NOT:
        return 1;
    case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_OR: case ZYDIS_MNEMONIC_ADC:
    case ZYDIS_MNEMONIC_SBB: case ZYDIS_MNEMONIC_AND: case ZYDIS_MNEMONIC_SUB:
    case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_CMP: case ZYDIS_MNEMONIC_TEST:
    case ZYDIS_MNEMONIC_IMUL: /* the two-operand form: a register times memory */
        return 2;
    default:
        return 0;
    }
}

static void set_flags(ucontext_t *uc, uint64_t fl)
{
    uint64_t old = (uint64_t)uc->uc_mcontext.gregs[REG_EFL];
    uc->uc_mcontext.gregs[REG_EFL] = (greg_t)((old & ~(uint64_t)ARITH_FLAGS) | (fl & ARITH_FLAGS));
}

static int emulate_integer(ucontext_t *uc, const ZydisDecodedInstruction *insn,
                           const ZydisDecodedOperand *ops, int m, uint64_t ea,
                           const wasp_emulated_memory *memory)
{
    int bytes = ops[m].size / 8, w, g = -1;
    int operands = integer_operands(insn->mnemonic);
    if (!operands || (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) ||
        insn->operand_count_visible != operands)
        return 0;
    uint64_t other = 0;
    if (operands == 2) {
        const ZydisDecodedOperand *o = &ops[1 - m];
        if (insn->mnemonic == ZYDIS_MNEMONIC_IMUL && m == 0)
            return 0;
        if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && m == 0) {
            other = (uint64_t)o->imm.value.s;
        } else if (o->type == ZYDIS_OPERAND_TYPE_REGISTER) {
            g = wasp_gpr(o->reg.value, &w);
            if (g < 0 || w != bytes)
                return 0;
            other = (uint64_t)uc->uc_mcontext.gregs[wasp_greg_index(g)];
        } else {
            return 0;
        }
    }
    uint64_t mem = 0;
    if (memory->read(memory->ctx, ea, &mem, (size_t)bytes) != bytes)
        return -1;
    uint64_t a = m == 0 ? mem : other, b = m == 0 ? other : mem;
    uint64_t fl = (uint64_t)uc->uc_mcontext.gregs[REG_EFL];
    int writes = integer_op(insn->mnemonic, &a, b, &fl, bytes);
    if (writes < 0)
        return 0;
    if (writes && m == 0 && memory->write(memory->ctx, ea, &a, (size_t)bytes) != bytes)
        return -1;
    if (writes && m != 0)
        wasp_gpr_write(uc, g, bytes, a);
    set_flags(uc, fl);
    return 1;
}

/* ---- scalar floating point ------------------------------------------------- */

typedef double v2df __attribute__((vector_size(16)));

/* The operation under the thread's MXCSR, which then carries its flags. */
#define FP_OP(insn, x, memv, user, out)                                                            \
    do {                                                                                           \
        uint32_t saved_;                                                                           \
        __asm__ volatile("stmxcsr %[saved]\n\tldmxcsr %[u]\n\t" insn " %[m], %[x]\n\t"            \
                         "stmxcsr %[o]\n\tldmxcsr %[saved]"                                        \
                         : [x] "+x"(x), [saved] "=m"(saved_), [o] "=m"(out)                       \
                         : [u] "m"(user), [m] "m"(memv));                                          \
    } while (0)

#define FP_CMP(insn, x, memv, user, out, z, p, c)                                                  \
    do {                                                                                           \
        uint32_t saved_;                                                                           \
        __asm__ volatile("stmxcsr %[saved]\n\tldmxcsr %[u]\n\t" insn " %[m], %[x]\n\t"            \
                         "setz %[z]\n\tsetp %[p]\n\tsetc %[c]\n\t"                                 \
                         "stmxcsr %[o]\n\tldmxcsr %[saved]"                                        \
                         : [saved] "=m"(saved_), [o] "=m"(out), [z] "=q"(z), [p] "=q"(p),          \
                           [c] "=q"(c)                                                             \
                         : [x] "x"(x), [u] "m"(user), [m] "m"(memv)                                \
                         : "cc");                                                                  \
    } while (0)

typedef enum { FP_ARITH, FP_COMPARE } fp_kind;

/* Each scalar form: its legacy mnemonic (which does the VEX one's operation
 * on a copy of the first source), its VEX twin, its operand, its kind. */
static const struct fp_form {
    ZydisMnemonic legacy, vex;
    uint8_t is_double;
    fp_kind kind;
} fp_forms[] = {
    {ZYDIS_MNEMONIC_ADDSD, ZYDIS_MNEMONIC_VADDSD, 1, FP_ARITH},
    {ZYDIS_MNEMONIC_SUBSD, ZYDIS_MNEMONIC_VSUBSD, 1, FP_ARITH},
    {ZYDIS_MNEMONIC_MULSD, ZYDIS_MNEMONIC_VMULSD, 1, FP_ARITH},
    {ZYDIS_MNEMONIC_DIVSD, ZYDIS_MNEMONIC_VDIVSD, 1, FP_ARITH},
    {ZYDIS_MNEMONIC_MINSD, ZYDIS_MNEMONIC_VMINSD, 1, FP_ARITH},
    {ZYDIS_MNEMONIC_MAXSD, ZYDIS_MNEMONIC_VMAXSD, 1, FP_ARITH},
    {ZYDIS_MNEMONIC_UCOMISD, ZYDIS_MNEMONIC_VUCOMISD, 1, FP_COMPARE},
    {ZYDIS_MNEMONIC_COMISD, ZYDIS_MNEMONIC_VCOMISD, 1, FP_COMPARE},
    {ZYDIS_MNEMONIC_ADDSS, ZYDIS_MNEMONIC_VADDSS, 0, FP_ARITH},
    {ZYDIS_MNEMONIC_SUBSS, ZYDIS_MNEMONIC_VSUBSS, 0, FP_ARITH},
    {ZYDIS_MNEMONIC_MULSS, ZYDIS_MNEMONIC_VMULSS, 0, FP_ARITH},
    {ZYDIS_MNEMONIC_DIVSS, ZYDIS_MNEMONIC_VDIVSS, 0, FP_ARITH},
    {ZYDIS_MNEMONIC_MINSS, ZYDIS_MNEMONIC_VMINSS, 0, FP_ARITH},
    {ZYDIS_MNEMONIC_MAXSS, ZYDIS_MNEMONIC_VMAXSS, 0, FP_ARITH},
    {ZYDIS_MNEMONIC_UCOMISS, ZYDIS_MNEMONIC_VUCOMISS, 0, FP_COMPARE},
    {ZYDIS_MNEMONIC_COMISS, ZYDIS_MNEMONIC_VCOMISS, 0, FP_COMPARE},
};

static const struct fp_form *fp_form_of(ZydisMnemonic mn)
{
    for (size_t i = 0; i < sizeof fp_forms / sizeof fp_forms[0]; i++)
        if (fp_forms[i].legacy == mn || fp_forms[i].vex == mn)
            return &fp_forms[i];
    return NULL;
}

/* x = x OP mem (arithmetic) under MXCSR *mxcsr, which is updated. */
static int fp_arith(ZydisMnemonic op, v2df *x_io, const uint8_t *mem, uint32_t *mxcsr)
{
    v2df x = *x_io;
    double d;
    float f;
    uint32_t user = *mxcsr, out = user;
    memcpy(&d, mem, sizeof d);
    memcpy(&f, mem, sizeof f);
    switch (op) {
    case ZYDIS_MNEMONIC_ADDSD: FP_OP("addsd", x, d, user, out); break;
    case ZYDIS_MNEMONIC_SUBSD: FP_OP("subsd", x, d, user, out); break;
    case ZYDIS_MNEMONIC_MULSD: FP_OP("mulsd", x, d, user, out); break;
    case ZYDIS_MNEMONIC_DIVSD: FP_OP("divsd", x, d, user, out); break;
    case ZYDIS_MNEMONIC_MINSD: FP_OP("minsd", x, d, user, out); break;
    case ZYDIS_MNEMONIC_MAXSD: FP_OP("maxsd", x, d, user, out); break;
    case ZYDIS_MNEMONIC_ADDSS: FP_OP("addss", x, f, user, out); break;
    case ZYDIS_MNEMONIC_SUBSS: FP_OP("subss", x, f, user, out); break;
    case ZYDIS_MNEMONIC_MULSS: FP_OP("mulss", x, f, user, out); break;
    case ZYDIS_MNEMONIC_DIVSS: FP_OP("divss", x, f, user, out); break;
    case ZYDIS_MNEMONIC_MINSS: FP_OP("minss", x, f, user, out); break;
    case ZYDIS_MNEMONIC_MAXSS: FP_OP("maxss", x, f, user, out); break;
    default: return 0;
    }
    *x_io = x;
    *mxcsr = out;
    return 1;
}

/* The flags of comparing x with mem, under MXCSR *mxcsr (updated). */
static int fp_compare(ZydisMnemonic op, v2df x, const uint8_t *mem, uint32_t *mxcsr,
                      uint64_t *fl)
{
    double d;
    float f;
    uint32_t user = *mxcsr, out = user;
    uint8_t z = 0, p = 0, c = 0;
    memcpy(&d, mem, sizeof d);
    memcpy(&f, mem, sizeof f);
    switch (op) {
    case ZYDIS_MNEMONIC_UCOMISD: FP_CMP("ucomisd", x, d, user, out, z, p, c); break;
    case ZYDIS_MNEMONIC_COMISD: FP_CMP("comisd", x, d, user, out, z, p, c); break;
    case ZYDIS_MNEMONIC_UCOMISS: FP_CMP("ucomiss", x, f, user, out, z, p, c); break;
    case ZYDIS_MNEMONIC_COMISS: FP_CMP("comiss", x, f, user, out, z, p, c); break;
    default: return 0;
    }
    *fl = (z ? 0x40u : 0) | (p ? 0x4u : 0) | (c ? 0x1u : 0); /* OF, SF, AF cleared */
    *mxcsr = out;
    return 1;
}

static int emulate_scalar(ucontext_t *uc, const ZydisDecodedInstruction *insn,
                          const ZydisDecodedOperand *ops, int m, uint64_t ea,
                          const wasp_emulated_memory *memory)
{
    int w, vex = insn->encoding == ZYDIS_INSTRUCTION_ENCODING_VEX;
    const struct fp_form *form = fp_form_of(insn->mnemonic);
    if (!form || (insn->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY && !vex))
        return 0;
    ZydisMnemonic op = form->legacy;
    fp_kind kind = form->kind;
    int sources = kind == FP_ARITH && vex ? 3 : 2; /* VEX arithmetic: dest, src1, memory */
    int bytes = form->is_double ? 8 : 4;
    if (insn->operand_count_visible != sources || m != sources - 1 || ops[m].size / 8 != bytes)
        return 0;
    if (ops[0].type != ZYDIS_OPERAND_TYPE_REGISTER || ops[m - 1].type != ZYDIS_OPERAND_TYPE_REGISTER)
        return 0;
    int src_width, dest = wasp_vreg(ops[0].reg.value, &w);
    int src = wasp_vreg(ops[m - 1].reg.value, &src_width);
    uint32_t *mxcsr = wasp_signal_mxcsr(uc);
    if (dest < 0 || w != 16 || src < 0 || src_width != 16 || !mxcsr ||
        (*mxcsr & MXCSR_MASKS) != MXCSR_MASKS)
        return 0;
    uint8_t x_bytes[16], mem[8] = {0}; /* 4 of them read for a float */
    v2df x;
    if (wasp_vector_bytes(uc, src, 16, x_bytes) != 0)
        return 0;
    memcpy(&x, x_bytes, sizeof x);
    if (memory->read(memory->ctx, ea, mem, (size_t)bytes) != bytes)
        return -1;
    uint32_t mx = *mxcsr;
    if (kind == FP_COMPARE) {
        uint64_t fl;
        if (!fp_compare(op, x, mem, &mx, &fl))
            return 0;
        set_flags(uc, fl);
    } else {
        if (!fp_arith(op, &x, mem, &mx))
            return 0;
        memcpy(x_bytes, &x, sizeof x);
        if (wasp_vector_load(uc, dest, 16, x_bytes, 16, vex) != 0)
            return 0;
    }
    *mxcsr = mx;
    return 1;
}

int wasp_emulate_arith(ucontext_t *uc, const ZydisDecodedInstruction *insn,
                       const ZydisDecodedOperand *ops, int m, uint64_t ea,
                       const wasp_emulated_memory *memory)
{
    int r = emulate_integer(uc, insn, ops, m, ea, memory);
    return r != 0 ? r : emulate_scalar(uc, insn, ops, m, ea, memory);
}
