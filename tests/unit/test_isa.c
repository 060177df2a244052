/*
 * Unit tests for src/isa: wasp_isa_decode_access, wasp_isa_format_att,
 * wasp_isa_regs_from_ucontext and wasp_safe_read.
 * Instruction bytes were produced with GNU as + objdump -d on x86-64; the
 * comment next to each shows objdump's AT&T text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "isa/isa.h"

#define PC 0x7f0000001000ull

/* Registers with distinct values: gpr[i] = 0x10000 * (i + 1). */
static wasp_regs regs(void)
{
    wasp_regs r = {0};
    for (int i = 0; i < WASP_REG_COUNT; i++)
        r.gpr[i] = 0x10000ull * (uint64_t)(i + 1);
    r.rip = PC;
    return r;
}
enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };

/* Bytes as a compound literal plus its length: decode(&a, B(0x8b, 0x43, 0x10)). */
#define B(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})

/* Decode at PC with regs(); poison out first so stale fields cannot pass. */
static int decode(wasp_access *out, const uint8_t *bytes, size_t n)
{
    wasp_regs r = regs();
    memset(out, 0xa5, sizeof *out);
    return wasp_isa_decode_access(bytes, n, PC, &r, out);
}

static void check(const wasp_access *a, uint64_t addr, uint32_t size, unsigned kind, unsigned len,
                  unsigned float_size)
{
    assert_int_equal(a->addr, addr);
    assert_int_equal(a->size, size);
    assert_int_equal(a->kind, kind);
    assert_int_equal(a->len, len);
    assert_int_equal(a->float_size, float_size);
    assert_int_equal(a->addr_known, 1);
}

static void test_load_store_rmw(void **state)
{
    (void)state;
    wasp_regs r = regs();
    wasp_access a;
    /* mov 0x10(%rbx),%eax */
    assert_int_equal(decode(&a, B(0x8b, 0x43, 0x10)), 1);
    check(&a, r.gpr[RBX] + 0x10, 4, WASP_ACCESS_LOAD, 3, 0);
    assert_int_equal(a.rip_relative, 0);
    /* mov %eax,0x10(%rbx) */
    assert_int_equal(decode(&a, B(0x89, 0x43, 0x10)), 1);
    check(&a, r.gpr[RBX] + 0x10, 4, WASP_ACCESS_STORE, 3, 0);
    /* movb $0x1,(%rax) */
    assert_int_equal(decode(&a, B(0xc6, 0x00, 0x01)), 1);
    check(&a, r.gpr[RAX], 1, WASP_ACCESS_STORE, 3, 0);
    /* add %eax,(%rbx) */
    assert_int_equal(decode(&a, B(0x01, 0x03)), 1);
    check(&a, r.gpr[RBX], 4, WASP_ACCESS_LOAD | WASP_ACCESS_STORE, 2, 0);
    /* incl (%rax) */
    assert_int_equal(decode(&a, B(0xff, 0x00)), 1);
    check(&a, r.gpr[RAX], 4, WASP_ACCESS_LOAD | WASP_ACCESS_STORE, 2, 0);
    /* xchg %rax,(%rbx) */
    assert_int_equal(decode(&a, B(0x48, 0x87, 0x03)), 1);
    check(&a, r.gpr[RBX], 8, WASP_ACCESS_LOAD | WASP_ACCESS_STORE, 3, 0);
    /* lock cmpxchg %ecx,(%rdx) */
    assert_int_equal(decode(&a, B(0xf0, 0x0f, 0xb1, 0x0a)), 1);
    check(&a, r.gpr[RDX], 4, WASP_ACCESS_LOAD | WASP_ACCESS_STORE, 4, 0);
}

