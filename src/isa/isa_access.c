/*
 * ASYNC-SIGNAL-SAFE: runs inside the SIGTRAP/timer handlers. No malloc, no
 * stdio, no locks, and no memory reads except the instruction bytes the caller
 * already copied. Zydis decoding is pure (no allocation, no global state).
 *
 * Effective-address computation for the instruction at a sampled PC
 * (wasp_isa_decode_access), the forward scan to the next computable access
 * (wasp_isa_find_access), and recovery of the instruction that ended at a
 * watchpoint's trap PC (wasp_isa_recover_trap). They live together because
 * they share the decoding helpers below.
 */
#include "isa/isa.h"

#include <Zydis/Zydis.h>

/* One decoded instruction with its explicit data-memory operand. */
typedef struct decoded {
    ZydisDecodedInstruction insn;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    const ZydisDecodedOperand *mem; /* NULL when there is no data access */
} decoded;

void wasp_isa_regs_from_ucontext(const ucontext_t *uc, wasp_regs *regs)
{
    /* gregs uses the kernel's sigcontext order; regs uses hardware encoding order. */
    static const int map[WASP_REG_COUNT] = {
        REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
        REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
    };
    for (int i = 0; i < WASP_REG_COUNT; i++)
        regs->gpr[i] = (uint64_t)uc->uc_mcontext.gregs[map[i]];
    regs->rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
}

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

/* Decode exactly the bytes given. Returns -1 when they do not decode, else 0
 * with d->mem pointing at the explicit data-memory operand or NULL. */
static int decode(const uint8_t *bytes, size_t n, decoded *d)
{
    ZydisDecoder dec;
    if (n > WASP_MAX_INSN)
        n = WASP_MAX_INSN;
    /* Init is a few stores; doing it per call avoids any shared state. */
    if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
        return -1;
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes, n, &d->insn, d->ops)))
        return -1;
    d->mem = NULL;
    if (is_excluded(&d->insn))
        return 0;
    for (unsigned i = 0; i < d->insn.operand_count; i++) {
        const ZydisDecodedOperand *op = &d->ops[i];
        /* EXPLICIT only: hidden stack slots and string operands are skipped;
         * MEM only: LEA/AGEN, MIB (bndldx) and VSIB are not plain accesses. */
        if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT ||
            op->mem.type != ZYDIS_MEMOP_TYPE_MEM)
            continue;
        /* fs/gs bases are not in the register file (TLS, not heap data). */
        if (op->mem.segment == ZYDIS_REGISTER_FS || op->mem.segment == ZYDIS_REGISTER_GS)
            return 0;
        /* op->size is in bits: beyond one zmm (fxsave, xsave...) is not something we watch. */
        if (op->size == 0 || op->size > 512 || !(op->actions & (ZYDIS_OPERAND_ACTION_MASK_READ |
                                                                 ZYDIS_OPERAND_ACTION_MASK_WRITE)))
            return 0;
        if (is_safepoint_poll(&d->insn, d->ops, op))
            return 0;
        d->mem = op;
        return 0;
    }
    return 0;
}

/* Index into wasp_regs.gpr of a general-purpose register of any width, or -1. */
static int gpr_index(ZydisRegister r)
{
    ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
    if (full >= ZYDIS_REGISTER_RAX && full <= ZYDIS_REGISTER_R15)
        return (int)(full - ZYDIS_REGISTER_RAX);
    return -1;
}

/* Effective address of d->mem for an instruction at pc (RIP-relative operands
 * are relative to the next instruction, pc + length). */
static uint64_t effective_address(const decoded *d, uint64_t pc, const wasp_regs *regs)
{
    const ZydisDecodedOperandMem *m = &d->mem->mem;
    uint64_t ea = (uint64_t)m->disp.value;
    int b = gpr_index(m->base), x = gpr_index(m->index);
    if (m->base == ZYDIS_REGISTER_RIP || m->base == ZYDIS_REGISTER_EIP)
        ea += pc + d->insn.length;
    else if (b >= 0)
        ea += regs->gpr[b];
    if (x >= 0)
        ea += regs->gpr[x] * (m->scale ? m->scale : 1);
    if (d->insn.address_width == 32) /* 0x67 prefix: the address wraps at 4 GiB */
        ea &= 0xffffffffu;
    return ea;
}

