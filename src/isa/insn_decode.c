/*
 * ASYNC-SIGNAL-SAFE: runs inside the signal handlers. No malloc, no stdio, no
 * locks; Zydis decoding is pure (no allocation, no global state).
 *
 * Zydis' full decode of one instruction, reduced to a wasp_insn: which
 * explicit operand is the data access we can compute and watch, and the
 * register facts the forward scan and the trap recovery need.
 */
#include "isa/insn.h"

#include <stdbool.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "isa/isa.h"

/* Instructions whose memory operand is not a data access we can watch:
 * address hints, cache control, and stack/string instructions whose accesses
 * are implicit (or, for push/pop of memory, computed around an RSP update). */
static int is_excluded(const ZydisDecodedInstruction *insn)
{
    switch (insn->meta.category) {
    case ZYDIS_CATEGORY_NOP:
    case ZYDIS_CATEGORY_WIDENOP: /* nopw 0x0(%rax,%rax,1) */
    case ZYDIS_CATEGORY_PREFETCH:
    case ZYDIS_CATEGORY_PREFETCHWT1:
    case ZYDIS_CATEGORY_CLFLUSHOPT:
    case ZYDIS_CATEGORY_CLWB:
    case ZYDIS_CATEGORY_CLDEMOTE:
    case ZYDIS_CATEGORY_CLZERO:
    case ZYDIS_CATEGORY_PUSH:
    case ZYDIS_CATEGORY_POP:
    case ZYDIS_CATEGORY_CALL:
    case ZYDIS_CATEGORY_RET:
    case ZYDIS_CATEGORY_STRINGOP:
    case ZYDIS_CATEGORY_IOSTRINGOP:
    case ZYDIS_CATEGORY_GATHER:
    case ZYDIS_CATEGORY_SCATTER:
    case ZYDIS_CATEGORY_AVX2GATHER:
        return 1;
    default:
        break;
    }
    switch (insn->mnemonic) {
    case ZYDIS_MNEMONIC_CLFLUSH: /* category MISC in Zydis */
    case ZYDIS_MNEMONIC_PREFETCHW:
    case ZYDIS_MNEMONIC_ENTER:
    case ZYDIS_MNEMONIC_LEAVE:
        return 1;
    default:
        return 0;
    }
}

/* HotSpot's safepoint poll, `test %eax, (%reg)`: a load from the VM's
 * polling page, not program data. Java field and array accesses always have a
 * displacement (the object header), so they never take this exact form. */
static int is_safepoint_poll(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
                             const ZydisDecodedOperand *mem)
{
    if (insn->mnemonic != ZYDIS_MNEMONIC_TEST || mem->mem.index != ZYDIS_REGISTER_NONE ||
        mem->mem.disp.value != 0 || mem->mem.base == ZYDIS_REGISTER_NONE)
        return 0;
    for (unsigned i = 0; i < insn->operand_count_visible; i++)
        if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[i].reg.value == ZYDIS_REGISTER_EAX)
            return 1;
    return 0;
}

/* Instructions after which the next one in memory may not be the next to run. */
static int transfers_control(const ZydisDecodedInstruction *insn)
{
    switch (insn->meta.category) {
    case ZYDIS_CATEGORY_COND_BR:
    case ZYDIS_CATEGORY_UNCOND_BR:
    case ZYDIS_CATEGORY_CALL:
    case ZYDIS_CATEGORY_RET:
    case ZYDIS_CATEGORY_SYSCALL:
    case ZYDIS_CATEGORY_SYSRET:
    case ZYDIS_CATEGORY_INTERRUPT:
    case ZYDIS_CATEGORY_SYSTEM:
        return 1;
    default:
        return insn->mnemonic == ZYDIS_MNEMONIC_UD0 || insn->mnemonic == ZYDIS_MNEMONIC_UD1 ||
               insn->mnemonic == ZYDIS_MNEMONIC_UD2 || insn->mnemonic == ZYDIS_MNEMONIC_HLT;
    }
}

