/*
 * Differential test of the move emulator (src/isa/emulate.c) that the page
 * watchpoint engine runs on the JVM's behalf: each instruction runs once
 * natively on a readable page and once on a PROT_NONE page, where a SIGSEGV
 * handler emulates it from the real signal frame (general registers, the
 * xmm/ymm/zmm state in the XSAVE area). Registers and memory must come out
 * identical, bit for bit; forms the emulator does not handle must be refused
 * with nothing changed.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <cpuid.h>

#include "isa/isa.h"

/* Machine state around the instruction under test: rax..r11 but rsp/rbp
 * (r12 holds the memory operand's page, r15 this struct), ymm0-15, the flags
 * and MXCSR. */
typedef struct state {
    uint64_t gpr[12]; /* rax rcx rdx rbx rsi rdi r8 r9 r10 r11 r13 r14 */
    uint64_t page;    /* r12 */
    uint8_t ymm[16][32];
    uint64_t flags;   /* in and out */
    uint32_t mxcsr;   /* in and out */
} state;
_Static_assert(offsetof(state, flags) == 616 && offsetof(state, mxcsr) == 624, "CASE's offsets");

#define LOAD_GPRS                                                                              \
    "mov 0(%%r15), %%rax\n mov 8(%%r15), %%rcx\n mov 16(%%r15), %%rdx\n"                     \
    "mov 24(%%r15), %%rbx\n mov 32(%%r15), %%rsi\n mov 40(%%r15), %%rdi\n"                   \
    "mov 48(%%r15), %%r8\n mov 56(%%r15), %%r9\n mov 64(%%r15), %%r10\n"                     \
    "mov 72(%%r15), %%r11\n mov 80(%%r15), %%r13\n mov 88(%%r15), %%r14\n"                   \
    "mov 96(%%r15), %%r12\n"
#define STORE_GPRS                                                                             \
    "mov %%rax, 0(%%r15)\n mov %%rcx, 8(%%r15)\n mov %%rdx, 16(%%r15)\n"                     \
    "mov %%rbx, 24(%%r15)\n mov %%rsi, 32(%%r15)\n mov %%rdi, 40(%%r15)\n"                   \
    "mov %%r8, 48(%%r15)\n mov %%r9, 56(%%r15)\n mov %%r10, 64(%%r15)\n"                     \
    "mov %%r11, 72(%%r15)\n mov %%r13, 80(%%r15)\n mov %%r14, 88(%%r15)\n"
#define YMM(op, i) #op " " #i "*32+104(%%r15), %%ymm" #i "\n"
#define YMM_OUT(i) "vmovdqu %%ymm" #i ", " #i "*32+104(%%r15)\n"
#define LOAD_YMMS                                                                              \
    YMM(vmovdqu, 0) YMM(vmovdqu, 1) YMM(vmovdqu, 2) YMM(vmovdqu, 3) YMM(vmovdqu, 4)            \
    YMM(vmovdqu, 5) YMM(vmovdqu, 6) YMM(vmovdqu, 7) YMM(vmovdqu, 8) YMM(vmovdqu, 9)            \
    YMM(vmovdqu, 10) YMM(vmovdqu, 11) YMM(vmovdqu, 12) YMM(vmovdqu, 13) YMM(vmovdqu, 14)       \
    YMM(vmovdqu, 15)
#define STORE_YMMS                                                                             \
    YMM_OUT(0) YMM_OUT(1) YMM_OUT(2) YMM_OUT(3) YMM_OUT(4) YMM_OUT(5) YMM_OUT(6) YMM_OUT(7)  \
    YMM_OUT(8) YMM_OUT(9) YMM_OUT(10) YMM_OUT(11) YMM_OUT(12) YMM_OUT(13) YMM_OUT(14)        \
    YMM_OUT(15)
#define CLOBBERS                                                                               \
    "rax", "rcx", "rdx", "rbx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14",  \
    "r15", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",      \
    "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc"

/* Below the red zone while rsp moves; lea leaves the flags alone. */
#define FLAGS_IN                                                                               \
    "lea -128(%%rsp), %%rsp\n pushq 616(%%r15)\n popfq\n lea 128(%%rsp), %%rsp\n"            \
    "ldmxcsr 624(%%r15)\n"
#define FLAGS_OUT                                                                              \
    "lea -128(%%rsp), %%rsp\n pushfq\n popq 616(%%r15)\n lea 128(%%rsp), %%rsp\n"             \
    "stmxcsr 624(%%r15)\n"

