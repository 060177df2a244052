/*
 * ASYNC-SIGNAL-SAFE: runs inside the SIGTRAP/timer handlers. No malloc, no
 * stdio, no locks, and no memory reads except the instruction bytes the caller
 * already copied.
 *
 * Effective-address computation for the instruction at a sampled PC
 * (wasp_isa_decode_access), the forward scan to the next computable access
 * (wasp_isa_find_access), the backward search for the access that just ran
 * (wasp_isa_prev_accesses) and recovery of the instruction that ended at a
 * watchpoint's trap PC (wasp_isa_recover_trap), on decoded instructions
 * (insn.h).
 */
#include "isa/isa.h"

#include <string.h>

#include "isa/insn.h"
#include "isa/memo.h"

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
    regs->vm_lo = regs->vm_hi = 0;
    regs->backward = (uc->uc_mcontext.gregs[REG_EFL] & WASP_EFLAGS_DF) != 0;
}

static int has_mem(const wasp_insn *d)
{
    return (d->flags & WASP_INSN_MEM) != 0;
}

/* Effective address of the memory operand for an instruction at pc
 * (RIP-relative operands are relative to the next instruction, pc + length). */
static uint64_t effective_address(const wasp_insn *d, uint64_t pc, const wasp_regs *regs)
{
    uint64_t ea = (uint64_t)d->disp;
    if (d->base == WASP_INSN_RIP)
        ea += pc + d->length;
    else if (d->base >= 0)
        ea += regs->gpr[d->base];
    if (d->index >= 0)
        ea += regs->gpr[d->index] * d->scale;
    if (d->flags & WASP_INSN_ADDR32) /* 0x67 prefix: the address wraps at 4 GiB */
        ea &= 0xffffffffu;
    return ea;
}

/* Bytes the access covers: a `rep stos` with rcx elements left stores a block
 * from its address on, counted as one vector-wide access (64 bytes) when it
 * reaches that far. RCX is register 1. */
static uint32_t access_size(const wasp_insn *d, const wasp_regs *regs)
{
    if (!(d->flags & WASP_INSN_REP))
        return d->size;
    uint64_t left = regs->gpr[1];
    return left >= 64u / d->size ? 64u : d->size;
}

static void fill(const wasp_insn *d, uint64_t pc, const wasp_regs *regs, wasp_access *out)
{
    out->addr = effective_address(d, pc, regs);
    out->size = access_size(d, regs);
    out->kind = d->kind;
    out->len = d->length;
    out->float_size = d->float_size;
    out->rip_relative = d->base == WASP_INSN_RIP;
    out->addr_known = 1;
    out->has_src = d->src_imm || d->src_reg >= 0;
    out->src = d->src_imm ? d->imm : d->src_reg >= 0 ? regs->gpr[d->src_reg] : 0;
    out->disp = d->disp;
    out->has_base = d->base >= 0 && d->base < WASP_REG_COUNT;
    out->base_val = out->has_base ? regs->gpr[d->base] : 0;
    out->has_index = d->index >= 0;
    out->atomic = (d->flags & WASP_INSN_CMPXCHG) ? 2 : (d->flags & WASP_INSN_ATOMIC) ? 1 : 0;
    out->in_progress = 0;
    out->element = d->string ? (uint8_t)d->size : 0;
    out->repeated = d->string && (d->flags & WASP_INSN_REP);
}

int wasp_isa_decode_access(const uint8_t *bytes, size_t n, uint64_t pc, const wasp_regs *regs,
                           wasp_access *out)
{
    wasp_insn d;
    if (wasp_insn_decode(bytes, n, &d) < 0)
        return -1;
    if (!has_mem(&d))
        return 0;
    fill(&d, pc, regs, out);
    return 1;
}

int wasp_isa_is_program_data(const wasp_access *a, const wasp_regs *regs)
{
    uint64_t sp = regs->gpr[4];
    uint64_t dist = a->addr > sp ? a->addr - sp : sp - a->addr;
    return a->addr >= 65536 && dist >= (1u << 20) && !a->rip_relative &&
           (a->addr < regs->vm_lo || a->addr >= regs->vm_hi);
}

/* Bit mask (by wasp_regs index) of the registers the address is computed from. */
static unsigned address_regs(const wasp_insn *d)
{
    unsigned m = 0;
    if (d->base >= 0 && d->base < WASP_REG_COUNT)
        m |= 1u << d->base;
    if (d->index >= 0)
        m |= 1u << d->index;
    return m;
}

