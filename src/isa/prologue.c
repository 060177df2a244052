/*
 * See prologue.h. HotSpot's x86-64 frame building: C1's build_frame (stack
 * bang, push %rbp, [mov %rsp,%rbp], sub $N,%rsp) and C2's verified_entry
 * (the same with a bang; without one, sub $N,%rsp then mov %rbp,N-8(%rsp)).
 * The method's first instructions may be the inline-cache check (or a class
 * initialization barrier) before the verified entry: they leave rsp alone.
 */
#include "isa/prologue.h"

#include <string.h>
#include <Zydis/Zydis.h>

typedef struct decoded {
    ZydisDecodedInstruction insn;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
} decoded;

static int decode(const ZydisDecoder *dec, const uint8_t *code, size_t n, uint32_t off, decoded *d)
{
    return off < n && ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, code + off, n - off, &d->insn,
                                                          d->ops));
}

static int is_reg(const ZydisDecodedOperand *o, ZydisRegister r)
{
    return o->type == ZYDIS_OPERAND_TYPE_REGISTER && o->reg.value == r;
}

static int is_rsp_mem(const ZydisDecodedOperand *o)
{
    return o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->mem.base == ZYDIS_REGISTER_RSP &&
           o->mem.index == ZYDIS_REGISTER_NONE;
}