#define CASE(name, insn)                                                                       \
    static void name(state *s)                                                                 \
    {                                                                                          \
        __asm__ volatile("mov %0, %%r15\n" FLAGS_IN LOAD_GPRS LOAD_YMMS insn "\n" FLAGS_OUT     \
                         STORE_GPRS STORE_YMMS                                                 \
                         :                                                                     \
                         : "r"(s)                                                              \
                         : CLOBBERS);                                                          \
    }

/* Loads into general registers: widths, merging, extension. */
CASE(mov_load64, "mov 0x18(%%r12), %%rax")
CASE(mov_load32, "mov 0x1c(%%r12,%%rcx,4), %%edx")
CASE(mov_load16, "mov 0x20(%%r12), %%si")
CASE(mov_load8, "mov 0x21(%%r12), %%dil")
CASE(mov_load_r8, "mov 0x28(%%r12), %%r9")
CASE(movzx_b, "movzbl 0x23(%%r12), %%eax")
CASE(movzx_w64, "movzwq 0x24(%%r12), %%r10")
CASE(movsx_b, "movsbl 0x25(%%r12), %%ebx")
CASE(movsx_w16, "movsbw 0x25(%%r12), %%r11w")
CASE(movsxd, "movslq 0x30(%%r12), %%r13")
/* Stores from general registers and immediates. */
CASE(mov_store64, "mov %%rdx, 0x40(%%r12)")
CASE(mov_store32, "mov %%esi, 0x44(%%r12,%%rcx,8)")
CASE(mov_store8, "mov %%dil, 0x47(%%r12)")
CASE(mov_store_imm64, "movq $-5, 0x48(%%r12)")
CASE(mov_store_imm16, "movw $0x1234, 0x50(%%r12)")
/* Vector loads: legacy SSE keeps bits 128+, VEX clears them. */
CASE(movsd_legacy, "movsd 0x60(%%r12), %%xmm3")
CASE(movups_legacy, "movups 0x60(%%r12), %%xmm9")
CASE(vmovss_load, "vmovss 0x64(%%r12), %%xmm4")
CASE(vmovsd_load, "vmovsd 0x68(%%r12), %%xmm12")
CASE(vmovdqu_load128, "vmovdqu 0x70(%%r12), %%xmm5")
CASE(vmovdqu_load256, "vmovdqu 0x80(%%r12), %%ymm6")
CASE(vmovq_load, "vmovq 0x88(%%r12), %%xmm14")
/* Vector stores. */
CASE(movss_store, "movss %%xmm7, 0xa0(%%r12)")
CASE(vmovsd_store, "vmovsd %%xmm8, 0xa8(%%r12)")
CASE(vmovdqu_store128, "vmovdqu %%xmm10, 0xb0(%%r12)")
CASE(vmovdqu_store256, "vmovdqu %%ymm11, 0xc0(%%r12)")
CASE(vmovd_store, "vmovd %%xmm15, 0xe4(%%r12)")
/* Integer arithmetic: load-op, read-modify-write, compares (emulate_arith.c). */
CASE(add_rmw, "add %%eax, 0x18(%%r12)")
CASE(cmp_load, "cmp 0x18(%%r12), %%rax")
CASE(adc_load, "adc 0x20(%%r12), %%ecx")
CASE(sbb_rmw16, "sbb %%dx, 0x22(%%r12)")
CASE(xor_load, "xor 0x10(%%r12), %%r10")
CASE(sub_load8, "sub 0x19(%%r12), %%r13b")
CASE(and_imm8, "andb $0x5a, 0x31(%%r12)")
CASE(or_imm64, "orq $-3, 0x38(%%r12)")
CASE(sub_imm64, "subq $0x7fffffff, 0x58(%%r12)")
CASE(add_overflow, "addl $0x7fffffff, 0x104(%%r12)") /* 1.5's high word: OF */
CASE(cmp_imm_indexed, "cmpl $5, 0x60(%%r12,%%rcx,4)")
CASE(test_reg, "test %%esi, 0x3c(%%r12)")
CASE(test_imm8, "testb $1, 0x3d(%%r12)")
CASE(inc32, "incl 0x40(%%r12)")
CASE(dec64, "decq 0x48(%%r12)")
CASE(neg16, "negw 0x50(%%r12)")
CASE(not8, "notb 0x52(%%r12)")
CASE(imul_load32, "imul 0x18(%%r12), %%eax")
CASE(imul_load64, "imul 0x100(%%r12), %%r9") /* overflows: CF, OF */
/* Scalar floating point: legacy keeps the destination's upper bits, VEX takes
 * them from the first source and clears bits 128 and up; compares set flags. */