static void test_compare_is_load(void **state)
{
    (void)state;
    wasp_regs r = regs();
    wasp_access a;
    /* cmp %eax,0x8(%rbx) */
    assert_int_equal(decode(&a, B(0x39, 0x43, 0x08)), 1);
    check(&a, r.gpr[RBX] + 8, 4, WASP_ACCESS_LOAD, 3, 0);
    /* test %ecx,(%rdx) */
    assert_int_equal(decode(&a, B(0x85, 0x0a)), 1);
    check(&a, r.gpr[RDX], 4, WASP_ACCESS_LOAD, 2, 0);
    /* cmpl $0x0,0xc(%r12,%r11,8) */
    assert_int_equal(decode(&a, B(0x43, 0x83, 0x7c, 0xdc, 0x0c, 0x00)), 1);
    check(&a, r.gpr[R12] + r.gpr[R11] * 8 + 0xc, 4, WASP_ACCESS_LOAD, 6, 0);
}

static void test_addressing_modes(void **state)
{
    (void)state;
    wasp_regs r = regs();
    wasp_access a;
    /* mov %rcx,-0x20(%rdx,%rsi,8) */
    assert_int_equal(decode(&a, B(0x48, 0x89, 0x4c, 0xf2, 0xe0)), 1);
    check(&a, r.gpr[RDX] + r.gpr[RSI] * 8 - 0x20, 8, WASP_ACCESS_STORE, 5, 0);
    /* compressed oop: mov 0x10(%r12,%r11,8),%eax */
    assert_int_equal(decode(&a, B(0x43, 0x8b, 0x44, 0xdc, 0x10)), 1);
    check(&a, r.gpr[R12] + r.gpr[R11] * 8 + 0x10, 4, WASP_ACCESS_LOAD, 5, 0);
}

static void test_address_size_override(void **state)
{
    (void)state;
    static const uint8_t b[] = {0x67, 0x89, 0x44, 0x8b, 0x10}; /* mov %eax,0x10(%ebx,%ecx,4) */
    wasp_regs r = regs();
    /* Upper halves must be ignored, and the sum must wrap at 4 GiB. */
    r.gpr[RBX] = 0xdead0000fffffff0ull;
    r.gpr[RCX] = 0xbeef000000000001ull;
    wasp_access a;
    assert_int_equal(wasp_isa_decode_access(b, sizeof b, PC, &r, &a), 1);
    check(&a, (0xfffffff0ull + 4 + 0x10) & 0xffffffffull, 4, WASP_ACCESS_STORE, 5, 0);
    /* mov (%eax),%ecx */
    static const uint8_t c[] = {0x67, 0x8b, 0x08};
    r.gpr[RAX] = 0x1234567887654321ull;
    assert_int_equal(wasp_isa_decode_access(c, sizeof c, PC, &r, &a), 1);
    check(&a, 0x87654321ull, 4, WASP_ACCESS_LOAD, 3, 0);
}

static void test_rip_relative(void **state)
{
    (void)state;
    wasp_access a;
    /* mov 0x1234(%rip),%rax */
    assert_int_equal(decode(&a, B(0x48, 0x8b, 0x05, 0x34, 0x12, 0x00, 0x00)), 1);
    check(&a, PC + 7 + 0x1234, 8, WASP_ACCESS_LOAD, 7, 0);
    assert_int_equal(a.rip_relative, 1);
    /* mov %eax,-0x100(%rip) */
    assert_int_equal(decode(&a, B(0x89, 0x05, 0x00, 0xff, 0xff, 0xff)), 1);
    check(&a, PC + 6 - 0x100, 4, WASP_ACCESS_STORE, 6, 0);
    assert_int_equal(a.rip_relative, 1);
}