static void fill(const decoded *d, uint64_t pc, const wasp_regs *regs, wasp_access *out)
{
    const ZydisDecodedOperand *op = d->mem;
    out->addr = effective_address(d, pc, regs);
    out->size = op->size / 8u;
    out->kind = (uint8_t)(((op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) ? WASP_ACCESS_LOAD : 0) |
                          ((op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) ? WASP_ACCESS_STORE : 0));
    out->len = d->insn.length;
    out->float_size = op->element_type == ZYDIS_ELEMENT_TYPE_FLOAT32   ? 4
                      : op->element_type == ZYDIS_ELEMENT_TYPE_FLOAT64 ? 8
                                                                        : 0;
    out->rip_relative = (op->mem.base == ZYDIS_REGISTER_RIP || op->mem.base == ZYDIS_REGISTER_EIP);
    out->addr_known = 1;
    /* The value a plain store writes, when it comes from a general register
     * or an immediate: known before the store runs. */
    out->has_src = 0;
    out->src = 0;
    if (out->kind == WASP_ACCESS_STORE && d->insn.mnemonic == ZYDIS_MNEMONIC_MOV) {
        for (unsigned i = 0; i < d->insn.operand_count_visible; i++) {
            const ZydisDecodedOperand *o = &d->ops[i];
            if (o == op)
                continue;
            if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
                out->src = o->imm.value.u;
                out->has_src = 1;
            } else if (o->type == ZYDIS_OPERAND_TYPE_REGISTER) {
                ZydisRegister r = o->reg.value;
                int g = gpr_index(r);
                /* ah/bh/ch/dh are bits 8-15 of their register: not handled. */
                if (g >= 0 && r != ZYDIS_REGISTER_AH && r != ZYDIS_REGISTER_BH &&
                    r != ZYDIS_REGISTER_CH && r != ZYDIS_REGISTER_DH) {
                    out->src = regs->gpr[g];
                    out->has_src = 1;
                }
            }
        }
    }
}

int wasp_isa_decode_access(const uint8_t *bytes, size_t n, uint64_t pc, const wasp_regs *regs,
                           wasp_access *out)
{
    decoded d;
    if (decode(bytes, n, &d) < 0)
        return -1;
    if (!d.mem)
        return 0;
    fill(&d, pc, regs, out);
    return 1;
}

