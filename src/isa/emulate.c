/*
 * Emulating one plain move between a register and memory on behalf of a
 * faulting thread (see isa.h, wasp_isa_emulate_move). The page watchpoint
 * engine uses it to let an access to a protected page complete without
 * opening the page and single-stepping: one read or write through
 * /proc/self/mem instead of two mprotect calls and a second signal.
 *
 * Only forms whose effect is fully known are emulated — mov/movzx/movsx to
 * and from general registers, moves of an immediate, SSE/AVX moves between
 * xmm0-15 / ymm0-15 / zmm0-15 and memory without masking — with the
 * architectural rules for the untouched register bits (32-bit destinations
 * clear the upper half; VEX/EVEX loads clear the vector register above the
 * loaded width; legacy SSE loads leave bits 128 and up alone). Anything else
 * answers "not emulated" and is stepped by the caller.
 *
 * ASYNC-SIGNAL-SAFE: wasp_isa_emulate_move runs in the SIGSEGV handler
 * (Zydis decoding on the stack, one pread/pwrite). wasp_isa_emulate_init runs
 * once on an ordinary thread.
 */
#include <Zydis/Zydis.h>
#include <cpuid.h>
#include <string.h>
#include <unistd.h>

#include "isa/isa.h"

enum {
    FXSAVE_XMM = 160,          /* xmm0-15 in the legacy area */
    SW_BYTES = 464,            /* the kernel's software-reserved bytes */
    XSAVE_HEADER = 512,        /* xstate_bv */
    FP_XSTATE_MAGIC1 = 0x46505853,
    XFEATURE_YMM = 2,          /* YMM_Hi128: bits 128-255 of ymm0-15 */
    XFEATURE_ZMM_HI256 = 6,    /* bits 256-511 of zmm0-15 */
};

static uint32_t ymm_offset, zmm_offset; /* standard-format XSAVE offsets, 0: absent */

void wasp_isa_emulate_init(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_count(0xd, XFEATURE_YMM, &a, &b, &c, &d) && a == 256)
        ymm_offset = b;
    if (__get_cpuid_count(0xd, XFEATURE_ZMM_HI256, &a, &b, &c, &d) && a == 512)
        zmm_offset = b;
}

/* gregs index of a general register in hardware encoding order. */
static const int greg_of[16] = {
    REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
    REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

/* The general register r as (index, width in bytes); -1 for ah/bh/ch/dh and
 * anything that is not a general register. */
static int gpr(ZydisRegister r, int *width)
{
    if (r == ZYDIS_REGISTER_AH || r == ZYDIS_REGISTER_BH || r == ZYDIS_REGISTER_CH ||
        r == ZYDIS_REGISTER_DH)
        return -1;
    ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
    if (full < ZYDIS_REGISTER_RAX || full > ZYDIS_REGISTER_R15)
        return -1;
    *width = ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, r) / 8;
    return (int)(full - ZYDIS_REGISTER_RAX);
}

/* A vector register 0-15 as (index, width in bytes), or -1. */
static int vreg(ZydisRegister r, int *width)
{
    if (r >= ZYDIS_REGISTER_XMM0 && r <= ZYDIS_REGISTER_XMM15) {
        *width = 16;
        return (int)(r - ZYDIS_REGISTER_XMM0);
    }
    if (r >= ZYDIS_REGISTER_YMM0 && r <= ZYDIS_REGISTER_YMM15) {
        *width = 32;
        return (int)(r - ZYDIS_REGISTER_YMM0);
    }
    if (r >= ZYDIS_REGISTER_ZMM0 && r <= ZYDIS_REGISTER_ZMM15) {
        *width = 64;
        return (int)(r - ZYDIS_REGISTER_ZMM0);
    }
    return -1;
}

static int is_vector_move(ZydisMnemonic m)
{
    switch (m) {
    case ZYDIS_MNEMONIC_MOVSS: case ZYDIS_MNEMONIC_MOVSD: case ZYDIS_MNEMONIC_MOVD:
    case ZYDIS_MNEMONIC_MOVQ: case ZYDIS_MNEMONIC_MOVUPS: case ZYDIS_MNEMONIC_MOVUPD:
    case ZYDIS_MNEMONIC_MOVAPS: case ZYDIS_MNEMONIC_MOVAPD: case ZYDIS_MNEMONIC_MOVDQU:
    case ZYDIS_MNEMONIC_MOVDQA: case ZYDIS_MNEMONIC_VMOVSS: case ZYDIS_MNEMONIC_VMOVSD:
    case ZYDIS_MNEMONIC_VMOVD: case ZYDIS_MNEMONIC_VMOVQ: case ZYDIS_MNEMONIC_VMOVUPS:
    case ZYDIS_MNEMONIC_VMOVUPD: case ZYDIS_MNEMONIC_VMOVAPS: case ZYDIS_MNEMONIC_VMOVAPD:
    case ZYDIS_MNEMONIC_VMOVDQU: case ZYDIS_MNEMONIC_VMOVDQA: case ZYDIS_MNEMONIC_VMOVDQU8:
    case ZYDIS_MNEMONIC_VMOVDQU16: case ZYDIS_MNEMONIC_VMOVDQU32: case ZYDIS_MNEMONIC_VMOVDQU64:
    case ZYDIS_MNEMONIC_VMOVDQA32: case ZYDIS_MNEMONIC_VMOVDQA64:
        return 1;
    default:
        return 0;
    }
}

