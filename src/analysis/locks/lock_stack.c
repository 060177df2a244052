/*
 * See lock_stack.h.
 *
 * ASYNC-SIGNAL-SAFE: pure decoding, no memory but the bytes given.
 */
#include "analysis/locks/lock_stack.h"

enum { REX_W = 8, REX_R = 4, REX_X = 2, REX_B = 1, R15_LOW = 7, NO_INDEX = 4 };

/* A SIB byte of (%r15,%idx,1) under rex: 1 when it is one. */
static int r15_indexed(uint8_t rex, uint8_t sib)
{
    int index = (sib >> 3 & 7) | ((rex & REX_X) ? 8 : 0);
    return (sib >> 6) == 0 && (sib & 7) == R15_LOW && index != NO_INDEX;
}

/* cmp r64, disp8(%r15,%idx,1) (REX.W+B 3B /r, SIB, disp8), or
 * mov (%r15,%idx,1), r64 stored (REX.W+B 89 /r, SIB): 4 or 5 bytes. */
static void decode_indexed(const uint8_t *b, unsigned len, wasp_lock_stack_op *op)
{
    uint8_t rex = b[0], opcode = b[1], modrm = b[2], sib = b[3];
    if ((rex & 0xf0) != 0x40 || !(rex & REX_W) || !(rex & REX_B) || !r15_indexed(rex, sib))
        return;
    int reg = (modrm >> 3 & 7) | ((rex & REX_R) ? 8 : 0);
    if (opcode == 0x3b && (modrm & 0xc7) == 0x44 && len == 5) {
        int8_t disp = (int8_t)b[4];
        if (disp == -8 || disp == -16)
            *op = (wasp_lock_stack_op){WASP_LOCK_STACK_CMP, reg, disp};
    } else if (opcode == 0x89 && (modrm & 0xc7) == 0x04 && len == 4) {
        *op = (wasp_lock_stack_op){WASP_LOCK_STACK_PUSH, reg, 0};
    }
}

/* addl/subl $8, disp(%r15) (41 83 /0 or /5, disp8 or disp32, imm8 8). */
static void decode_top(const uint8_t *b, unsigned len, wasp_lock_stack_op *op)
{
    uint8_t modrm = b[2];
    int mod = modrm >> 6, ext = modrm >> 3 & 7;
    if (b[0] != 0x41 || b[1] != 0x83 || (modrm & 7) != R15_LOW || (ext != 0 && ext != 5))
        return;
    int32_t disp;
    if (mod == 1 && len == 5)
        disp = (int8_t)b[3];
    else if (mod == 2 && len == 8)
        disp = (int32_t)((uint32_t)b[3] | (uint32_t)b[4] << 8 | (uint32_t)b[5] << 16 |
                         (uint32_t)b[6] << 24);
    else
        return;
    if (b[len - 1] != 8 || disp <= 0)
        return;
    *op = (wasp_lock_stack_op){ext == 0 ? WASP_LOCK_STACK_UP : WASP_LOCK_STACK_DOWN, -1, disp};
}

void wasp_lock_stack_decode(const uint8_t *insn, unsigned len, wasp_lock_stack_op *op)
{
    *op = (wasp_lock_stack_op){WASP_LOCK_STACK_NONE, -1, 0};
    if (len < 4 || len > 8)
        return;
    if (insn[0] == 0x41 && insn[1] == 0x83)
        decode_top(insn, len, op);
    else
        decode_indexed(insn, len, op);
}

int wasp_lock_stack_pops_next(const uint8_t *code, unsigned n)
{
    for (unsigned i = 0; i + 8 <= n; i++) {
        wasp_lock_stack_op op;
        if (code[i] == 0x41 && code[i + 1] == 0x83) {
            wasp_lock_stack_decode(code + i, 8, &op);
            if (op.form == WASP_LOCK_STACK_DOWN)
                return 1;
        }
    }
    return 0;
}
