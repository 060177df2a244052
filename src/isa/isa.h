/*
 * x86-64 memory-access decoding on Zydis.
 *
 * ASYNC-SIGNAL-SAFE: everything declared here except wasp_isa_format_att()
 * runs inside the SIGTRAP handler. No allocation, no locks, no stdio, and no
 * read of memory that might fault (callers pass instruction bytes they have
 * already copied with wasp_safe_read()).
 */
#ifndef WASP_ISA_H
#define WASP_ISA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <ucontext.h>

/* Register file in hardware encoding order:
 * rax rcx rdx rbx rsp rbp rsi rdi r8 .. r15. */
enum { WASP_REG_COUNT = 16 };
/* EFLAGS.DF: string instructions walk down. */
enum { WASP_EFLAGS_DF = 1 << 10 };
typedef struct wasp_regs {
    uint64_t gpr[WASP_REG_COUNT];
    uint64_t rip;
    /* Memory of the JVM's own the thread reaches through its registers (its
     * JavaThread: safepoint poll word, allocation buffer pointers), never
     * program data; 0, 0 when not known. */
    uint64_t vm_lo, vm_hi;
    uint8_t backward; /* EFLAGS.DF: string instructions walk down */
} wasp_regs;

enum wasp_access_kind {
    WASP_ACCESS_LOAD = 1,
    WASP_ACCESS_STORE = 2, /* read-modify-write instructions have both bits */
};

/* The longest x86 instruction. */
enum { WASP_MAX_INSN = 15 };

typedef struct wasp_access {
    uint64_t addr;        /* effective address of the memory operand */
    uint32_t size;        /* bytes accessed: 1, 2, 4, 8, 16, 32, 64 */
    uint8_t kind;         /* WASP_ACCESS_LOAD | WASP_ACCESS_STORE */
    uint8_t len;          /* instruction length in bytes */
    uint8_t float_size;   /* 4 or 8 when the element type is float/double, else 0 */
    uint8_t rip_relative; /* 1 when the operand is RIP-relative */
    uint8_t addr_known;   /* 1 when addr was computed from registers that still hold
                             their pre-instruction values (always 1 for decode_access) */
    uint8_t has_src;      /* stores: 1 when src is the value stored (from a general
                             register or an immediate, read from the given regs) */
    uint64_t src;
    /* How the address was formed: base + index * scale + disp. base_val is
     * the base register's value (0 without one); object lookups (heap/
     * java_object.h) take base_val, or addr - disp, as the object's start. */
    int64_t disp;
    uint64_t base_val;
    uint8_t has_base;  /* a general register as the base (not RIP) */
    uint8_t has_index;
    uint8_t atomic;    /* a locked read-modify-write; 2 when it is a cmpxchg */
    uint8_t in_progress; /* a trap's access: a rep string instruction that starts at
                            the trap PC (more elements to go), not one ending there */
    uint8_t element;     /* a string instruction's bytes per element, which is what
                            one of its steps writes (size counts the block ahead); 0 */
    uint8_t repeated;    /* a rep string instruction: rcx elements from addr on */
} wasp_access;

/* Fill regs from a signal context. */
void wasp_isa_regs_from_ucontext(const ucontext_t *uc, wasp_regs *regs);

/* Decode the instruction in bytes[0..n) located at pc and, if it has an explicit
 * memory operand whose address can be computed from regs (not LEA, not fs/gs,
 * not VSIB, not string or stack instructions), fill out.
 * Returns 1 on a memory access, 0 for an instruction without one, -1 when the
 * bytes do not decode. regs must hold the state *before* the instruction runs. */
int wasp_isa_decode_access(const uint8_t *bytes, size_t n, uint64_t pc,
                           const wasp_regs *regs, wasp_access *out);

/* Whether an access touches program data a developer could change: not an
 * implicit null check (addresses below 64 KiB), not the thread's stack (within
 * 1 MiB of regs' sp: spills, stack banging, interpreter locals), not a
 * RIP-relative constant in generated code, not the thread's JavaThread
 * (regs' vm_lo..vm_hi: compiled code reads its safepoint poll word and
 * allocation buffer through r15 on every loop and allocation). */
int wasp_isa_is_program_data(const wasp_access *a, const wasp_regs *regs);

/* Scan forward from pc over at most max_insns straight-line instructions
 * (bytes[0..n) is the code at pc, regs the state before the instruction at
 * pc) for the first program-data access whose kind intersects `wanted` and
 * whose address is still computable: no instruction before it in the scan
 * wrote its base or index register. Stops at any control transfer.
 * Returns 1 with out filled and *at set to that instruction's address, 0 when
 * there is none, -1 when the instruction at pc does not decode. */
int wasp_isa_find_access(const uint8_t *bytes, size_t n, uint64_t pc, const wasp_regs *regs,
                         int wanted, int max_insns, wasp_access *out, uint64_t *at);

/* The accesses that may have just run: instructions of length k that end
 * exactly at pc (bytes `before` are the n bytes ending at pc) with a
 * program-data memory operand whose address the instruction did not change,
 * recomputed from regs (the state now). Only forms Java heap accesses take
 * count (a displacement, no system instruction): backward decoding also
 * finds tails of longer instructions. x86 lengths vary, so there may be
 * several; up to max, longest first. Returns how many. With more than
 * WASP_MAX_INSN bytes (up to WASP_SYNC_WINDOW are used), decoding forward
 * from several earlier places says where the last instruction starts when
 * they agree, and only that candidate counts. */