static void test_sse_float(void **state)
{
    (void)state;
    wasp_regs r = regs();
    wasp_access a;
    /* movsd (%rax),%xmm0 */
    assert_int_equal(decode(&a, B(0xf2, 0x0f, 0x10, 0x00)), 1);
    check(&a, r.gpr[RAX], 8, WASP_ACCESS_LOAD, 4, 8);
    /* movsd %xmm1,0x8(%rdi) */
    assert_int_equal(decode(&a, B(0xf2, 0x0f, 0x11, 0x4f, 0x08)), 1);
    check(&a, r.gpr[RDI] + 8, 8, WASP_ACCESS_STORE, 5, 8);
    /* movss (%rax),%xmm0 */
    assert_int_equal(decode(&a, B(0xf3, 0x0f, 0x10, 0x00)), 1);
    check(&a, r.gpr[RAX], 4, WASP_ACCESS_LOAD, 4, 4);
    /* addsd 0x10(%rsi),%xmm2 */
    assert_int_equal(decode(&a, B(0xf2, 0x0f, 0x58, 0x56, 0x10)), 1);
    check(&a, r.gpr[RSI] + 0x10, 8, WASP_ACCESS_LOAD, 5, 8);
    /* movaps (%rax),%xmm0: packed floats */
    assert_int_equal(decode(&a, B(0x0f, 0x28, 0x00)), 1);
    check(&a, r.gpr[RAX], 16, WASP_ACCESS_LOAD, 3, 4);
    /* movq %xmm0,(%rax): integer, not float */
    assert_int_equal(decode(&a, B(0x66, 0x0f, 0xd6, 0x00)), 1);
    check(&a, r.gpr[RAX], 8, WASP_ACCESS_STORE, 4, 0);
}

static void test_vector(void **state)
{
    (void)state;
    wasp_regs r = regs();
    wasp_access a;
    /* vmovdqu %ymm0,(%rdi) */
    assert_int_equal(decode(&a, B(0xc5, 0xfe, 0x7f, 0x07)), 1);
    check(&a, r.gpr[RDI], 32, WASP_ACCESS_STORE, 4, 0);
    /* vmovdqu64 %zmm1,0x40(%rax) */
    assert_int_equal(decode(&a, B(0x62, 0xf1, 0xfe, 0x48, 0x7f, 0x48, 0x01)), 1);
    check(&a, r.gpr[RAX] + 0x40, 64, WASP_ACCESS_STORE, 7, 0);
    /* vaddps (%rax){1to16},%zmm1,%zmm2: a broadcast reads one element */
    assert_int_equal(decode(&a, B(0x62, 0xf1, 0x74, 0x58, 0x58, 0x10)), 1);
    check(&a, r.gpr[RAX], 4, WASP_ACCESS_LOAD, 6, 4);
}

/* stos is memset's store (`rep stosb` on CPUs that make it fast) and the
 * JVM's clearing: a store at rdi, one element wide, or a 64-byte block when
 * a rep prefix has that many bytes left. Other string instructions stay out. */
static void test_store_string(void **state)
{
    (void)state;
    wasp_regs r = regs();
    wasp_access a;
    assert_int_equal(decode(&a, B(0xab)), 1); /* stos %eax,%es:(%rdi) */
    check(&a, r.gpr[RDI], 4, WASP_ACCESS_STORE, 1, 0);
    assert_int_equal(decode(&a, B(0x48, 0xab)), 1); /* stos %rax,%es:(%rdi) */
    check(&a, r.gpr[RDI], 8, WASP_ACCESS_STORE, 2, 0);
    /* rep stos %al,%es:(%rdi), rcx = 0x20000 bytes left: a block */
    assert_int_equal(decode(&a, B(0xf3, 0xaa)), 1);
    check(&a, r.gpr[RDI], 64, WASP_ACCESS_STORE, 2, 0);
    /* rep stos %rax,%es:(%rdi) with 3 quadwords left: one element */
    r.gpr[RCX] = 3;
    memset(&a, 0xa5, sizeof a);
    assert_int_equal(wasp_isa_decode_access(B(0xf3, 0x48, 0xab), PC, &r, &a), 1);
    check(&a, r.gpr[RDI], 8, WASP_ACCESS_STORE, 3, 0);
    assert_int_equal(decode(&a, B(0xa4)), 0);       /* movsb %ds:(%rsi),%es:(%rdi) */
    assert_int_equal(decode(&a, B(0xf3, 0xa4)), 0); /* rep movsb */
    assert_int_equal(decode(&a, B(0xae)), 0);       /* scas %es:(%rdi),%al */
    assert_int_equal(decode(&a, B(0xac)), 0);       /* lods %ds:(%rsi),%al */
}

