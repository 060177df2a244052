/*
 * Emulating one instruction that faulted on a protected page, on behalf of
 * the faulting thread (see isa.h, wasp_isa_emulate). The page watchpoint
 * engine uses it to let an access complete without opening the page and
 * single-stepping: one read or write through /proc/self/mem instead of two
 * mprotect calls and a second signal.
 *
 * This file decodes the instruction, finds its effective address and does
 * the plain moves: mov/movzx/movsx to and from general registers, moves of an
 * immediate, SSE/AVX moves between xmm0-15 / ymm0-15 / zmm0-15 and memory
 * without masking, with the architectural rules for the untouched register
 * bits (32-bit destinations clear the upper half; VEX/EVEX loads clear the
 * vector register above the loaded width; legacy SSE loads leave bits 128
 * and up alone), and `rep stos` over the page it faulted on. Integer and
 * scalar floating-point arithmetic with a memory operand is emulate_arith.c's.
 * Anything else answers "not emulated" and is stepped by the caller.
 *
 * ASYNC-SIGNAL-SAFE: wasp_isa_emulate runs in the SIGSEGV handler (Zydis
 * decoding on the stack, one read or write through the caller's memory:
 * wasp_emulated_proc_mem's is a pread/pwrite of /proc/self/mem).
 * wasp_isa_emulate_init runs once on an ordinary thread.
 */
#include <Zydis/Zydis.h>
#include <string.h>
#include <unistd.h>

#include "isa/emulate_arith.h"
#include "isa/isa.h"
#include "isa/signal_regs.h"