CASE(addsd_legacy, "addsd 0x60(%%r12), %%xmm3")
CASE(subsd_legacy, "subsd 0x100(%%r12), %%xmm8")
CASE(mulss_legacy, "mulss 0x64(%%r12), %%xmm9")
CASE(divsd_legacy, "divsd 0x108(%%r12), %%xmm0")
CASE(maxss_legacy, "maxss 0x110(%%r12), %%xmm11")
CASE(vaddsd, "vaddsd 0x68(%%r12), %%xmm5, %%xmm5")
CASE(vmulsd, "vmulsd 0x118(%%r12), %%xmm2, %%xmm7")
CASE(vdivss, "vdivss 0x20(%%r12), %%xmm1, %%xmm14")
CASE(vminsd, "vminsd 0x120(%%r12,%%rcx,8), %%xmm12, %%xmm13")
CASE(vsubss, "vsubss 0x128(%%r12), %%xmm6, %%xmm6")
CASE(ucomisd_legacy, "ucomisd 0x108(%%r12), %%xmm4")
CASE(comiss_legacy, "comiss 0x110(%%r12), %%xmm10")
CASE(vucomisd, "vucomisd 0x100(%%r12), %%xmm6")
CASE(vucomiss_equal, "vucomiss 0x130(%%r12), %%xmm15")
/* rep stos: the elements on the faulted page in one write, rdi and rcx
 * moved past them (emulate_rep_stos); rdi compared as an offset into the
 * page, which is another one natively. */
#define REP_STOS(offset, count, insn)                                                          \
    "lea " #offset "(%%r12), %%rdi\n mov $" #count ", %%ecx\n " insn "\n sub %%r12, %%rdi"
CASE(rep_stosb, REP_STOS(0x200, 100, "rep stosb"))
CASE(rep_stosq, REP_STOS(0x300, 33, "rep stosq"))
CASE(rep_stosl_page_end, REP_STOS(0xfec, 5, "rep stosl"))
/* Not emulated: locked, bit operations, multiplication by an immediate, packed vector
 * arithmetic — stepped instead. */
CASE(lock_xadd, "lock xadd %%ecx, 0x20(%%r12)")
CASE(bts_rmw, "btsl $3, 0x18(%%r12)")
CASE(imul_imm, "imul $7, 0x18(%%r12), %%eax")
CASE(addpd_packed, "addpd 0x140(%%r12), %%xmm1")

static int memfd = -1;
static uint8_t *locked_page;
static volatile int emulated, refused;

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
    (void)sig, (void)si;
    ucontext_t *uc = ucv;
    uint8_t code[WASP_MAX_INSN];
    uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP], addr = 0;
    memcpy(code, (const void *)(uintptr_t)pc, sizeof code);
    wasp_emulated_memory mem = wasp_emulated_proc_mem(&memfd);
    if (wasp_isa_emulate(uc, code, sizeof code, &mem, &addr) == 1) {
        emulated++;
        return;
    }
    refused++;
    /* Not ours to emulate: let the instruction run for real. */
    mprotect(locked_page, 4096, PROT_READ | PROT_WRITE);
}

static void fill(state *s, uint8_t *page)
{
    for (int i = 0; i < 12; i++)
        s->gpr[i] = 0x0123456789abcdefull * (uint64_t)(i + 3) ^ 0xf0f0f0f0f0f0f0f0ull;
    s->gpr[1] = 3; /* rcx: an index */
    for (int r = 0; r < 16; r++)
        for (int b = 0; b < 32; b++)
            s->ymm[r][b] = (uint8_t)(r * 37 + b * 11 + 1);
    for (int i = 0; i < 4096; i++)
        page[i] = (uint8_t)(i * 131 + 7);
    /* Ordinary numbers beside the bit patterns above (which include NaNs
     * and denormals): 0x100.. doubles, 0x110.. and 0x130 floats. */
    const double d[] = {1.5, -3.25, 1e300, 0.1, 2.0};
    memcpy(page + 0x100, d, sizeof d);
    const float f[] = {7.0f, -0.5f};
    memcpy(page + 0x110, f, sizeof f);
    memcpy(page + 0x130, &s->ymm[15][0], 4); /* equal to xmm15's low float */
    double x = 1.5;
    memcpy(&s->ymm[4][0], &x, sizeof x); /* ucomisd 1.5 with 1.5: ZF */
    x = 0.25;
    memcpy(&s->ymm[2][0], &x, sizeof x);
    memcpy(&s->ymm[6][0], &x, sizeof x);
    s->page = (uint64_t)(uintptr_t)page;
    s->flags = 0x202 | 0x1 | 0x10 | 0x800; /* IF, the reserved bit; CF for adc/sbb, AF, OF */
    s->mxcsr = 0x1f80;             /* exceptions masked, round to nearest: Java's */
}