static void test_not_accesses(void **state)
{
    (void)state;
    wasp_access a;
    assert_int_equal(decode(&a, B(0x48, 0x8d, 0x43, 0x10)), 0);             /* lea 0x10(%rbx),%rax */
    assert_int_equal(decode(&a, B(0x0f, 0x18, 0x08)), 0);                   /* prefetcht0 (%rax) */
    assert_int_equal(decode(&a, B(0x0f, 0x0d, 0x48, 0x40)), 0);             /* prefetchw 0x40(%rax) */
    assert_int_equal(decode(&a, B(0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00)), 0); /* nopw 0x0(%rax,%rax,1) */
    assert_int_equal(decode(&a, B(0x0f, 0xae, 0x38)), 0);                   /* clflush (%rax) */
    assert_int_equal(decode(&a, B(0x50)), 0);                               /* push %rax */
    assert_int_equal(decode(&a, B(0xff, 0x70, 0x08)), 0);                   /* push 0x8(%rax) */
    assert_int_equal(decode(&a, B(0x5b)), 0);                               /* pop %rbx */
    assert_int_equal(decode(&a, B(0xc3)), 0);                               /* ret */
    assert_int_equal(decode(&a, B(0xa4)), 0);                               /* movsb %ds:(%rsi),%es:(%rdi) */
    assert_int_equal(decode(&a, B(0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00)),
                     0);                                                /* mov %fs:0x28,%rax */
    assert_int_equal(decode(&a, B(0x65, 0x8b, 0x00)), 0);                   /* mov %gs:(%rax),%eax */
    assert_int_equal(decode(&a, B(0xc4, 0xe2, 0x69, 0x90, 0x04, 0x88)),
                     0);                                  /* vpgatherdd %xmm2,(%rax,%xmm1,4),%xmm0 */
    assert_int_equal(decode(&a, B(0x48, 0x89, 0xf7)), 0);     /* mov %rsi,%rdi */
    /* xlat %ds:(%rbx) reads (%rbx,%al) through a hidden operand: not explicit. */
    assert_int_equal(decode(&a, B(0xd7)), 0);
    /* HotSpot's safepoint poll is not program data... */
    assert_int_equal(decode(&a, B(0x41, 0x85, 0x02)), 0); /* test %eax,(%r10) */
    /* ...but a test of a field is a load. */
    assert_int_equal(decode(&a, B(0x41, 0x85, 0x42, 0x10)), 1); /* test %eax,0x10(%r10) */
    assert_int_equal(a.kind, WASP_ACCESS_LOAD);
}

/* Compiled Java code reads its JavaThread through r15 (the safepoint poll
 * word on every loop, the allocation buffer's top and end): the JVM's data,
 * not the program's, once the registers say where the JavaThread is. */
static void test_java_thread_is_not_program_data(void **state)
{
    (void)state;
    wasp_regs r = regs();
    r.gpr[R15] = 0x7f0000001000ull;
    r.gpr[RSP] = 0x7ffff0000000ull;
    wasp_access a;
    static const uint8_t poll_word[] = {0x4d, 0x8b, 0x97, 0x48, 0x03, 0x00, 0x00}; /* mov 0x348(%r15),%r10 */
    assert_int_equal(wasp_isa_decode_access(poll_word, sizeof poll_word, PC, &r, &a), 1);
    assert_true(a.addr == 0x7f0000001348ull);
    assert_int_equal(wasp_isa_is_program_data(&a, &r), 1); /* where the JavaThread is not known */
    r.vm_lo = r.gpr[R15];
    r.vm_hi = r.vm_lo + 0x800;
    assert_int_equal(wasp_isa_is_program_data(&a, &r), 0);
    /* past its end: someone else's */
    a.addr = r.vm_hi;
    assert_int_equal(wasp_isa_is_program_data(&a, &r), 1);
}