/* Index into wasp_regs.gpr of a general-purpose register of any width, or -1. */
static int gpr_index(ZydisRegister r)
{
    ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
    if (full >= ZYDIS_REGISTER_RAX && full <= ZYDIS_REGISTER_R15)
        return (int)(full - ZYDIS_REGISTER_RAX);
    return -1;
}

/* stos and movs (their string forms: SSE's movsd shares the mnemonic, not
 * the category), or WASP_STRING_NONE. */
static enum wasp_insn_string string_of(const ZydisDecodedInstruction *insn)
{
    if (insn->meta.category != ZYDIS_CATEGORY_STRINGOP || insn->address_width != 64)
        return WASP_STRING_NONE;
    switch (insn->mnemonic) {
    case ZYDIS_MNEMONIC_STOSB: case ZYDIS_MNEMONIC_STOSW:
    case ZYDIS_MNEMONIC_STOSD: case ZYDIS_MNEMONIC_STOSQ:
        return WASP_STRING_STOS;
    case ZYDIS_MNEMONIC_MOVSB: case ZYDIS_MNEMONIC_MOVSW:
    case ZYDIS_MNEMONIC_MOVSD: case ZYDIS_MNEMONIC_MOVSQ:
        return WASP_STRING_MOVS;
    default:
        return WASP_STRING_NONE;
    }
}

/* stos (memset's and the JVM's clearing loops, `rep stosb` where the CPU
 * makes it fast): its store to [rdi] is an implicit operand, computed like
 * any other; the other string instructions stay excluded. */
static const ZydisDecodedOperand *store_string_operand(const ZydisDecodedInstruction *insn,
                                                       const ZydisDecodedOperand *ops)
{
    if (string_of(insn) != WASP_STRING_STOS)
        return NULL;
    for (unsigned i = 0; i < insn->operand_count; i++)
        if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[i].mem.base == ZYDIS_REGISTER_RDI &&
            ops[i].size >= 8 && ops[i].size <= 64)
            return &ops[i];
    return NULL;
}

/* The explicit data-memory operand we can compute, or NULL. */
static const ZydisDecodedOperand *data_operand(const ZydisDecodedInstruction *insn,
                                               const ZydisDecodedOperand *ops)
{
    const ZydisDecodedOperand *str = store_string_operand(insn, ops);
    if (str)
        return str;
    if (is_excluded(insn))
        return NULL;
    for (unsigned i = 0; i < insn->operand_count; i++) {
        const ZydisDecodedOperand *op = &ops[i];
        /* EXPLICIT only: hidden stack slots and string operands are skipped;
         * MEM only: LEA/AGEN, MIB (bndldx) and VSIB are not plain accesses. */
        if (op->type != ZYDIS_OPERAND_TYPE_MEMORY ||
            op->visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT ||
            op->mem.type != ZYDIS_MEMOP_TYPE_MEM)
            continue;
        /* fs/gs bases are not in the register file (TLS, not heap data). */
        if (op->mem.segment == ZYDIS_REGISTER_FS || op->mem.segment == ZYDIS_REGISTER_GS)
            return NULL;
        /* op->size is in bits: beyond one zmm (fxsave, xsave...) is not something we watch. */
        if (op->size == 0 || op->size > 512 ||
            !(op->actions & (ZYDIS_OPERAND_ACTION_MASK_READ | ZYDIS_OPERAND_ACTION_MASK_WRITE)))
            return NULL;
        if (is_safepoint_poll(insn, ops, op))
            return NULL;
        return op;
    }
    return NULL;
}

/* The value a plain store writes, when it comes from a general register or an
 * immediate: known before the store runs. */