/* Runs fn natively and emulated; returns whether the emulator took it. */
static int differential(void (*fn)(state *))
{
    uint8_t *open = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    locked_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(open != MAP_FAILED && locked_page != MAP_FAILED);
    state native, emul;
    fill(&native, open);
    fill(&emul, locked_page);
    fn(&native);
    assert_int_equal(mprotect(locked_page, 4096, PROT_NONE), 0);
    int before = emulated;
    fn(&emul);
    mprotect(locked_page, 4096, PROT_READ | PROT_WRITE);
    assert_memory_equal(native.gpr, emul.gpr, sizeof native.gpr);
    assert_memory_equal(native.ymm, emul.ymm, sizeof native.ymm);
    assert_int_equal(native.flags & 0x8d5, emul.flags & 0x8d5); /* OF SF ZF AF PF CF */
    assert_int_equal(native.mxcsr, emul.mxcsr);
    assert_memory_equal(open, locked_page, 4096);
    munmap(open, 4096);
    munmap(locked_page, 4096);
    return emulated > before;
}

/* Per test: cmocka installs its own SIGSEGV handler before each one. */
static void setup_handler(void)
{
    if (memfd < 0)
        memfd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
    wasp_isa_emulate_init();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
}

static int has_avx2(void)
{
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 5));
}

static void test_emulated_forms(void **st)
{
    (void)st;
    if (!has_avx2())
        skip();
    setup_handler();
    assert_true(memfd >= 0);
    void (*const forms[])(state *) = {
        mov_load64,     mov_load32,     mov_load16,       mov_load8,        mov_load_r8,
        movzx_b,        movzx_w64,      movsx_b,          movsx_w16,        movsxd,
        mov_store64,    mov_store32,    mov_store8,       mov_store_imm64,  mov_store_imm16,
        movsd_legacy,   movups_legacy,  vmovss_load,      vmovsd_load,      vmovdqu_load128,
        vmovdqu_load256, vmovq_load,    movss_store,      vmovsd_store,     vmovdqu_store128,
        vmovdqu_store256, vmovd_store,    add_rmw,          cmp_load,         adc_load,
        sbb_rmw16,      xor_load,       sub_load8,        and_imm8,         or_imm64,
        sub_imm64,      add_overflow,   cmp_imm_indexed, test_reg,        test_imm8,        inc32,
        dec64,          neg16,          not8,             imul_load32,      imul_load64,             addsd_legacy,     subsd_legacy,
        mulss_legacy,   divsd_legacy,   maxss_legacy,     vaddsd,           vmulsd,
        vdivss,         vminsd,         vsubss,           ucomisd_legacy,   comiss_legacy,
        vucomisd,       vucomiss_equal, rep_stosb,        rep_stosq,        rep_stosl_page_end,
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        int took = differential(forms[i]);
        if (!took)
            fail_msg("form %zu was not emulated", i);
    }
}

static void test_refused_forms_unchanged(void **st)
{
    (void)st;
    if (!has_avx2())
        skip();
    setup_handler();
    void (*const forms[])(state *) = {lock_xadd, bts_rmw, imul_imm, addpd_packed};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        int r0 = refused;
        int took = differential(forms[i]);
        assert_false(took);
        assert_int_equal(refused, r0 + 1);
    }
}

/* A rep stos that runs past the protected page: the emulator writes the
 * elements on it and leaves the PC on the instruction, which the CPU then
 * finishes on the next (open) page by itself. */
static void test_rep_stos_leaves_the_page(void **st)
{
    (void)st;
    setup_handler();
    uint8_t *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(two != MAP_FAILED);
    memset(two, 0x11, 8192);
    locked_page = two;
    assert_int_equal(mprotect(two, 4096, PROT_NONE), 0);
    int before = emulated, refused_before = refused;
    uint8_t *dst = two + 4000;
    size_t count = 200;
    __asm__ volatile("rep stosb" : "+D"(dst), "+c"(count) : "a"(0x5a) : "memory");
    mprotect(two, 4096, PROT_READ | PROT_WRITE);
    assert_int_equal(emulated, before + 1); /* one fault: the 96 bytes before the page's end */
    assert_int_equal(refused, refused_before);
    assert_ptr_equal(dst, two + 4200);
    assert_int_equal(count, 0);
    for (size_t i = 0; i < 8192; i++)
        assert_int_equal(two[i], i >= 4000 && i < 4200 ? 0x5a : 0x11);
    munmap(two, 8192);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_emulated_forms),
        cmocka_unit_test(test_refused_forms_unchanged),
        cmocka_unit_test(test_rep_stos_leaves_the_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