/* With the bytes before the window, decoding forward from several places
 * says where the last instruction starts: the tail of a longer instruction
 * that reads as an access (`mov 0x10(%rbx), %eax` in the immediate of a
 * movabs) is no longer taken, and a real one still is. */
static void test_prev_access_synchronised(void **state)
{
    (void)state;
    wasp_regs r = regs();
    r.gpr[RSP] = 0x7ffff0000000ull; /* the loads' addresses are far from the stack */
    wasp_access a[3];
    uint8_t w[WASP_SYNC_WINDOW];
    memset(w, 0x90, sizeof w); /* nop: code that runs into the last instruction */
    static const uint8_t movabs[] = {0x48, 0xb8, 0x11, 0x22, 0x33, 0x44, 0x55, 0x8b, 0x43, 0x10};
    memcpy(w + sizeof w - sizeof movabs, movabs, sizeof movabs);
    /* the last 15 bytes alone: the tail is a candidate */
    assert_int_equal(
        wasp_isa_prev_accesses(w + sizeof w - WASP_MAX_INSN, WASP_MAX_INSN, PC, &r, a, 3), 1);
    assert_int_equal(a[0].len, 3);
    /* the whole window: the movabs is the last instruction, and it reads no memory */
    assert_int_equal(wasp_isa_prev_accesses(w, sizeof w, PC, &r, a, 3), 0);

    static const uint8_t load[] = {0x8b, 0x43, 0x10}; /* mov 0x10(%rbx),%eax */
    memset(w, 0x90, sizeof w);
    memcpy(w + sizeof w - sizeof load, load, sizeof load);
    assert_int_equal(wasp_isa_prev_accesses(w, sizeof w, PC, &r, a, 3), 1);
    assert_int_equal(a[0].len, 3);
    assert_true(a[0].addr == r.gpr[RBX] + 0x10);
}

static void test_undecodable(void **state)
{
    (void)state;
    wasp_access a;
    assert_int_equal(decode(&a, B(0x06)), -1);             /* push %es: invalid in 64-bit mode */
    assert_int_equal(decode(&a, B(0x8b, 0x43)), -1);       /* mov 0x10(%rbx),%eax cut short */
    assert_int_equal(decode(&a, B(0x0f, 0x0b)), 0); /* ud2 decodes, no access */
    wasp_regs r = regs();
    assert_int_equal(wasp_isa_decode_access((const uint8_t *)"", 0, PC, &r, &a), -1);
}

