/*
 * Unit tests for wasp_isa_recover_trap: given the bytes that end at a
 * watchpoint's trap PC and the post-instruction registers, find the
 * instruction that touched the watched range.
 * Code bytes come from GNU as + objdump -d (AT&T text in the comments).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "isa/isa.h"

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };

#define CODE 0x7f0000200000ull /* where the code buffer pretends to live */

static wasp_regs regs(void)
{
    wasp_regs r = {0};
    for (int i = 0; i < WASP_REG_COUNT; i++)
        r.gpr[i] = 0x10000ull * (uint64_t)(i + 1);
    return r;
}

/* Run recovery as the trap handler would: trap_pc = CODE + end, and `before`
 * is the up-to-15 bytes of code ending there (fewer near the buffer start). */
static int recover(const uint8_t *code, size_t end, wasp_regs *r, uint64_t watch, uint32_t wlen,
                   wasp_access *out)
{
    size_t n = end < WASP_MAX_INSN ? end : WASP_MAX_INSN;
    uint64_t trap_pc = CODE + end;
    r->rip = trap_pc;
    memset(out, 0xa5, sizeof *out);
    return wasp_isa_recover_trap(code + end - n, n, trap_pc, r, watch, wlen, out);
}

/* Sixteen nops in front make sure `before` is always a full 15 bytes. */
#define NOPS16 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90

static void test_store_after_load(void **state)
{
    (void)state;
    static const uint8_t code[] = {
        NOPS16,
        0x8b, 0x43, 0x10,       /* 16: mov 0x10(%rbx),%eax */
        0x89, 0x4c, 0x02, 0x08, /* 19: mov %ecx,0x8(%rdx,%rax,1) */
    };
    wasp_regs r = regs();
    wasp_access a;
    uint64_t ea = r.gpr[RDX] + r.gpr[RAX] + 8;
    assert_int_equal(recover(code, 23, &r, ea, 4, &a), 1);
    assert_int_equal(a.len, 4);
    assert_int_equal(a.addr, ea);
    assert_int_equal(a.size, 4);
    assert_int_equal(a.kind, WASP_ACCESS_STORE);
    assert_int_equal(a.addr_known, 1);
}

/* The last bytes of `mov %ecx,0x8(%rdx,%rax,1)` also decode on their own:
 * `02 08` is add (%rax),%cl and `4c 02 08` is rex.WR add (%rax),%r9b.
 * The watched address decides which instruction it was. */
static void test_shorter_suffix_decodes(void **state)
{
    (void)state;
    static const uint8_t code[] = {NOPS16, 0x89, 0x4c, 0x02, 0x08}; /* mov %ecx,0x8(%rdx,%rax,1) */
    wasp_regs r = regs();
    wasp_access a;
    /* Watch inside the real store (not its first byte): the full instruction wins. */
    assert_int_equal(recover(code, 20, &r, r.gpr[RDX] + r.gpr[RAX] + 8 + 2, 1, &a), 1);
    assert_int_equal(a.len, 4);
    assert_int_equal(a.addr, r.gpr[RDX] + r.gpr[RAX] + 8);
    /* Watch at (%rax): only the byte-sized adds touch it; the longer one wins. */
    assert_int_equal(recover(code, 20, &r, r.gpr[RAX], 1, &a), 1);
    assert_int_equal(a.len, 3);
    assert_int_equal(a.size, 1);
    assert_int_equal(a.kind, WASP_ACCESS_LOAD);
    /* Watch elsewhere: nothing plausible. */
    assert_int_equal(recover(code, 20, &r, 0x1234560, 8, &a), 0);
}

/* Longest wins among overlapping candidates: `48 89 03` vs its suffix `89 03`. */
static void test_rex_prefix_kept(void **state)
{
    (void)state;
    static const uint8_t code[] = {NOPS16, 0x48, 0x89, 0x03}; /* mov %rax,(%rbx) */
    wasp_regs r = regs();
    wasp_access a;
    assert_int_equal(recover(code, 19, &r, r.gpr[RBX], 8, &a), 1);
    assert_int_equal(a.len, 3);
    assert_int_equal(a.size, 8);
    assert_int_equal(a.kind, WASP_ACCESS_STORE);
}