int wasp_isa_is_program_data(const wasp_access *a, uint64_t sp)
{
    uint64_t dist = a->addr > sp ? a->addr - sp : sp - a->addr;
    return a->addr >= 65536 && dist >= (1u << 20) && !a->rip_relative;
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

/* Bit mask (by wasp_regs index) of the general-purpose registers the
 * instruction may write, explicitly or implicitly. */
static unsigned written_gprs(const decoded *d)
{
    unsigned mask = 0;
    for (unsigned i = 0; i < d->insn.operand_count; i++) {
        const ZydisDecodedOperand *op = &d->ops[i];
        if (op->type != ZYDIS_OPERAND_TYPE_REGISTER || !(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
            continue;
        int r = gpr_index(op->reg.value);
        if (r >= 0)
            mask |= 1u << r;
    }
    return mask;
}

static int address_uses(const decoded *d, unsigned mask)
{
    int b = gpr_index(d->mem->mem.base), x = gpr_index(d->mem->mem.index);
    return (b >= 0 && (mask >> b & 1)) || (x >= 0 && (mask >> x & 1));
}

int wasp_isa_find_access(const uint8_t *bytes, size_t n, uint64_t pc, const wasp_regs *regs,
                         int wanted, int max_insns, wasp_access *out, uint64_t *at)
{
    unsigned dirty = 0;
    size_t off = 0;
    for (int i = 0; i < max_insns && off < n; i++) {
        decoded d;
        if (decode(bytes + off, n - off, &d) < 0)
            return i == 0 ? -1 : 0;
        if (d.mem && !address_uses(&d, dirty)) {
            fill(&d, pc + off, regs, out);
            if ((out->kind & wanted) && wasp_isa_is_program_data(out, regs->gpr[4])) {
                *at = pc + off;
                return 1;
            }
        }
        if (transfers_control(&d.insn))
            return 0;
        dirty |= written_gprs(&d);
        off += d.insn.length;
    }
    return 0;
}

/* Which writes of the instruction hit a register its own address uses:
 * returns the action mask (WRITE and/or CONDWRITE) or 0. Then the
 * post-instruction registers may not reproduce the address. */
static unsigned clobbers_address(const decoded *d)
{
    int b = gpr_index(d->mem->mem.base), x = gpr_index(d->mem->mem.index);
    unsigned writes = 0;
    for (unsigned i = 0; i < d->insn.operand_count; i++) {
        const ZydisDecodedOperand *op = &d->ops[i];
        if (op->type != ZYDIS_OPERAND_TYPE_REGISTER)
            continue;
        int r = gpr_index(op->reg.value);
        if (r >= 0 && (r == b || r == x))
            writes |= op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
    }
    return writes;
}

/* Zero bytes decode as `add %al, (%rax)`: in practice they are padding or
 * data before code, never an instruction that just ran. */
static int all_zero(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

/* Backward decoding also finds the tails of longer instructions, and those
 * decode as odd accesses through a bare register: `sbb %dl, (%rax)`,
 * `sldt (%rax)`. Accesses to Java objects always carry a displacement (the
 * object header comes first), and are never system instructions. */
static int plausible_data_access(const decoded *d)
{
    if (d->insn.meta.category == ZYDIS_CATEGORY_SYSTEM)
        return 0;
    return d->mem->mem.disp.value != 0;
}

int wasp_isa_prev_accesses(const uint8_t *before, size_t n, uint64_t pc, const wasp_regs *regs,
                           wasp_access *out, int max)
{
    if (n > WASP_MAX_INSN) {
        before += n - WASP_MAX_INSN;
        n = WASP_MAX_INSN;
    }
    int found = 0;
    for (size_t k = n; k >= 1 && found < max; k--) {
        decoded d;
        if (all_zero(before + (n - k), k) || decode(before + (n - k), k, &d) < 0 ||
            d.insn.length != k || !d.mem || clobbers_address(&d) || !plausible_data_access(&d))
            continue;
        fill(&d, pc - k, regs, &out[found]);
        if (wasp_isa_is_program_data(&out[found], regs->gpr[4]))
            found++;
    }
    return found;
}

int wasp_isa_recover_trap(const uint8_t *before, size_t n, uint64_t trap_pc, const wasp_regs *regs,
                          uint64_t watch_addr, uint32_t watch_len, wasp_access *out)
{
    /* Best candidate so far: tier 2 = address recomputed and overlapping the
     * watch, tier 1 = address lost because the instruction overwrote its own
     * base/index. Ties go to the longer length (iterated last), which keeps
     * prefixes such as REX with their instruction. */
    int best_tier = 0;
    if (n > WASP_MAX_INSN) { /* keep the window ending at trap_pc */
        before += n - WASP_MAX_INSN;
        n = WASP_MAX_INSN;
    }
    for (size_t k = 1; k <= n; k++) {
        decoded d;
        /* Give the decoder exactly k bytes so it cannot run past trap_pc. */
        if (decode(before + (n - k), k, &d) < 0 || d.insn.length != k || !d.mem)
            continue;
        wasp_access a;
        fill(&d, trap_pc - k, regs, &a);
        unsigned clobber = clobbers_address(&d);
        int overlaps = a.addr < watch_addr + watch_len && watch_addr < a.addr + a.size;
        int tier;
        if (overlaps && !(clobber & ZYDIS_OPERAND_ACTION_WRITE)) {
            tier = 2; /* a conditional write (cmpxchg) may have left the base intact */
        } else if (clobber) {
            tier = 1;
            a.addr = watch_addr;
            a.addr_known = 0;
        } else {
            continue;
        }
        if (tier >= best_tier) {
            best_tier = tier;
            *out = a;
        }
    }
    return best_tier > 0;
}