static void test_format(void **state)
{
    (void)state;
    char buf[96];
    static const uint8_t st[] = {0x89, 0x43, 0x10}; /* mov %eax,0x10(%rbx) */
    size_t len = wasp_isa_format_att(st, sizeof st, PC, buf, sizeof buf);
    /* Zydis omits the size suffix when a register operand implies it. */
    assert_string_equal(buf, "mov %eax, 0x10(%rbx)");
    assert_int_equal(len, strlen(buf));
    /* RIP-relative: the target prints as an absolute address. */
    static const uint8_t rip[] = {0x48, 0x8b, 0x05, 0x34, 0x12, 0x00, 0x00}; /* mov 0x1234(%rip),%rax */
    assert_true(wasp_isa_format_att(rip, sizeof rip, 0x400000, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "0x40123b"));
    assert_non_null(strstr(buf, "%rax"));
    /* Undecodable bytes give 0 and an empty string. */
    static const uint8_t bad[] = {0x06};
    assert_int_equal(wasp_isa_format_att(bad, sizeof bad, PC, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    /* A buffer too small fails cleanly. */
    assert_int_equal(wasp_isa_format_att(st, sizeof st, PC, buf, 4), 0);
}

static void test_regs_from_ucontext(void **state)
{
    (void)state;
    ucontext_t uc;
    memset(&uc, 0, sizeof uc);
    for (int i = 0; i < NGREG; i++)
        uc.uc_mcontext.gregs[i] = 0x100 + i;
    static const int order[WASP_REG_COUNT] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                                              REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                              REG_R12, REG_R13, REG_R14, REG_R15};
    wasp_regs r;
    wasp_isa_regs_from_ucontext(&uc, &r);
    for (int i = 0; i < WASP_REG_COUNT; i++)
        assert_int_equal(r.gpr[i], 0x100 + order[i]);
    assert_int_equal(r.rip, 0x100 + REG_RIP);
    /* The mapping must be a permutation: no register read twice. */
    for (int i = 0; i < WASP_REG_COUNT; i++)
        for (int j = i + 1; j < WASP_REG_COUNT; j++)
            assert_int_not_equal(r.gpr[i], r.gpr[j]);
}

static void test_safe_read_mapped(void **state)
{
    (void)state;
    char src[100], dst[100];
    for (int i = 0; i < 100; i++)
        src[i] = (char)(i * 7);
    memset(dst, 0, sizeof dst);
    errno = 1234;
    assert_int_equal(wasp_safe_read((uint64_t)(uintptr_t)src, dst, sizeof src), sizeof src);
    assert_memory_equal(src, dst, sizeof src);
    assert_int_equal(errno, 1234);
    assert_int_equal(wasp_safe_read((uint64_t)(uintptr_t)src, dst, 0), 0);
}

static void test_safe_read_unmapped(void **state)
{
    (void)state;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    assert_int_equal(munmap(p, pg), 0);
    char dst[16];
    errno = 77;
    assert_int_equal(wasp_safe_read((uint64_t)(uintptr_t)p + 8, dst, sizeof dst), 0);
    assert_int_equal(errno, 77); /* EFAULT must not leak to the interrupted code */
    assert_int_equal(wasp_safe_read(0, dst, sizeof dst), 0);
}

/* The access that just ran, decoded backwards from the sampled PC. */
static void test_prev_access(void **state)
{
    (void)state;
    wasp_regs r = regs();
    r.gpr[RSP] = 0x7ff000000000ull; /* keep the heap-like addresses off the stack */
    r.gpr[RCX] = 0x7f1200000000ull;
    wasp_access a[3];
    /* nop; mov 0x10(%rcx,%rdx,4),%r11d | PC */
    const uint8_t mov[] = {0x90, 0x90, 0x90, 0x44, 0x8b, 0x5c, 0x91, 0x10};
    /* Also `mov 0x10(%rcx,%rdx,4),%ebx` without the REX prefix: longest first. */
    int n = wasp_isa_prev_accesses(mov, sizeof mov, PC, &r, a, 3);
    assert_in_range(n, 1, 2);
    assert_int_equal(a[0].len, 5);
    assert_int_equal(a[0].addr, r.gpr[RCX] + r.gpr[RDX] * 4 + 0x10);
    assert_int_equal(a[0].kind, WASP_ACCESS_LOAD);
    /* sbb %dl,(%rax): a bare-register form, as tails of longer instructions decode */
    const uint8_t sbb[] = {0x90, 0x18, 0x10};
    assert_int_equal(wasp_isa_prev_accesses(sbb, sizeof sbb, PC, &r, a, 3), 0);
    /* zero bytes are padding, not `add %al,(%rax)` */
    const uint8_t zeros[] = {0x00, 0x00, 0x00, 0x00};
    assert_int_equal(wasp_isa_prev_accesses(zeros, sizeof zeros, PC, &r, a, 3), 0);
    /* an instruction that overwrote its own base cannot be recomputed:
     * mov 0x10(%rax),%rax */
    const uint8_t self[] = {0x90, 0x48, 0x8b, 0x40, 0x10};
    assert_int_equal(wasp_isa_prev_accesses(self, sizeof self, PC, &r, a, 3), 0);
}

/* Tails that decode as instructions compiled code never runs (sunflow's
 * hot objects were accessed by `ficomp -0x2e(%rsi)`): x87, an xrelease
 * prefix, a rotate or add-with-carry on memory. Each window ends in one
 * after nops, so the forward decode says it is the last instruction (its
 * tails, such as the xrelease mov's plain mov, are not); the same window
 * ending in a plain load still gives that load. */
static void test_prev_access_not_compiled_forms(void **state)
{
    (void)state;
    wasp_regs r = regs();
    r.gpr[RSP] = 0x7ff000000000ull;
    r.gpr[RSI] = r.gpr[RBX] = r.gpr[RDX] = 0x7f1200001000ull;
    wasp_access a[3];
    static const uint8_t odd[][9] = {
        {3, 0xde, 0x5e, 0xd2},                                     /* ficomp -0x2e(%rsi) */
        {8, 0xf3, 0x44, 0x89, 0xa3, 0x8c, 0x00, 0x00, 0x00},       /* xrelease mov %r12d,0x8c(%rbx) */
        {4, 0xc1, 0x4a, 0x5e, 0xf0},                               /* rorl $0xf0,0x5e(%rdx) */
        {3, 0x1b, 0x5e, 0xc9},                                     /* sbb -0x37(%rsi),%ebx */
        {3, 0x8b, 0x46, 0x10},                                     /* mov 0x10(%rsi),%eax: taken */
    };
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        uint8_t w[WASP_SYNC_WINDOW]; /* the forward decode places the last boundary */
        size_t len = odd[i][0];
        memset(w, 0x90, sizeof w);
        memcpy(w + sizeof w - len, &odd[i][1], len);
        int n = wasp_isa_prev_accesses(w, sizeof w, PC, &r, a, 3);
        if (i + 1 < sizeof odd / sizeof odd[0])
            assert_int_equal(n + 100 * (int)i, 100 * (int)i); /* the message names i */
        else
            assert_true(n == 1 && a[0].len == 3 && a[0].addr == r.gpr[RSI] + 0x10);
    }
}

