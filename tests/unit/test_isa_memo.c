/* The decode memo (src/isa/insn_memo.c): answers exactly what Zydis answers,
 * keyed by the bytes (so rewritten code is decoded afresh), and stays exact
 * when many threads fill and read the shared table at once. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "isa/insn.h"
#include "isa/isa.h"

/* Encodings HotSpot's JIT emits, plus odd ones: stores, loads, RIP-relative,
 * 0x67, cmpxchg, branches, and prefixes of longer instructions. */
static const struct {
    uint8_t len;
    uint8_t b[15];
} known[] = {
    {4, {0x89, 0x44, 0x8b, 0x10}},                         /* mov %eax,0x10(%rbx,%rcx,4) */
    {4, {0x8b, 0x54, 0xb9, 0x10}},                         /* mov 0x10(%rcx,%rdi,4),%edx */
    {7, {0xc7, 0x43, 0x0c, 0x2a, 0x00, 0x00, 0x00}},       /* movl $42,0xc(%rbx) */
    {7, {0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00}},       /* mov 0x10(%rip),%rax */
    {4, {0x67, 0x8b, 0x43, 0x08}},                         /* mov 0x8(%ebx),%eax */
    {5, {0xf0, 0x48, 0x0f, 0xb1, 0x0b}},                   /* lock cmpxchg %rcx,(%rbx) */
    {6, {0xc5, 0xfb, 0x11, 0x44, 0xc8, 0x10}},             /* vmovsd %xmm0,0x10(%rax,%rcx,8) */
    {2, {0x75, 0xf0}},                                     /* jne */
    {3, {0x85, 0x02, 0x00}},                               /* test %eax,(%rdx) + junk */
    {1, {0xc7}},                                           /* the first byte of a movl */
    {2, {0x48, 0x8b}},                                     /* prefix + opcode, no modrm */
};

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint8_t next_byte(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint8_t)rng;
}

static void assert_same_as_zydis(const uint8_t *b, size_t n)
{
    wasp_insn direct, memo;
    int rd = wasp_insn_decode_direct(b, n, &direct);
    int rm = wasp_insn_decode(b, n, &memo);
    assert_int_equal(rd, rm);
    assert_memory_equal(&direct, &memo, sizeof direct);
    /* Decoded once: now in the table, and the table answers the same. */
    wasp_insn again;
    assert_int_equal(wasp_memo_get(&wasp_insn_memo, b, n, &again), 1);
    assert_memory_equal(&direct, &again, sizeof direct);
    assert_int_equal(wasp_insn_decode(b, n, &memo), rd);
    assert_memory_equal(&direct, &memo, sizeof direct);
    /* The exact-length decode: the same instruction when it is n bytes long. */
    wasp_insn exact;
    int re = wasp_insn_decode_exact(b, n, &exact);
    if (rd == 0 && direct.length == n) {
        assert_int_equal(re, 0);
        assert_memory_equal(&direct, &exact, sizeof direct);
    } else {
        assert_int_equal(re, -1);
    }
}

static void memo_answers_what_zydis_answers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        for (size_t n = 1; n <= known[i].len; n++)
            assert_same_as_zydis(known[i].b, n);
    uint8_t b[15];
    for (int i = 0; i < 20000; i++) {
        size_t n = 1 + next_byte() % 15;
        for (size_t j = 0; j < n; j++)
            b[j] = next_byte();
        assert_same_as_zydis(b, n);
    }
}

/* A memory operand decodes to the facts the analyses use. */
static void decoded_facts(void **state)
{
    (void)state;
    wasp_insn d;
    assert_int_equal(wasp_insn_decode(known[0].b, known[0].len, &d), 0);
    assert_true(d.flags & WASP_INSN_MEM);
    assert_int_equal(d.length, 4);
    assert_int_equal(d.base, 3);  /* rbx */
    assert_int_equal(d.index, 1); /* rcx */
    assert_int_equal(d.scale, 4);
    assert_int_equal(d.disp, 0x10);
    assert_int_equal(d.size, 4);
    assert_int_equal(d.kind, WASP_ACCESS_STORE);
    assert_int_equal(d.src_reg, 0); /* eax */

    assert_int_equal(wasp_insn_decode(known[5].b, known[5].len, &d), 0); /* cmpxchg */
    assert_true(d.cond_writes & 1u); /* rax, when the compare fails */

    assert_int_equal(wasp_insn_decode(known[7].b, known[7].len, &d), 0); /* jne */
    assert_true(d.flags & WASP_INSN_TRANSFER);
    assert_false(d.flags & WASP_INSN_MEM);

    assert_int_equal(wasp_insn_decode(known[10].b, 2, &d), -1); /* cut short */
    assert_int_equal(d.flags, 0);
}

/* The JIT frees code and reuses its addresses: the memo is keyed by bytes,
 * and by how many there are, never by where they were. */