/* The load overwrote its own base, so the address cannot be recomputed. */
static void test_self_overwriting_load(void **state)
{
    (void)state;
    static const uint8_t code[] = {
        NOPS16,
        0x48, 0x89, 0xf7,       /* 16: mov %rsi,%rdi */
        0x48, 0x8b, 0x40, 0x10, /* 19: mov 0x10(%rax),%rax */
    };
    wasp_regs r = regs();
    uint64_t watch = 0x5550010;
    r.gpr[RAX] = 0xcafe; /* the loaded value: 0xcafe + 0x10 is not the watch */
    wasp_access a;
    assert_int_equal(recover(code, 23, &r, watch, 8, &a), 1);
    assert_int_equal(a.len, 4); /* not the 3-byte suffix mov 0x10(%rax),%eax */
    assert_int_equal(a.addr_known, 0);
    assert_int_equal(a.addr, watch);
    assert_int_equal(a.size, 8);
    assert_int_equal(a.kind, WASP_ACCESS_LOAD);
    /* Even if the new %rax happens to point at the watch, the recomputed
     * address is a coincidence and must not be reported as known. */
    r.gpr[RAX] = watch - 0x10;
    assert_int_equal(recover(code, 23, &r, watch, 8, &a), 1);
    assert_int_equal(a.len, 4);
    assert_int_equal(a.addr_known, 0);
    assert_int_equal(a.addr, watch);
}

/* Same with the index register overwritten: an array-of-pointers load. */
static void test_self_overwriting_index(void **state)
{
    (void)state;
    static const uint8_t code[] = {NOPS16, 0x48, 0x8b, 0x04, 0xc2}; /* mov (%rdx,%rax,8),%rax */
    wasp_regs r = regs();
    uint64_t watch = 0x5550010;
    r.gpr[RAX] = 0x123458; /* loaded value: rdx + 8*rax misses the watch */
    wasp_access a;
    assert_int_equal(recover(code, 20, &r, watch, 8, &a), 1);
    assert_int_equal(a.len, 4);
    assert_int_equal(a.addr_known, 0);
    assert_int_equal(a.addr, watch);
}

/* Atomics that use %rax as their base. cmpxchg writes %eax only when the
 * compare fails, so an overlapping recomputed address is still trusted;
 * xadd always overwrites %rax. */
static void test_atomics_on_rax(void **state)
{
    (void)state;
    static const uint8_t code[] = {
        NOPS16,
        0xf0, 0x0f, 0xb1, 0x08,       /* 16: lock cmpxchg %ecx,(%rax) */
        0xf0, 0x48, 0x0f, 0xc1, 0x00, /* 20: lock xadd %rax,(%rax) */
    };
    wasp_regs r = regs();
    wasp_access a;
    assert_int_equal(recover(code, 20, &r, r.gpr[RAX], 4, &a), 1);
    assert_int_equal(a.len, 4);
    assert_int_equal(a.addr_known, 1);
    assert_int_equal(a.addr, r.gpr[RAX]);
    assert_int_equal(a.kind, WASP_ACCESS_LOAD | WASP_ACCESS_STORE);
    uint64_t watch = 0x7770000;
    r.gpr[RAX] = 41; /* the old memory value xadd left in %rax */
    assert_int_equal(recover(code, 25, &r, watch, 8, &a), 1);
    assert_int_equal(a.len, 5); /* longer than the unlocked 4-byte suffix */
    assert_int_equal(a.addr_known, 0);
    assert_int_equal(a.addr, watch);
    assert_int_equal(a.size, 8);
}

/* A store through a register it does not write, whose address no longer
 * matches, is not plausible: no false recovery. */
static void test_mismatch_rejected(void **state)
{
    (void)state;
    static const uint8_t code[] = {NOPS16, 0x89, 0x43, 0x10}; /* mov %eax,0x10(%rbx) */
    wasp_regs r = regs();
    wasp_access a;
    assert_int_equal(recover(code, 19, &r, r.gpr[RBX] + 0x18, 4, &a), 0);
    /* Adjacent but overlapping by one byte is a hit. */
    assert_int_equal(recover(code, 19, &r, r.gpr[RBX] + 0x13, 4, &a), 1);
    assert_int_equal(a.len, 3);
}

static void test_rip_relative_store(void **state)
{
    (void)state;
    static const uint8_t code[] = {
        NOPS16,
        0x83, 0xc1, 0x01,                   /* 16: add $0x1,%ecx */
        0x89, 0x05, 0x00, 0x01, 0x00, 0x00, /* 19: mov %eax,0x100(%rip) */
    };
    wasp_regs r = regs();
    wasp_access a;
    uint64_t target = CODE + 25 + 0x100; /* next instruction + disp */
    assert_int_equal(recover(code, 25, &r, target, 4, &a), 1);
    assert_int_equal(a.len, 6);
    assert_int_equal(a.addr, target);
    assert_int_equal(a.rip_relative, 1);
    assert_int_equal(a.kind, WASP_ACCESS_STORE);
    assert_int_equal(a.addr_known, 1);
}