/* The signal frame's XSAVE area, when the kernel wrote one. */
static uint8_t *xsave_area(const ucontext_t *uc, uint64_t *xstate_bv)
{
    uint8_t *fp = (uint8_t *)uc->uc_mcontext.fpregs;
    if (!fp)
        return NULL;
    uint32_t magic;
    memcpy(&magic, fp + SW_BYTES, sizeof magic);
    if (magic != FP_XSTATE_MAGIC1)
        return NULL;
    memcpy(xstate_bv, fp + XSAVE_HEADER, sizeof *xstate_bv);
    return fp;
}

/* The bytes of vector register r (16, 32 or 64 of them) into out. */
static int vector_bytes(const ucontext_t *uc, int r, int width, uint8_t *out)
{
    uint64_t bv = 0;
    uint8_t *fp = width > 16 ? xsave_area(uc, &bv) : (uint8_t *)uc->uc_mcontext.fpregs;
    if (!fp)
        return -1;
    memcpy(out, fp + FXSAVE_XMM + 16 * r, 16);
    if (width >= 32) {
        if (!ymm_offset)
            return -1;
        if (bv & (1u << XFEATURE_YMM))
            memcpy(out + 16, fp + ymm_offset + 16 * r, 16);
        else
            memset(out + 16, 0, 16); /* init state */
    }
    if (width == 64) {
        if (!zmm_offset)
            return -1;
        if (bv & (1u << XFEATURE_ZMM_HI256))
            memcpy(out + 32, fp + zmm_offset + 32 * r, 32);
        else
            memset(out + 32, 0, 32);
    }
    return 0;
}

/* Load n (4, 8, 16 or 32) bytes into vector register r: the rest of the
 * low 128 bits cleared; above them cleared for VEX/EVEX, kept for legacy SSE. */
static int vector_load(ucontext_t *uc, int r, int width, const uint8_t *src, int n, int vex)
{
    uint64_t bv = 0;
    uint8_t *fp = vex ? xsave_area(uc, &bv) : (uint8_t *)uc->uc_mcontext.fpregs;
    if (!fp || n > width || (vex && !ymm_offset))
        return -1;
    if (vex && n == 32 && !(bv & (1u << XFEATURE_YMM)))
        return -1; /* would have to bring every ymm upper out of its init state */
    uint8_t low[16] = {0};
    memcpy(low, src, n < 16 ? (size_t)n : 16);
    memcpy(fp + FXSAVE_XMM + 16 * r, low, 16);
    if (!vex)
        return 0;
    if (bv & (1u << XFEATURE_YMM)) {
        uint8_t hi[16] = {0};
        if (n == 32)
            memcpy(hi, src + 16, 16);
        memcpy(fp + ymm_offset + 16 * r, hi, 16);
    }
    if (zmm_offset && (bv & (1u << XFEATURE_ZMM_HI256)))
        memset(fp + zmm_offset + 32 * r, 0, 32);
    return 0;
}

static uint64_t sign_extend(uint64_t v, int bytes)
{
    int shift = 64 - 8 * bytes;
    return bytes >= 8 ? v : (uint64_t)((int64_t)(v << shift) >> shift);
}

/* Write value (already extended to `width` bytes) into general register g
 * with x86's rules: 8/16-bit writes merge, 32-bit writes clear the top. */
static void gpr_write(ucontext_t *uc, int g, int width, uint64_t value)
{
    greg_t *slot = &uc->uc_mcontext.gregs[greg_of[g]];
    uint64_t old = (uint64_t)*slot;
    switch (width) {
    case 1: *slot = (greg_t)((old & ~0xffull) | (value & 0xff)); break;
    case 2: *slot = (greg_t)((old & ~0xffffull) | (value & 0xffff)); break;
    case 4: *slot = (greg_t)(value & 0xffffffffull); break;
    default: *slot = (greg_t)value;
    }
}