static void store_source(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
                         const ZydisDecodedOperand *mem, wasp_insn *out)
{
    if (out->kind != WASP_ACCESS_STORE || insn->mnemonic != ZYDIS_MNEMONIC_MOV)
        return;
    for (unsigned i = 0; i < insn->operand_count_visible; i++) {
        const ZydisDecodedOperand *o = &ops[i];
        if (o == mem)
            continue;
        if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
            out->imm = o->imm.value.u;
            out->src_imm = 1;
            out->src_reg = -1;
        } else if (o->type == ZYDIS_OPERAND_TYPE_REGISTER) {
            ZydisRegister r = o->reg.value;
            int g = gpr_index(r);
            /* ah/bh/ch/dh are bits 8-15 of their register: not handled. */
            if (g >= 0 && r != ZYDIS_REGISTER_AH && r != ZYDIS_REGISTER_BH &&
                r != ZYDIS_REGISTER_CH && r != ZYDIS_REGISTER_DH) {
                out->src_reg = (int8_t)g;
                out->src_imm = 0;
            }
        }
    }
}

static void describe_memory(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
                            const ZydisDecodedOperand *op, wasp_insn *out)
{
    const ZydisDecodedOperandMem *m = &op->mem;
    out->flags |= WASP_INSN_MEM;
    out->disp = m->disp.value;
    out->base = (m->base == ZYDIS_REGISTER_RIP || m->base == ZYDIS_REGISTER_EIP)
                    ? WASP_INSN_RIP
                    : (int8_t)gpr_index(m->base);
    out->index = (int8_t)gpr_index(m->index);
    out->scale = m->scale ? m->scale : 1;
    out->size = (uint16_t)(op->size / 8u);
    out->kind = (uint8_t)(((op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) ? WASP_ACCESS_LOAD : 0) |
                          ((op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) ? WASP_ACCESS_STORE : 0));
    out->float_size = op->element_type == ZYDIS_ELEMENT_TYPE_FLOAT32   ? 4
                      : op->element_type == ZYDIS_ELEMENT_TYPE_FLOAT64 ? 8
                                                                        : 0;
    if (insn->address_width == 32)
        out->flags |= WASP_INSN_ADDR32;
    /* xchg with a memory operand is locked whether or not it says so. */
    if ((insn->attributes & ZYDIS_ATTRIB_HAS_LOCK) || insn->mnemonic == ZYDIS_MNEMONIC_XCHG)
        out->flags |= WASP_INSN_ATOMIC;
    if (insn->mnemonic == ZYDIS_MNEMONIC_CMPXCHG)
        out->flags |= WASP_INSN_CMPXCHG;
    if (insn->attributes & ZYDIS_ATTRIB_HAS_REP)
        out->flags |= WASP_INSN_REP;
    store_source(insn, ops, op, out);
}

/* A string instruction's kind, element size and whether it repeats. */
static void describe_string(const ZydisDecodedInstruction *insn, wasp_insn *out)
{
    out->string = (uint8_t)string_of(insn);
    if (!out->string)
        return;
    out->size = (uint16_t)(insn->operand_width / 8u);
    if (insn->attributes & ZYDIS_ATTRIB_HAS_REP)
        out->flags |= WASP_INSN_REP;
}

/* An instruction no compiler of Java code (C1, C2, the JVM's stubs) nor
 * a C compiler's hot loop emits, which the backward search would otherwise
 * take: system instructions, x87, lock elision prefixes (xacquire,
 * xrelease), rotates of memory and arithmetic with carry on it. Tails of
 * longer instructions read so (sunflow: `ficomp -0x2e(%rsi)`, `xrelease
 * mov %r12d, 0x8c(%rbx)`, `sbb -0x37(%rsi), %ebx` among its hot objects'
 * accesses). */
static bool odd_access(const ZydisDecodedInstruction *insn)
{
    switch (insn->mnemonic) {
    case ZYDIS_MNEMONIC_RCL:
    case ZYDIS_MNEMONIC_RCR:
    case ZYDIS_MNEMONIC_ROL:
    case ZYDIS_MNEMONIC_ROR:
    case ZYDIS_MNEMONIC_ADC:
    case ZYDIS_MNEMONIC_SBB:
        return true;
    default:
        break;
    }
    return insn->meta.category == ZYDIS_CATEGORY_SYSTEM ||
           insn->meta.isa_set == ZYDIS_ISA_SET_X87 ||
           (insn->attributes & (ZYDIS_ATTRIB_HAS_XACQUIRE | ZYDIS_ATTRIB_HAS_XRELEASE));
}