static int imm(const ZydisDecodedOperand *o, int64_t *v)
{
    if (o->type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
        return 0;
    *v = o->imm.is_signed ? o->imm.value.s : (int64_t)o->imm.value.u;
    return 1;
}

/* Whether the instruction writes rsp, explicitly or implicitly (push, pop,
 * call, ret, enter, leave all do). */
static int writes_rsp(const decoded *d)
{
    for (int i = 0; i < d->insn.operand_count; i++) {
        const ZydisDecodedOperand *o = &d->ops[i];
        if (o->type == ZYDIS_OPERAND_TYPE_REGISTER && (o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
            (o->reg.value == ZYDIS_REGISTER_RSP || o->reg.value == ZYDIS_REGISTER_ESP ||
             o->reg.value == ZYDIS_REGISTER_SP))
            return 1;
    }
    return 0;
}

static int init(ZydisDecoder *dec)
{
    return ZYAN_SUCCESS(ZydisDecoderInit(dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64));
}

int wasp_prologue_decode(const uint8_t *code, size_t n, wasp_frame_shape *shape)
{
    enum { MAX_SKIPPED = 16, MAX_INSNS = 40 };
    ZydisDecoder dec;
    if (!init(&dec))
        return -1;
    memset(shape, 0, sizeof *shape);
    uint32_t off = 0, below = 0; /* bytes the prologue moved rsp down so far */
    int started = 0, skipped = 0;
    for (int k = 0; k < MAX_INSNS; k++) {
        decoded d;
        if (!decode(&dec, code, n, off, &d))
            return -1;
        uint32_t next = off + d.insn.length;
        ZydisMnemonic m = d.insn.mnemonic;
        const ZydisDecodedOperand *o0 = &d.ops[0], *o1 = &d.ops[1];
        int64_t v;
        int step = 0;
        if (m == ZYDIS_MNEMONIC_MOV && is_rsp_mem(o0) && o0->mem.disp.value < 0 &&
            o1->type == ZYDIS_OPERAND_TYPE_REGISTER && !below) {
            /* stack bang: mov %eax,-N(%rsp), before the frame is built */
        } else if (m == ZYDIS_MNEMONIC_PUSH && is_reg(o0, ZYDIS_REGISTER_RBP) && !below) {
            below += 8;
            step = 1;
        } else if (m == ZYDIS_MNEMONIC_SUB && is_reg(o0, ZYDIS_REGISTER_RSP) && imm(o1, &v) &&
                   v >= 0 && v < (1 << 20) && v % 8 == 0) {
            below += (uint32_t)v;
            step = 1;
        } else if (started && m == ZYDIS_MNEMONIC_MOV && is_reg(o0, ZYDIS_REGISTER_RBP) &&
                   is_reg(o1, ZYDIS_REGISTER_RSP)) {
            /* PreserveFramePointer: mov %rsp,%rbp */
        } else if (started && m == ZYDIS_MNEMONIC_MOV && is_rsp_mem(o0) &&
                   o0->mem.disp.value >= 0 && is_reg(o1, ZYDIS_REGISTER_RBP)) {
            /* C2 without a bang: mov %rbp,N(%rsp) */
        } else if (started && m == ZYDIS_MNEMONIC_ADD && is_reg(o0, ZYDIS_REGISTER_RBP)) {
            /* PreserveFramePointer after mov %rbp,N(%rsp): rbp = rsp + N */
        } else if (started) {
            break; /* the body (or the nmethod entry barrier) begins */
        } else {
            /* The inline-cache check, alignment, a class-initialization
             * barrier: nothing that touches rsp. C2 starts an OSR method
             * with a call that never runs (PoisonOSREntry). */
            if ((writes_rsp(&d) && m != ZYDIS_MNEMONIC_CALL) || ++skipped > MAX_SKIPPED)
                return -1;
            off = next;
            continue;
        }
        started = 1;
        if (step) {
            if (shape->nsteps >= WASP_PROLOGUE_STEPS)
                return -1;
            shape->step_at[shape->nsteps] = next;
            shape->step_ret[shape->nsteps] = below;
            shape->nsteps++;
        }
        off = next;
    }
    /* A frame without `sub` is a method with no spill slots (C1 with
     * frame_size 0 still pushes rbp); a prologue that never moved rsp is
     * none we know. */
    if (!started || !below)
        return -1;
    shape->frame_size = below + 8;
    shape->prologue_end = off;
    return 0;
}

/* How an instruction moves rsp: 1 with *delta (bytes, + is up), 0 when it
 * does not, -1 when it sets rsp to something not relative to itself. */
static int rsp_move(const decoded *d, int64_t *delta)
{
    ZydisMnemonic m = d->insn.mnemonic;
    const ZydisDecodedOperand *o0 = &d->ops[0], *o1 = &d->ops[1];
    int64_t v;
    *delta = 0;
    if (m == ZYDIS_MNEMONIC_CALL)
        return 0; /* back where it was when the callee returns */
    if (!writes_rsp(d))
        return 0;
    switch (m) {
    case ZYDIS_MNEMONIC_PUSH:
    case ZYDIS_MNEMONIC_PUSHFQ:
        *delta = -8;
        return 1;
    case ZYDIS_MNEMONIC_POP:
    case ZYDIS_MNEMONIC_POPFQ:
        *delta = 8;
        return 1;
    case ZYDIS_MNEMONIC_SUB:
        if (is_reg(o0, ZYDIS_REGISTER_RSP) && imm(o1, &v)) {
            *delta = -v;
            return 1;
        }
        return -1;
    case ZYDIS_MNEMONIC_ADD:
        if (is_reg(o0, ZYDIS_REGISTER_RSP) && imm(o1, &v)) {
            *delta = v;
            return 1;
        }
        return -1;
    case ZYDIS_MNEMONIC_LEA:
        if (is_reg(o0, ZYDIS_REGISTER_RSP) && is_rsp_mem(o1)) {
            *delta = o1->mem.disp.value;
            return 1;
        }
        return -1;
    default:
        return -1;
    }
}

/* Instructions after which the straight-line code ends: what follows is
 * reached by a jump, with rsp as the body has it. */
static int ends_path(const decoded *d)
{
    switch (d->insn.mnemonic) {
    case ZYDIS_MNEMONIC_RET:
    case ZYDIS_MNEMONIC_JMP:
    case ZYDIS_MNEMONIC_HLT:
    case ZYDIS_MNEMONIC_UD2:
    case ZYDIS_MNEMONIC_INT3:
        return 1;
    default:
        return 0;
    }
}

int wasp_frame_unsafe_ranges(const uint8_t *code, size_t n, uint32_t from, uint32_t *ranges,
                             int cap)
{
    ZydisDecoder dec;
    if (!init(&dec))
        return -1;
    int count = 0;
    int64_t depth = 0; /* rsp relative to the body's */
    int unknown = 0;   /* rsp set to something not relative */
    uint32_t open = 0; /* start of the current range, when depth or unknown */
    for (uint32_t off = from; off < n;) {
        decoded d;
        if (!decode(&dec, code, n, off, &d)) {
            /* Not code (or code Zydis does not know): nothing after it is
             * trusted. */
            if (!depth && !unknown)
                open = off;
            if (count >= cap)
                return -1;
            ranges[2 * count] = open;
            ranges[2 * count + 1] = (uint32_t)n;
            return count + 1;
        }
        uint32_t next = off + d.insn.length;
        int was_bad = depth || unknown;
        int64_t delta;
        int mv = rsp_move(&d, &delta);
        if (mv < 0)
            unknown = 1;
        else if (mv > 0)
            depth += delta;
        int bad = depth || unknown;
        if (ends_path(&d) && bad) {
            depth = 0;
            unknown = 0;
            bad = 0;
        }
        if (!was_bad && (depth || unknown))
            open = next;
        if (was_bad && !bad) {
            if (count >= cap)
                return -1;
            ranges[2 * count] = open;
            ranges[2 * count + 1] = next;
            count++;
        }
        off = next;
    }
    if (depth || unknown) {
        if (count >= cap)
            return -1;
        ranges[2 * count] = open;
        ranges[2 * count + 1] = (uint32_t)n;
        count++;
    }
    return count;
}