int wasp_isa_find_access(const uint8_t *bytes, size_t n, uint64_t pc, const wasp_regs *regs,
                         int wanted, int max_insns, wasp_access *out, uint64_t *at)
{
    unsigned dirty = 0; /* registers written by the instructions scanned so far */
    size_t off = 0;
    for (int i = 0; i < max_insns && off < n; i++) {
        wasp_insn d;
        if (wasp_insn_decode(bytes + off, n - off, &d) < 0)
            return i == 0 ? -1 : 0;
        if (has_mem(&d) && !(address_regs(&d) & dirty)) {
            fill(&d, pc + off, regs, out);
            if ((out->kind & wanted) && wasp_isa_is_program_data(out, regs)) {
                *at = pc + off;
                return 1;
            }
        }
        if (d.flags & WASP_INSN_TRANSFER)
            return 0;
        dirty |= d.writes | d.cond_writes;
        off += d.length;
    }
    return 0;
}

/* Which writes of the instruction hit a register its own address uses:
 * CLOBBER_ALWAYS and/or CLOBBER_MAYBE (a conditional write), or 0. Then the
 * post-instruction registers may not reproduce the address. */
enum { CLOBBER_ALWAYS = 1, CLOBBER_MAYBE = 2 };
static unsigned clobbers_address(const wasp_insn *d)
{
    unsigned uses = address_regs(d);
    return ((d->writes & uses) ? CLOBBER_ALWAYS : 0u) | ((d->cond_writes & uses) ? CLOBBER_MAYBE : 0u);
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
 * `sldt (%rax)`, or as instructions compiled code never runs: `ficomp
 * -0x2e(%rsi)` (WASP_INSN_ODD). Accesses to Java objects always carry a
 * displacement (the object header comes first). */
static int plausible_data_access(const wasp_insn *d)
{
    return !(d->flags & WASP_INSN_ODD) && d->disp != 0;
}

/* Whether the k bytes ending the n-byte window `before` are an access that
 * may just have run, as far as the bytes alone tell (see prev_accesses). */
static int back_candidate(const uint8_t *before, size_t n, size_t k, wasp_insn *d)
{
    /* Not through the decode memo: most of these windows are no instruction
     * anyone runs, and would crowd out the ones the forward scan needs. */
    return !all_zero(before + (n - k), k) && wasp_insn_decode_exact(before + (n - k), k, d) == 0 &&
           has_mem(d) && !clobbers_address(d) && plausible_data_access(d);
}

/* What the backward search finds in a window, before registers are looked
 * at: the candidates, longest first. Remembered per window (one lookup per
 * sample instead of 15 decodes); windows with more candidates than fit are
 * searched again each time. */
enum { BACK_MAX = 2, BACK_MANY = 255 };
typedef struct back_plan {
    wasp_insn cand[BACK_MAX];
    uint8_t k[BACK_MAX];
    uint8_t count; /* or BACK_MANY */
    uint8_t sync;  /* synchronised_length of the whole window (0: none) */
    uint8_t pad_[8 - BACK_MAX - 2];
} back_plan;
_Static_assert(sizeof(back_plan) % 8 == 0, "back_plan must fill whole words");
/* 2048 windows, 256 KiB: one per sampled PC of the program's hot code. */
WASP_MEMO_DEFINE(back_memo, 11, sizeof(back_plan) / 8);

static void plan_back(const uint8_t *before, size_t n, back_plan *p)
{
    memset(p, 0, sizeof *p);
    for (size_t k = n; k >= 1; k--) {
        wasp_insn d;
        if (!back_candidate(before, n, k, &d))
            continue;
        if (p->count == BACK_MAX) {
            p->count = BACK_MANY;
            return;
        }
        p->cand[p->count] = d;
        p->k[p->count++] = (uint8_t)k;
    }
}

/* Where the instruction that ends at pc starts, as decoding forward from
 * earlier bytes sees it: x86 code resynchronises within a few instructions,
 * so chains started at several places agree on the last boundary before pc
 * when the bytes are code. w holds the n bytes before pc. Returns the length
 * of that last instruction (1..15) when every chain that ends exactly at pc
 * agrees and at least two do, else 0: no opinion. A chain that reaches a
 * place an earlier one passed takes that one's outcome, so the shared path
 * is decoded once, for its lengths only (wasp_insn_length: the memo answers
 * for instructions the forward scan decoded). */
enum { SYNC_STARTS = 4, SYNC_STEPS = WASP_SYNC_WINDOW, SYNC_FAILED = 0xff };
static size_t synchronised_length(const uint8_t *w, size_t n)
{
    /* outcome[pos]: 0 not reached yet; SYNC_FAILED; else 1 + the length of
     * the last instruction of a chain through pos that ends exactly at pc */
    uint8_t outcome[WASP_SYNC_WINDOW] = {0};
    size_t agreed = 0;
    int ends = 0;
    for (size_t s = 0; s < SYNC_STARTS && s + WASP_MAX_INSN < n; s++) {
        uint8_t path[SYNC_STEPS];
        int steps = 0;
        size_t pos = s;
        uint8_t result = SYNC_FAILED, last = 0;
        while (pos < n && steps < SYNC_STEPS) {
            if (outcome[pos]) {
                result = outcome[pos];
                break;
            }
            int len = wasp_insn_length(w + pos, n - pos);
            if (len <= 0 || pos + (size_t)len > n)
                break;
            path[steps++] = (uint8_t)pos;
            last = (uint8_t)len;
            pos += (size_t)len;
            if (pos == n)
                result = (uint8_t)(last + 1);
        }
        for (int k = 0; k < steps; k++)
            outcome[path[k]] = result;
        if (result == SYNC_FAILED)
            continue;
        if (ends++ && (size_t)result - 1 != agreed)
            return 0;
        agreed = (size_t)result - 1;
    }
    return ends >= 2 ? agreed : 0;
}

/* The memo's key for a window longer than one instruction (the memo keys at
 * most 15 bytes): a 64-bit digest of the whole window, then its last 7 bytes.
 * Another window answers only if its digest and last bytes both match: for
 * code freed and rewritten by the JIT, a negligible chance. */
enum { DIGEST_BYTES = 8 };
static void window_key(const uint8_t *w, size_t n, uint8_t key[WASP_MAX_INSN])
{
    uint64_t h = 0x6a09e667f3bcc909ull ^ n;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ w[i]) * 0x100000001b3ull;
        h ^= h >> 32;
    }
    memcpy(key, &h, DIGEST_BYTES);
    memcpy(key + DIGEST_BYTES, w + n - (WASP_MAX_INSN - DIGEST_BYTES), WASP_MAX_INSN - DIGEST_BYTES);
}