/* A 32-byte vector store trapping on an aligned 8-byte watch inside it. */
static void test_vector_store(void **state)
{
    (void)state;
    static const uint8_t code[] = {
        NOPS16,
        0xc5, 0xfe, 0x6f, 0x06,       /* 16: vmovdqu (%rsi),%ymm0 */
        0xc5, 0xfe, 0x7f, 0x47, 0x20, /* 20: vmovdqu %ymm0,0x20(%rdi) */
    };
    wasp_regs r = regs();
    wasp_access a;
    assert_int_equal(recover(code, 25, &r, r.gpr[RDI] + 0x30, 8, &a), 1);
    assert_int_equal(a.len, 5);
    assert_int_equal(a.addr, r.gpr[RDI] + 0x20);
    assert_int_equal(a.size, 32);
    assert_int_equal(a.kind, WASP_ACCESS_STORE);
}

/* Compressed-oop double store and an RMW followed by another instruction. */
static void test_oop_float_and_rmw(void **state)
{
    (void)state;
    static const uint8_t code[] = {
        NOPS16,
        0xf2, 0x43, 0x0f, 0x11, 0x44, 0xdc, 0x10, /* 16: movsd %xmm0,0x10(%r12,%r11,8) */
        0x48, 0x87, 0x03,                         /* 23: xchg %rax,(%rbx) */
        0x48, 0x83, 0xc4, 0x18,                   /* 26: add $0x18,%rsp */
    };
    wasp_regs r = regs();
    wasp_access a;
    uint64_t ea = r.gpr[R12] + r.gpr[R11] * 8 + 0x10;
    assert_int_equal(recover(code, 23, &r, ea, 8, &a), 1);
    assert_int_equal(a.len, 7);
    assert_int_equal(a.float_size, 8);
    assert_int_equal(a.addr, ea);
    /* xchg writes %rax, which is not part of its address: still known. */
    assert_int_equal(recover(code, 26, &r, r.gpr[RBX], 8, &a), 1);
    assert_int_equal(a.len, 3);
    assert_int_equal(a.kind, WASP_ACCESS_LOAD | WASP_ACCESS_STORE);
    assert_int_equal(a.addr_known, 1);
    /* Trap PC after `add $0x18,%rsp`, which has no memory operand. */
    assert_int_equal(recover(code, 30, &r, r.gpr[RBX], 8, &a), 0);
}

/* Short history near the start of a code region, and no bytes at all. */
static void test_short_history(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x89, 0x43, 0x10}; /* mov %eax,0x10(%rbx) */
    wasp_regs r = regs();
    wasp_access a;
    assert_int_equal(recover(code, 3, &r, r.gpr[RBX] + 0x10, 4, &a), 1);
    assert_int_equal(a.len, 3);
    assert_int_equal(recover(code, 0, &r, r.gpr[RBX] + 0x10, 4, &a), 0);
    /* More than 15 bytes of history: only the last 15 matter. */
    static const uint8_t longer[] = {NOPS16, 0x90, 0x90, 0x90, 0x89, 0x43, 0x10};
    assert_int_equal(wasp_isa_recover_trap(longer, sizeof longer, CODE + sizeof longer, &r, r.gpr[RBX] + 0x10, 4,
                                           &a), 1);
    assert_int_equal(a.len, 3);
    assert_int_equal(a.addr, r.gpr[RBX] + 0x10);
}

/* A byte of the instruction before read as a prefix: `f3` in front of
 * `mov %r12d,0x8c(%rbx)` decodes as `xrelease mov`, longer, at the same
 * address; compiled code never takes the prefix, so the mov alone is the
 * access (the report showed the xrelease form). */
static void test_stray_prefix(void **state)
{
    (void)state;
    static const uint8_t code[] = {NOPS16, 0xc5, 0xfa, 0x10, 0xf3, /* vmovss %xmm3,%xmm0,%xmm6 */
                                   0x44, 0x89, 0xa3, 0x8c, 0x00, 0x00, 0x00};
    wasp_regs r = regs();
    wasp_access a;
    assert_int_equal(recover(code, sizeof code, &r, r.gpr[RBX] + 0x8c, 4, &a), 1);
    assert_int_equal(a.len, 7);
    assert_int_equal(a.addr, r.gpr[RBX] + 0x8c);
    assert_int_equal(a.kind, WASP_ACCESS_STORE);
}

/* String instructions (wasp_isa_string_trap): a repeated one traps with the
 * PC still on it, rdi (movs: rsi too) just past the element that touched
 * the watch; a finished one like any other instruction. */