static void test_safe_read_prefix(void **state)
{
    (void)state;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    memset(p, 'x', 2 * pg);
    assert_int_equal(mprotect(p + 2 * pg, pg, PROT_NONE), 0);
    static char dst[8192];
    /* 100 bytes before the PROT_NONE page, 200 bytes into it. */
    assert_int_equal(wasp_safe_read((uint64_t)(uintptr_t)(p + 2 * pg - 100), dst, 300), 100);
    for (int i = 0; i < 100; i++)
        assert_int_equal(dst[i], 'x');
    /* Spanning two mapped pages and then the guard page. */
    size_t want = pg + 50 + 10;
    assert_true(want <= sizeof dst);
    assert_int_equal(wasp_safe_read((uint64_t)(uintptr_t)(p + pg - 50), dst, want), pg + 50);
    munmap(p, 3 * pg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_store_rmw),    cmocka_unit_test(test_compare_is_load),
        cmocka_unit_test(test_addressing_modes),  cmocka_unit_test(test_address_size_override),
        cmocka_unit_test(test_rip_relative),      cmocka_unit_test(test_sse_float),
        cmocka_unit_test(test_vector),            cmocka_unit_test(test_not_accesses),
        cmocka_unit_test(test_store_string),
        cmocka_unit_test(test_undecodable), cmocka_unit_test(test_java_thread_is_not_program_data),
        cmocka_unit_test(test_prev_access_synchronised),       cmocka_unit_test(test_format),
        cmocka_unit_test(test_regs_from_ucontext), cmocka_unit_test(test_safe_read_mapped),
        cmocka_unit_test(test_safe_read_unmapped), cmocka_unit_test(test_safe_read_prefix),
        cmocka_unit_test(test_prev_access),
        cmocka_unit_test(test_prev_access_not_compiled_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