/* Zydis' decode of bytes[0..n); with `exact`, only an instruction exactly n
 * bytes long counts, and the operands of any other are not decoded (the
 * backward search tries 15 lengths, most of which decode to something else). */
static int decode_zydis(const uint8_t *bytes, size_t n, int exact, wasp_insn *out)
{
    memset(out, 0, sizeof *out);
    out->base = out->index = out->src_reg = -1;
    if (n > WASP_MAX_INSN)
        n = WASP_MAX_INSN;
    ZydisDecoder dec;
    ZydisDecoderContext ctx;
    ZydisDecodedInstruction insn;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    /* Init is a few stores; doing it per call avoids any shared state. */
    if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, &ctx, bytes, n, &insn)) ||
        (exact && insn.length != n) ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&dec, &ctx, &insn, ops, insn.operand_count)))
        return -1;
    out->flags = WASP_INSN_VALID;
    out->length = insn.length;
    if (transfers_control(&insn))
        out->flags |= WASP_INSN_TRANSFER;
    if (odd_access(&insn))
        out->flags |= WASP_INSN_ODD;
    for (unsigned i = 0; i < insn.operand_count; i++) {
        const ZydisDecodedOperand *op = &ops[i];
        int r = op->type == ZYDIS_OPERAND_TYPE_REGISTER ? gpr_index(op->reg.value) : -1;
        if (r < 0)
            continue;
        if (op->actions & ZYDIS_OPERAND_ACTION_WRITE)
            out->writes |= (uint16_t)(1u << r);
        if (op->actions & ZYDIS_OPERAND_ACTION_CONDWRITE)
            out->cond_writes |= (uint16_t)(1u << r);
    }
    const ZydisDecodedOperand *mem = data_operand(&insn, ops);
    if (mem)
        describe_memory(&insn, ops, mem, out);
    describe_string(&insn, out);
    return 0;
}

int wasp_insn_decode_direct(const uint8_t *bytes, size_t n, wasp_insn *out)
{
    return decode_zydis(bytes, n, 0, out);
}

int wasp_insn_decode_exact(const uint8_t *bytes, size_t n, wasp_insn *out)
{
    return decode_zydis(bytes, n, 1, out);
}

/* 4096 windows, 256 KiB: the forward scans' and trap recoveries' windows of
 * a program's hot code (the backward search has its own table). */
_Static_assert(sizeof(wasp_insn) % 8 == 0, "wasp_insn must fill whole words");
WASP_MEMO_DEFINE(wasp_insn_memo, 12, sizeof(wasp_insn) / 8);

int wasp_insn_decode(const uint8_t *bytes, size_t n, wasp_insn *out)
{
    if (n > WASP_MAX_INSN)
        n = WASP_MAX_INSN;
    if (!wasp_memo_get(&wasp_insn_memo, bytes, n, out)) {
        wasp_insn_decode_direct(bytes, n, out);
        wasp_memo_put(&wasp_insn_memo, bytes, n, out);
    }
    return (out->flags & WASP_INSN_VALID) ? 0 : -1;
}

int wasp_insn_length(const uint8_t *bytes, size_t n)
{
    if (n > WASP_MAX_INSN)
        n = WASP_MAX_INSN;
    wasp_insn d;
    if (wasp_memo_get(&wasp_insn_memo, bytes, n, &d))
        return (d.flags & WASP_INSN_VALID) ? d.length : -1;
    ZydisDecoder dec;
    ZydisDecoderContext ctx;
    ZydisDecodedInstruction insn;
    if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, &ctx, bytes, n, &insn)))
        return -1;
    return insn.length;
}