static void test_string_traps(void **state)
{
    (void)state;
    static const uint8_t running[] = {0xf3, 0xaa, 0x90};       /* rep stos %al,%es:(%rdi) */
    static const uint8_t movsq[] = {NOPS16, 0xf3, 0x48, 0xa5}; /* rep movsq (finished) */
    static const uint8_t plain[] = {NOPS16, 0x89, 0x4c, 0x02, 0x08};
    wasp_regs r = regs();
    wasp_access a;
    uint64_t watch = 0x5000;

    /* rdi one past the watched byte: this element wrote it. */
    r.gpr[RDI] = watch + 1;
    assert_int_equal(wasp_isa_string_trap(running, sizeof running, NULL, 0, &r, watch, 1, &a), 1);
    assert_int_equal(a.kind, WASP_ACCESS_STORE);
    assert_int_equal(a.in_progress, 1);
    assert_int_equal(a.len, 2);
    assert_int_equal(a.element, 1);
    assert_int_equal(a.addr, watch);
    /* A page's elements at once (the page engine's emulation): still it. */
    r.gpr[RDI] = watch + 4000;
    assert_int_equal(wasp_isa_string_trap(running, sizeof running, NULL, 0, &r, watch, 8, &a), 1);
    /* Not reached yet: its later trap is the one. */
    r.gpr[RDI] = watch - 16;
    assert_int_equal(wasp_isa_string_trap(running, sizeof running, NULL, 0, &r, watch, 8, &a), -1);
    /* Walking down (DF): the element just written is above rdi. */
    r.backward = 1;
    r.gpr[RDI] = watch - 1;
    assert_int_equal(wasp_isa_string_trap(running, sizeof running, NULL, 0, &r, watch, 1, &a), 1);
    r.backward = 0;

    /* A finished movs: its source side loaded the watched word. */
    r.gpr[RDI] = 0x90000;
    r.gpr[RSI] = watch + 8;
    assert_int_equal(wasp_isa_string_trap(NULL, 0, movsq, sizeof movsq, &r, watch, 8, &a), 1);
    assert_int_equal(a.kind, WASP_ACCESS_LOAD);
    assert_int_equal(a.in_progress, 0);
    assert_int_equal(a.len, 3);
    assert_int_equal(a.element, 8);
    /* ... and its destination side stored it. */
    r.gpr[RSI] = 0x90000;
    r.gpr[RDI] = watch + 8;
    assert_int_equal(wasp_isa_string_trap(NULL, 0, movsq, sizeof movsq, &r, watch, 8, &a), 1);
    assert_int_equal(a.kind, WASP_ACCESS_STORE);
    /* Finished and elsewhere: not it. No string instruction: none. */
    r.gpr[RDI] = r.gpr[RSI] = 0x90000;
    assert_int_equal(wasp_isa_string_trap(NULL, 0, movsq, sizeof movsq, &r, watch, 8, &a), 0);
    assert_int_equal(wasp_isa_string_trap(plain + 16, 4, plain, sizeof plain, &r, watch, 8, &a), 0);
}

/* The samples the debug-register engine charges for its slowdown of
 * string moves: repeated stos and movs only. */
static void test_repeated_string(void **state)
{
    (void)state;
    static const uint8_t rep_stosb[] = {0xf3, 0xaa};
    static const uint8_t rep_movsq[] = {0xf3, 0x48, 0xa5};
    static const uint8_t stosb[] = {0xaa};               /* one element, no rep */
    static const uint8_t repe_cmpsb[] = {0xf3, 0xa6};    /* a compare, not a move */
    static const uint8_t mov[] = {0x89, 0x4c, 0x02, 0x08};
    assert_true(wasp_isa_repeated_string(rep_stosb, sizeof rep_stosb));
    assert_true(wasp_isa_repeated_string(rep_movsq, sizeof rep_movsq));
    assert_false(wasp_isa_repeated_string(stosb, sizeof stosb));
    assert_false(wasp_isa_repeated_string(repe_cmpsb, sizeof repe_cmpsb));
    assert_false(wasp_isa_repeated_string(mov, sizeof mov));
    assert_false(wasp_isa_repeated_string(rep_stosb, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_after_load),      cmocka_unit_test(test_shorter_suffix_decodes),
        cmocka_unit_test(test_rex_prefix_kept),       cmocka_unit_test(test_self_overwriting_load),
        cmocka_unit_test(test_mismatch_rejected),     cmocka_unit_test(test_rip_relative_store),
        cmocka_unit_test(test_vector_store),          cmocka_unit_test(test_oop_float_and_rmw),
        cmocka_unit_test(test_short_history),         cmocka_unit_test(test_atomics_on_rax),
        cmocka_unit_test(test_self_overwriting_index), cmocka_unit_test(test_string_traps),
        cmocka_unit_test(test_stray_prefix),          cmocka_unit_test(test_repeated_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
