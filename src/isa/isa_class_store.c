/*
 * Finding the class-word store of an object's initialization near a sampled
 * PC (see class_store.h), on decoded instructions (insn.h).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler. No allocation, no locks, no
 * stdio, no memory read but the bytes and registers given.
 */
#include "isa/class_store.h"

#include "isa/insn.h"

enum { PREV_CANDIDATES = 4 };

/* The accept's answer for a store at `at` of len bytes writing word into the
 * object at obj: FOUND with *out filled, or REJECTED. */
static wasp_class_store_found offer(uint64_t at, uint8_t len, uint64_t obj, uint64_t word,
                                    uint32_t width, int ahead, wasp_class_store_accept accept,
                                    void *arg, wasp_class_store *out)
{
    if (width == 4)
        word &= 0xffffffffu;
    if (!accept(obj, word, arg))
        return WASP_CSTORE_REJECTED;
    *out = (wasp_class_store){at, obj, word, len, (uint8_t)ahead};
    return WASP_CSTORE_FOUND;
}

/* The instruction that ended at pc: it ran, and a store leaves its source
 * register as it was. */
static wasp_class_store_found prev_store(const uint8_t *before, size_t nb, uint64_t pc,
                                         const wasp_regs *regs, uint32_t disp, uint32_t width,
                                         wasp_class_store_accept accept, void *arg,
                                         wasp_class_store *out)
{
    wasp_access a[PREV_CANDIDATES];
    int k = nb ? wasp_isa_prev_accesses(before, nb, pc, regs, a, PREV_CANDIDATES) : 0;
    wasp_class_store_found r = WASP_CSTORE_NONE;
    for (int i = 0; i < k; i++) {
        if (a[i].kind != WASP_ACCESS_STORE || a[i].disp != (int64_t)disp || a[i].size != width ||
            !a[i].has_base || a[i].has_index || !a[i].has_src)
            continue;
        r = offer(pc - a[i].len, a[i].len, a[i].addr - disp, a[i].src, width, 0, accept, arg, out);
        if (r == WASP_CSTORE_FOUND)
            break;
    }
    return r;
}

wasp_class_store_found wasp_isa_find_class_store(const uint8_t *before, size_t nb,
                                                 const uint8_t *code, size_t n, uint64_t pc,
                                                 const wasp_regs *regs, uint32_t disp,
                                                 uint32_t width, int max_insns,
                                                 wasp_class_store_accept accept, void *arg,
                                                 wasp_class_store *out)
{
    wasp_class_store_found best = prev_store(before, nb, pc, regs, disp, width, accept, arg, out);
    if (best == WASP_CSTORE_FOUND)
        return best;
    unsigned dirty = 0; /* registers written by the instructions scanned so far */
    size_t off = 0;
    for (int i = 0; i < max_insns && off < n; i++) {
        wasp_insn d;
        if (wasp_insn_decode(code + off, n - off, &d) < 0)
            return i == 0 && best == WASP_CSTORE_NONE ? WASP_CSTORE_UNDECODABLE : best;
        if ((d.flags & WASP_INSN_MEM) && d.kind == WASP_ACCESS_STORE && d.disp == (int64_t)disp &&
            d.size == width && d.base >= 0 && d.base < WASP_REG_COUNT && d.index < 0 &&
            !(d.flags & (WASP_INSN_ADDR32 | WASP_INSN_ATOMIC)) && !(dirty & (1u << d.base))) {
            if (d.src_imm || (d.src_reg >= 0 && !(dirty & (1u << d.src_reg)))) {
                uint64_t word = d.src_imm ? d.imm : regs->gpr[d.src_reg];
                wasp_class_store_found r = offer(pc + off, d.length, regs->gpr[d.base], word,
                                                 width, 1, accept, arg, out);
                if (r == WASP_CSTORE_FOUND)
                    return r;
                best = r;
            } else if (d.src_reg >= 0 && best == WASP_CSTORE_NONE) {
                best = WASP_CSTORE_LOST;
            }
        }
        if (d.flags & WASP_INSN_TRANSFER)
            break;
        dirty |= d.writes | d.cond_writes;
        off += d.length;
    }
    return best;
}