static void keyed_by_bytes_and_length(void **state)
{
    (void)state;
    uint8_t b[7];
    memcpy(b, known[2].b, sizeof b); /* movl $42,0xc(%rbx) */
    wasp_insn d;
    assert_int_equal(wasp_insn_decode(b, 7, &d), 0);
    assert_int_equal(d.imm, 42);
    b[3] = 7; /* now movl $7,0xc(%rbx) */
    assert_int_equal(wasp_insn_decode(b, 7, &d), 0);
    assert_int_equal(d.imm, 7);
    assert_int_equal(wasp_insn_decode(b, 6, &d), -1); /* too short to decode */
    assert_int_equal(wasp_insn_decode(b, 7, &d), 0);
}

/* The backward search remembers each window's candidates: asked again, it
 * answers exactly as the first time, also where more candidates end at the PC
 * than a table entry holds (searched afresh each time). */
static void backward_search_repeats_itself(void **state)
{
    (void)state;
    /* All of it: vm_lo/vm_hi left to the stack's garbage could cover the
     * addresses below, and the search would rightly reject them all. */
    wasp_regs regs;
    memset(&regs, 0, sizeof regs);
    for (int i = 0; i < WASP_REG_COUNT; i++)
        regs.gpr[i] = 0x7f0000000000ull + (uint64_t)i * 0x10000;
    regs.gpr[4] = 0x10000; /* sp far from every address above */
    int many = 0, some = 0;
    uint8_t w[15];
    for (int i = 0; i < 20000; i++) {
        for (int j = 0; j < 15; j++)
            w[j] = next_byte();
        if (i % 3 == 0) /* end on a real access */
            memcpy(w + 15 - known[i % 7].len, known[i % 7].b, known[i % 7].len);
        uint64_t pc = 0x7e0000001000ull + (uint64_t)i;
        wasp_access first[4], again[4];
        memset(first, 0, sizeof first);
        memset(again, 0, sizeof again);
        int n1 = wasp_isa_prev_accesses(w, sizeof w, pc, &regs, first, 4);
        int n2 = wasp_isa_prev_accesses(w, sizeof w, pc, &regs, again, 4);
        assert_int_equal(n1, n2);
        assert_memory_equal(first, again, sizeof first);
        /* max 1: the longest of them */
        wasp_access one;
        assert_int_equal(wasp_isa_prev_accesses(w, sizeof w, pc, &regs, &one, 1), n1 > 0);
        if (n1 > 0)
            assert_int_equal(one.len, first[0].len);
        many += n1 > 2;
        some += n1 > 0;
    }
    assert_true(some > 1000);
    assert_true(many > 0);
}

/* Many threads decode overlapping sets of windows at once: far more windows
 * than the table holds, so entries are overwritten while others read them.
 * Every answer must still be Zydis' answer (a torn read would not be). */
enum { CORPUS = 30000, THREADS = 4, ROUNDS = 150000 };
static uint8_t corpus[CORPUS][15];
static uint8_t corpus_len[CORPUS];
static wasp_insn expected[CORPUS];

static void *hammer(void *arg)
{
    uint64_t x = (uint64_t)(uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
    long wrong = 0;
    for (int r = 0; r < ROUNDS; r++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* Half the time a small hot set (hits), else anywhere (misses, evictions). */
        size_t i = (x >> 20) % ((x & 1) ? 64 : CORPUS);
        wasp_insn d;
        wasp_insn_decode(corpus[i], corpus_len[i], &d);
        if (memcmp(&d, &expected[i], sizeof d) != 0)
            wrong++;
    }
    return (void *)wrong;
}

static void concurrent_fill_and_read(void **state)
{
    (void)state;
    for (int i = 0; i < CORPUS; i++) {
        /* Mostly real instructions with varied operands, some random bytes. */
        const uint8_t *k = known[i % 7].b;
        corpus_len[i] = known[i % 7].len;
        memcpy(corpus[i], k, corpus_len[i]);
        corpus[i][corpus_len[i] - 1] ^= (uint8_t)(i >> 3);
        if (i % 5 == 0)
            for (int j = 0; j < corpus_len[i]; j++)
                corpus[i][j] = next_byte();
        wasp_insn_decode_direct(corpus[i], corpus_len[i], &expected[i]);
    }
    pthread_t th[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, hammer, (void *)(i + 1)), 0);
    long wrong = 0;
    for (int i = 0; i < THREADS; i++) {
        void *w;
        pthread_join(th[i], &w);
        wrong += (long)w;
    }
    assert_int_equal(wrong, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(memo_answers_what_zydis_answers),
        cmocka_unit_test(decoded_facts),
        cmocka_unit_test(keyed_by_bytes_and_length),
        cmocka_unit_test(backward_search_repeats_itself),
        cmocka_unit_test(concurrent_fill_and_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