void wasp_isa_emulate_init(void)
{
    wasp_signal_regs_init();
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

static uint64_t sign_extend(uint64_t v, int bytes)
{
    int shift = 64 - 8 * bytes;
    return bytes >= 8 ? v : (uint64_t)((int64_t)(v << shift) >> shift);
}

static int is_move(ZydisMnemonic m)
{
    return m == ZYDIS_MNEMONIC_MOV || m == ZYDIS_MNEMONIC_MOVZX || m == ZYDIS_MNEMONIC_MOVSX ||
           m == ZYDIS_MNEMONIC_MOVSXD || is_vector_move(m);
}

/* The effective address of memory operand mem, from the registers before
 * the instruction; -1 when an address register is not a 64-bit one. */
static int effective_address(const ucontext_t *uc, const ZydisDecodedInstruction *insn,
                             const ZydisDecodedOperand *mem, uint64_t *ea)
{
    int w;
    *ea = 0;
    if (mem->mem.base == ZYDIS_REGISTER_RIP)
        *ea = (uint64_t)uc->uc_mcontext.gregs[REG_RIP] + insn->length;
    else if (mem->mem.base != ZYDIS_REGISTER_NONE) {
        int b = wasp_gpr(mem->mem.base, &w);
        if (b < 0 || w != 8)
            return -1;
        *ea = (uint64_t)uc->uc_mcontext.gregs[wasp_greg_index(b)];
    }
    if (mem->mem.index != ZYDIS_REGISTER_NONE) {
        int x = wasp_gpr(mem->mem.index, &w);
        if (x < 0 || w != 8)
            return -1;
        *ea += (uint64_t)uc->uc_mcontext.gregs[wasp_greg_index(x)] *
               (mem->mem.scale ? mem->mem.scale : 1);
    }
    *ea += (uint64_t)mem->mem.disp.value;
    return 0;
}

/* A plain move (two operands, one of them memory at ea). */
static int emulate_move(ucontext_t *uc, const ZydisDecodedInstruction *insn,
                        const ZydisDecodedOperand *ops, int m, uint64_t ea,
                        const wasp_emulated_memory *memory)
{
    const ZydisDecodedOperand *mem = &ops[m], *other = &ops[1 - m];
    int store = m == 0;
    int size = mem->size / 8, w;
    uint8_t buf[64];
    ZydisMnemonic mn = insn->mnemonic;
    int vex = insn->encoding == ZYDIS_INSTRUCTION_ENCODING_VEX ||
              insn->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX;
    if (insn->operand_count_visible != 2)
        return 0;
    if (store) {
        if (mn == ZYDIS_MNEMONIC_MOV && other->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
            uint64_t v = (uint64_t)other->imm.value.s;
            memcpy(buf, &v, (size_t)(size < 8 ? size : 8));
        } else if (mn == ZYDIS_MNEMONIC_MOV && other->type == ZYDIS_OPERAND_TYPE_REGISTER) {
            int g = wasp_gpr(other->reg.value, &w);
            if (g < 0 || w != size)
                return 0;
            uint64_t v = (uint64_t)uc->uc_mcontext.gregs[wasp_greg_index(g)];
            memcpy(buf, &v, (size_t)size);
        } else if (is_vector_move(mn) && other->type == ZYDIS_OPERAND_TYPE_REGISTER) {
            int v = wasp_vreg(other->reg.value, &w);
            if (v < 0 || size > w || wasp_vector_bytes(uc, v, w, buf) != 0)
                return 0;
        } else {
            return 0;
        }
        if (size > 8 && mn == ZYDIS_MNEMONIC_MOV)
            return 0;
        if (memory->write(memory->ctx, ea, buf, (size_t)size) != size)
            return -1;
        return 1;
    }
    if (other->type != ZYDIS_OPERAND_TYPE_REGISTER)
        return 0;
    int g = -1, v = -1;
    if (is_vector_move(mn)) {
        v = wasp_vreg(other->reg.value, &w);
        if (v < 0 || size > 32)
            return 0;
    } else {
        g = wasp_gpr(other->reg.value, &w);
        if (g < 0 || size > 8 || (mn == ZYDIS_MNEMONIC_MOV && w != size))
            return 0;
    }
    if (memory->read(memory->ctx, ea, buf, (size_t)size) != size)
        return -1;
    if (g >= 0) {
        uint64_t val = 0;
        memcpy(&val, buf, (size_t)size);
        if (mn == ZYDIS_MNEMONIC_MOVSX || mn == ZYDIS_MNEMONIC_MOVSXD)
            val = sign_extend(val, size);
        wasp_gpr_write(uc, g, w, val);
    } else if (wasp_vector_load(uc, v, w, buf, size, vex) != 0) {
        return 0;
    }
    return 1;
}

static ssize_t proc_mem_read(void *fd, uint64_t addr, void *dst, size_t n)
{
    return pread(*(int *)fd, dst, n, (off_t)addr);
}

static ssize_t proc_mem_write(void *fd, uint64_t addr, const void *src, size_t n)
{
    return pwrite(*(int *)fd, src, n, (off_t)addr);
}

wasp_emulated_memory wasp_emulated_proc_mem(int *fd)
{
    return (wasp_emulated_memory){.read = proc_mem_read, .write = proc_mem_write, .ctx = fd};
}

/* `rep stos` forward: the elements on the page its next one is on,
 * written at once (memset's `rep stosb` stepped element by element cost
 * a fault each, 4,096 a page: a third to a half of the page engine's faults
 * on batik, h2 and lucene). rdi and rcx move past them; the PC moves past
 * the instruction only when none is left, else the CPU runs on from the next
 * page, faulting again there if it is watched too. */
enum { STOS_CHUNK = 256 };

static int emulate_rep_stos(ucontext_t *uc, const ZydisDecodedInstruction *insn,
                            const wasp_emulated_memory *memory, uint64_t *addr_out)
{
    greg_t *g = uc->uc_mcontext.gregs;
    uint64_t size = insn->operand_width / 8u, left = (uint64_t)g[REG_RCX];
    uint64_t at = (uint64_t)g[REG_RDI];
    if (insn->address_width != 64 || !(insn->attributes & ZYDIS_ATTRIB_HAS_REP) ||
        (g[REG_EFL] & WASP_EFLAGS_DF) || !left || (size != 1 && size != 2 && size != 4 && size != 8))
        return 0;
    uint64_t room = ((at | 4095u) + 1 - at) / size;
    uint64_t count = left < room ? left : room;
    if (!count)
        return 0; /* its element straddles the page's end: stepped */
    uint8_t chunk[STOS_CHUNK];
    uint64_t value = (uint64_t)g[REG_RAX];
    for (size_t i = 0; i < sizeof chunk; i++)
        chunk[i] = (uint8_t)(value >> (8 * (i % size)));
    for (uint64_t done = 0, bytes = count * size; done < bytes;) {
        size_t piece = bytes - done < sizeof chunk ? (size_t)(bytes - done) : sizeof chunk;
        if (memory->write(memory->ctx, at + done, chunk, piece) != (ssize_t)piece)
            return done ? -1 : 0; /* rdi and rcx not moved: a step writes it all again */
        done += piece;
    }
    *addr_out = at;
    g[REG_RDI] = (greg_t)(at + count * size);
    g[REG_RCX] = (greg_t)(left - count);
    if (left == count)
        g[REG_RIP] += insn->length;
    return 1;
}

int wasp_isa_emulate(ucontext_t *uc, const uint8_t *code, size_t n,
                     const wasp_emulated_memory *memory, uint64_t *addr_out)
{
    ZydisDecoder dec;
    ZydisDecoderContext ctx;
    ZydisDecodedInstruction insn;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!memory ||
        !ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, &ctx, code, n, &insn)) ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&dec, &ctx, &insn, ops, insn.operand_count)))
        return 0;
    if ((insn.attributes & ZYDIS_ATTRIB_HAS_LOCK) || insn.address_width != 64)
        return 0;
    if (insn.meta.category == ZYDIS_CATEGORY_STRINGOP &&
        (insn.mnemonic == ZYDIS_MNEMONIC_STOSB || insn.mnemonic == ZYDIS_MNEMONIC_STOSW ||
         insn.mnemonic == ZYDIS_MNEMONIC_STOSD || insn.mnemonic == ZYDIS_MNEMONIC_STOSQ))
        return emulate_rep_stos(uc, &insn, memory, addr_out);
    if (insn.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX &&
        insn.avx.mask.reg != ZYDIS_REGISTER_NONE && insn.avx.mask.reg != ZYDIS_REGISTER_K0)
        return 0;
    /* Exactly one explicit memory operand, an ordinary one. */
    int m = -1;
    for (int i = 0; i < insn.operand_count_visible; i++)
        if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY) {
            if (m >= 0)
                return 0;
            m = i;
        }
    if (m < 0 || ops[m].mem.type != ZYDIS_MEMOP_TYPE_MEM ||
        ops[m].visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT ||
        ops[m].mem.segment == ZYDIS_REGISTER_FS || ops[m].mem.segment == ZYDIS_REGISTER_GS ||
        ops[m].size / 8 < 1 || ops[m].size / 8 > 64)
        return 0;
    uint64_t ea;
    if (effective_address(uc, &insn, &ops[m], &ea) != 0)
        return 0;
    *addr_out = ea;
    int done = is_move(insn.mnemonic) ? emulate_move(uc, &insn, ops, m, ea, memory)
                                      : wasp_emulate_arith(uc, &insn, ops, m, ea, memory);
    if (done == 1)
        uc->uc_mcontext.gregs[REG_RIP] += insn.length;
    return done;
}
