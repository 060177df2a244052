/*
 * The interrupted thread's registers in its signal frame (see signal_regs.h).
 *
 * ASYNC-SIGNAL-SAFE: all but wasp_signal_regs_init.
 */
#include <cpuid.h>
#include <string.h>

#include "isa/signal_regs.h"

enum {
    FXSAVE_MXCSR = 24,         /* MXCSR in the legacy area */
    FXSAVE_XMM = 160,          /* xmm0-15 in the legacy area */
    SW_BYTES = 464,            /* the kernel's software-reserved bytes */
    XSAVE_HEADER = 512,        /* xstate_bv */
    FP_XSTATE_MAGIC1 = 0x46505853,
    XFEATURE_YMM = 2,          /* YMM_Hi128: bits 128-255 of ymm0-15 */
    XFEATURE_ZMM_HI256 = 6,    /* bits 256-511 of zmm0-15 */
};

static uint32_t ymm_offset, zmm_offset; /* standard-format XSAVE offsets, 0: absent */

void wasp_signal_regs_init(void)
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
int wasp_gpr(ZydisRegister r, int *width)
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
int wasp_vreg(ZydisRegister r, int *width)
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
int wasp_vector_bytes(const ucontext_t *uc, int r, int width, uint8_t *out)
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
int wasp_vector_load(ucontext_t *uc, int r, int width, const uint8_t *src, int n, int vex)
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

/* Write value (already extended to `width` bytes) into general register g
 * with x86's rules: 8/16-bit writes merge, 32-bit writes clear the top. */
void wasp_gpr_write(ucontext_t *uc, int g, int width, uint64_t value)
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


int wasp_greg_index(int g)
{
    return greg_of[g & 15];
}

uint32_t *wasp_signal_mxcsr(ucontext_t *uc)
{
    uint8_t *fp = (uint8_t *)uc->uc_mcontext.fpregs;
    return fp ? (uint32_t *)(fp + FXSAVE_MXCSR) : NULL;
}