int wasp_isa_prev_accesses(const uint8_t *before, size_t n, uint64_t pc, const wasp_regs *regs,
                           wasp_access *out, int max)
{
    if (n == 0)
        return 0;
    /* The synchronisation decodes up to 64 bytes (a memo lookup per
     * instruction): remembered with the plan, one lookup per sample. */
    size_t window_n = n < WASP_SYNC_WINDOW ? n : WASP_SYNC_WINDOW;
    const uint8_t *window = before + (n - window_n);
    if (n > WASP_MAX_INSN) {
        before += n - WASP_MAX_INSN;
        n = WASP_MAX_INSN;
    }
    uint8_t digest_key[WASP_MAX_INSN];
    const uint8_t *key = before;
    size_t key_n = n;
    if (window_n > WASP_MAX_INSN) {
        window_key(window, window_n, digest_key);
        key = digest_key;
        key_n = sizeof digest_key;
    }
    back_plan p;
    if (!wasp_memo_get(&back_memo, key, key_n, &p)) {
        plan_back(before, n, &p);
        /* The synchronisation only chooses among candidates: a window with
         * none (half of them on the corpus's h2 and sablecc) needs none. */
        p.sync = p.count && window_n > WASP_MAX_INSN
                     ? (uint8_t)synchronised_length(window, window_n)
                     : 0;
        wasp_memo_put(&back_memo, key, key_n, &p);
    }
    size_t sync = p.sync;
    /* Where the earlier bytes say the last instruction starts, a candidate
     * of another length is the tail of a longer one, or spans two. */
    int found = 0;
    if (p.count != BACK_MANY) {
        for (int i = 0; i < p.count && found < max; i++) {
            if (sync && p.k[i] != sync)
                continue;
            fill(&p.cand[i], pc - p.k[i], regs, &out[found]);
            if (wasp_isa_is_program_data(&out[found], regs))
                found++;
        }
        return found;
    }
    for (size_t k = n; k >= 1 && found < max; k--) {
        wasp_insn d;
        if ((sync && k != sync) || !back_candidate(before, n, k, &d))
            continue;
        fill(&d, pc - k, regs, &out[found]);
        if (wasp_isa_is_program_data(&out[found], regs))
            found++;
    }
    return found;
}