int wasp_isa_emulate_move(ucontext_t *uc, const uint8_t *code, size_t n, int memfd,
                          uint64_t *addr_out)
{
    ZydisDecoder dec;
    ZydisDecoderContext ctx;
    ZydisDecodedInstruction insn;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (memfd < 0 ||
        !ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, &ctx, code, n, &insn)) ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&dec, &ctx, &insn, ops, insn.operand_count)))
        return 0;
    if (insn.operand_count_visible != 2 || (insn.attributes & ZYDIS_ATTRIB_HAS_LOCK) ||
        insn.address_width != 64)
        return 0;
    if (insn.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX &&
        insn.avx.mask.reg != ZYDIS_REGISTER_NONE && insn.avx.mask.reg != ZYDIS_REGISTER_K0)
        return 0;
    int m = ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY ? 0 : ops[1].type == ZYDIS_OPERAND_TYPE_MEMORY ? 1 : -1;
    if (m < 0 || ops[m].mem.type != ZYDIS_MEMOP_TYPE_MEM ||
        ops[m].visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT ||
        ops[m].mem.segment == ZYDIS_REGISTER_FS || ops[m].mem.segment == ZYDIS_REGISTER_GS)
        return 0;
    const ZydisDecodedOperand *mem = &ops[m], *other = &ops[1 - m];
    int store = m == 0;
    int size = mem->size / 8;
    if (size < 1 || size > 64)
        return 0;

    /* The effective address, from the registers before the instruction. */
    uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP], ea = 0;
    int w;
    if (mem->mem.base == ZYDIS_REGISTER_RIP)
        ea = rip + insn.length;
    else if (mem->mem.base != ZYDIS_REGISTER_NONE) {
        int b = gpr(mem->mem.base, &w);
        if (b < 0 || w != 8)
            return 0;
        ea = (uint64_t)uc->uc_mcontext.gregs[greg_of[b]];
    }
    if (mem->mem.index != ZYDIS_REGISTER_NONE) {
        int x = gpr(mem->mem.index, &w);
        if (x < 0 || w != 8)
            return 0;
        ea += (uint64_t)uc->uc_mcontext.gregs[greg_of[x]] * (mem->mem.scale ? mem->mem.scale : 1);
    }
    ea += (uint64_t)mem->mem.disp.value;
    *addr_out = ea;

    uint8_t buf[64];
    ZydisMnemonic mn = insn.mnemonic;
    int vex = insn.encoding == ZYDIS_INSTRUCTION_ENCODING_VEX ||
              insn.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX;
    if (store) {
        if (mn == ZYDIS_MNEMONIC_MOV && other->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
            uint64_t v = (uint64_t)other->imm.value.s;
            memcpy(buf, &v, (size_t)(size < 8 ? size : 8));
        } else if (mn == ZYDIS_MNEMONIC_MOV && other->type == ZYDIS_OPERAND_TYPE_REGISTER) {
            int g = gpr(other->reg.value, &w);
            if (g < 0 || w != size)
                return 0;
            uint64_t v = (uint64_t)uc->uc_mcontext.gregs[greg_of[g]];
            memcpy(buf, &v, (size_t)size);
        } else if (is_vector_move(mn) && other->type == ZYDIS_OPERAND_TYPE_REGISTER) {
            int v = vreg(other->reg.value, &w);
            if (v < 0 || size > w || vector_bytes(uc, v, w, buf) != 0)
                return 0;
        } else {
            return 0;
        }
        if (size > 8 && mn == ZYDIS_MNEMONIC_MOV)
            return 0;
        if (pwrite(memfd, buf, (size_t)size, (off_t)ea) != size)
            return -1;
    } else {
        if (other->type != ZYDIS_OPERAND_TYPE_REGISTER)
            return 0;
        int g = -1, v = -1;
        if (mn == ZYDIS_MNEMONIC_MOV || mn == ZYDIS_MNEMONIC_MOVZX || mn == ZYDIS_MNEMONIC_MOVSX ||
            mn == ZYDIS_MNEMONIC_MOVSXD) {
            g = gpr(other->reg.value, &w);
            if (g < 0 || size > 8 || (mn == ZYDIS_MNEMONIC_MOV && w != size))
                return 0;
        } else if (is_vector_move(mn)) {
            v = vreg(other->reg.value, &w);
            if (v < 0 || size > 32)
                return 0;
        } else {
            return 0;
        }
        if (pread(memfd, buf, (size_t)size, (off_t)ea) != size)
            return -1;
        if (g >= 0) {
            uint64_t val = 0;
            memcpy(&val, buf, (size_t)size);
            if (mn == ZYDIS_MNEMONIC_MOVSX || mn == ZYDIS_MNEMONIC_MOVSXD)
                val = sign_extend(val, size);
            gpr_write(uc, g, w, val);
        } else if (vector_load(uc, v, w, buf, size, vex) != 0) {
            return 0;
        }
    }
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(rip + insn.length);
    return 1;
}