enum { WASP_SYNC_WINDOW = 64 };
int wasp_isa_prev_accesses(const uint8_t *before, size_t n, uint64_t pc, const wasp_regs *regs,
                           wasp_access *out, int max);

/* Trap-PC recovery. A data watchpoint traps after the access, so trap_pc is the
 * address just past the instruction that touched [watch_addr, watch_addr+watch_len).
 * `before` holds the n (<= WASP_MAX_INSN) bytes that end at trap_pc, i.e. the
 * bytes at trap_pc-n .. trap_pc-1. regs is the state after the instruction.
 * Finds the instruction of length k that ends exactly at trap_pc, preferring a
 * candidate whose recomputed address overlaps the watched range; fills out
 * (out->len is its length, its start is trap_pc - out->len).
 * Returns 1 when found, 0 otherwise. */
int wasp_isa_recover_trap(const uint8_t *before, size_t n, uint64_t trap_pc,
                          const wasp_regs *regs, uint64_t watch_addr,
                          uint32_t watch_len, wasp_access *out);

/* Trap-PC recovery for string instructions (memset's `rep stosb`, memcpy's
 * `rep movsb`), which wasp_isa_recover_trap does not place: a repeated one
 * traps between elements with the PC still on it (`at`, the nat bytes at
 * the trap PC), a finished one like any other (`before`: the bytes ending
 * at the trap PC). regs is the state after the trap: rdi (and movs's rsi)
 * just past the element touched.
 * Fills out (addr is the watched address, kind the side that touched it:
 * stos and movs's destination store, movs's source loads; in_progress when
 * it runs on) and returns 1 when the instruction touched the watched range,
 * -1 when a repeated one at trap_pc has not reached it yet (its next
 * element's trap is the one), 0 when no string instruction is there. */
int wasp_isa_string_trap(const uint8_t *at, size_t nat, const uint8_t *before, size_t nbefore,
                         const wasp_regs *regs, uint64_t watch_addr, uint32_t watch_len,
                         wasp_access *out);

/* Whether the instruction at bytes[0..n) is a repeated string move (`rep
 * stos`, `rep movs`: memset's and memcpy's fast forms, the JVM's clearing),
 * which many CPUs run element by element, many times slower, while a data
 * breakpoint is enabled (watch/engine.h, string_slowdown). */
int wasp_isa_repeated_string(const uint8_t *bytes, size_t n);

/* Format one instruction in AT&T syntax, e.g. "movl %eax, 0x10(%rbx)".
 * Not for signal handlers (used when the profile is written).
 * Returns the string length, 0 when the bytes do not decode. */
size_t wasp_isa_format_att(const uint8_t *bytes, size_t n, uint64_t pc,
                           char *buf, size_t buflen);

/* Copy n bytes at addr into dst without ever faulting (process_vm_readv on our
 * own pid). Returns the number of bytes copied: a short count means the rest is
 * unmapped. Async-signal-safe. */
size_t wasp_safe_read(uint64_t addr, void *dst, size_t n);

/* Copy n code bytes at addr; `anchor` is an address the thread is executing,
 * whose page is certainly mapped (and readable: x86 code pages are). Bytes on
 * that page are copied directly, the rest through wasp_safe_read. Returns the
 * bytes copied (a prefix). Async-signal-safe. */
size_t wasp_read_code(uint64_t addr, uint8_t *dst, size_t n, uint64_t anchor);

/* The memory an emulated instruction reaches: read or write n bytes at
 * addr, returning n when done (less, or -1, when not). ASYNC-SIGNAL-SAFE
 * implementations only. */
typedef struct wasp_emulated_memory {
    ssize_t (*read)(void *ctx, uint64_t addr, void *dst, size_t n);
    ssize_t (*write)(void *ctx, uint64_t addr, const void *src, size_t n);
    void *ctx;
} wasp_emulated_memory;

/* The process's memory through /proc/self/mem, read-write (*fd: the
 * descriptor wasp_safe_read_protected opened): it reaches pages the program
 * itself cannot. */
wasp_emulated_memory wasp_emulated_proc_mem(int *fd);

/* Emulate the instruction at uc's PC (code: its bytes, n of them) when it is
 * a plain move between a register or an immediate and memory (mov, movzx,
 * movsx, and SSE/AVX moves of xmm/ymm/zmm 0-15 without masking), or integer
 * or scalar floating-point arithmetic with a memory operand (emulate_arith.c
 * lists the forms), or a forward `rep stos` (its elements on the page its
 * next one is on: rdi and rcx move past them, and the PC stays on it while
 * some are left), doing its memory access through mem. On success the
 * destination register or memory and the flags hold the result, the PC is
 * past the instruction, *addr its effective address, and 1 is returned; 0:
 * not a form emulated here (nothing changed); -1: the memory access failed (a
 * store may be partly done only where the real one would have faulted too).
 * A read-modify-write is not atomic: the caller keeps every other thread off
 * the memory meanwhile. ASYNC-SIGNAL-SAFE. */
int wasp_isa_emulate(ucontext_t *uc, const uint8_t *code, size_t n,
                     const wasp_emulated_memory *mem, uint64_t *addr);
/* Learn the CPU's XSAVE layout (ymm/zmm upper halves). Not for handlers. */
void wasp_isa_emulate_init(void);

/* From now on wasp_safe_read also reads pages protected PROT_NONE (the page
 * watchpoint engine's), through /proc/self/mem. Returns that descriptor
 * (read-write, for wasp_isa_emulate too), or -1 when it cannot be
 * opened. Not for signal handlers. */
int wasp_safe_read_protected(void);

#endif