int wasp_isa_recover_trap(const uint8_t *before, size_t n, uint64_t trap_pc, const wasp_regs *regs,
                          uint64_t watch_addr, uint32_t watch_len, wasp_access *out)
{
    /* Best candidate so far: tier 2 = address recomputed and overlapping the
     * watch, tier 1 = address lost because the instruction overwrote its own
     * base/index; within a tier, one compiled code runs before an odd one
     * (WASP_INSN_ODD: `xrelease mov %r12d, 0x8c(%rbx)`, the last byte of the
     * instruction before taken for a prefix of the mov). Ties go to the
     * longer length (iterated last), which keeps prefixes such as REX with
     * their instruction. */
    int best_tier = 0;
    if (n > WASP_MAX_INSN) { /* keep the window ending at trap_pc */
        before += n - WASP_MAX_INSN;
        n = WASP_MAX_INSN;
    }
    for (size_t k = 1; k <= n; k++) {
        wasp_insn d;
        /* Give the decoder exactly k bytes so it cannot run past trap_pc. */
        if (wasp_insn_decode(before + (n - k), k, &d) < 0 || d.length != k || !has_mem(&d))
            continue;
        wasp_access a;
        fill(&d, trap_pc - k, regs, &a);
        unsigned clobber = clobbers_address(&d);
        int overlaps = a.addr < watch_addr + watch_len && watch_addr < a.addr + a.size;
        int tier;
        if (overlaps && !(clobber & CLOBBER_ALWAYS)) {
            tier = 2; /* a conditional write (cmpxchg) may have left the base intact */
        } else if (clobber) {
            tier = 1;
            a.addr = watch_addr;
            a.addr_known = 0;
        } else {
            continue;
        }
        tier = 2 * tier + !(d.flags & WASP_INSN_ODD);
        if (tier >= best_tier) {
            best_tier = tier;
            *out = a;
        }
    }
    return best_tier > 0;
}

/* How far past a watched element a string instruction's pointer may be when
 * its trap comes: a page, since the page engine emulates a `rep stos`'s
 * elements on one page at once (and the CPU may report a debug register's
 * hit in a fast string operation a group of elements late). */
enum { STRING_LATE = 4096 };

/* Whether pointer p (after the trap) has just passed [watch_addr, +len). */
static int string_passed(uint64_t p, uint32_t size, int backward, uint64_t watch_addr,
                         uint32_t watch_len)
{
    uint64_t lo = backward ? p + size : p - STRING_LATE;
    uint64_t hi = backward ? p + size + STRING_LATE : p;
    return watch_addr < hi && lo < watch_addr + watch_len;
}

int wasp_isa_repeated_string(const uint8_t *bytes, size_t n)
{
    wasp_insn d;
    return n && wasp_insn_decode(bytes, n, &d) == 0 && d.string && (d.flags & WASP_INSN_REP);
}

int wasp_isa_string_trap(const uint8_t *at, size_t nat, const uint8_t *before, size_t nbefore,
                         const wasp_regs *regs, uint64_t watch_addr, uint32_t watch_len,
                         wasp_access *out)
{
    wasp_insn d;
    int running = nat && wasp_insn_decode(at, nat, &d) == 0 && d.string &&
                  (d.flags & WASP_INSN_REP);
    if (!running) {
        if (nbefore > WASP_MAX_INSN) {
            before += nbefore - WASP_MAX_INSN;
            nbefore = WASP_MAX_INSN;
        }
        /* The longest that decodes whole: its prefixes (rep, REX) are its own. */
        int found = 0;
        for (size_t k = nbefore; k >= 1 && !found; k--)
            found = wasp_insn_decode(before + (nbefore - k), k, &d) == 0 && d.length == k &&
                    d.string;
        if (!found)
            return 0;
    }
    uint8_t kind;
    if (string_passed(regs->gpr[7], d.size, regs->backward, watch_addr, watch_len))
        kind = WASP_ACCESS_STORE; /* rdi: the destination */
    else if (d.string == WASP_STRING_MOVS &&
             string_passed(regs->gpr[6], d.size, regs->backward, watch_addr, watch_len))
        kind = WASP_ACCESS_LOAD; /* rsi: movs's source */
    else
        return running ? -1 : 0;
    memset(out, 0, sizeof *out);
    out->addr = watch_addr;
    out->size = d.size;
    out->kind = kind;
    out->len = d.length;
    out->in_progress = (uint8_t)running;
    out->element = (uint8_t)d.size;
    out->repeated = (d.flags & WASP_INSN_REP) != 0;
    return 1;
}
