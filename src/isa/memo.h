/*
 * A table that remembers what a pure function of a short byte window (at most
 * 15 bytes: one x86 instruction) returned, shared by all threads: decoded
 * instructions (insn_decode.c) and the backward search's candidates
 * (isa_access.c). Keys are the bytes themselves and their count, so code the
 * JIT frees and rewrites can never be answered from a stale entry.
 *
 * ASYNC-SIGNAL-SAFE: used inside the signal handlers of every profiled thread
 * at once. No malloc, no locks, never waits: each entry is a seqlock whose
 * writer claims it with one compare-and-swap and gives up if another thread
 * holds it; a reader that sees a write in progress treats it as a miss.
 */
#ifndef WASP_ISA_MEMO_H
#define WASP_ISA_MEMO_H

#include <stddef.h>
#include <stdint.h>

typedef struct wasp_memo {
    uint64_t *entries; /* (1 << bits) entries of `stride` words, 64-byte aligned */
    unsigned bits;
    unsigned value_words; /* the value's size in 8-byte words */
    unsigned stride;      /* words per entry: 3 + value_words, rounded up to 8 */
} wasp_memo;

/* A table of 2^BITS entries for values of WORDS (at most WASP_MEMO_MAX_WORDS)
 * words, in static storage (zeroed: every entry starts empty). */
enum { WASP_MEMO_MAX_WORDS = 16 };
#define WASP_MEMO_STRIDE(words) ((3u + (words) + 7u) / 8u * 8u)
#define WASP_MEMO_DEFINE(name, BITS, WORDS)                                                      \
    _Static_assert((WORDS) <= WASP_MEMO_MAX_WORDS, #name ": value too large for the memo");   \
    static uint64_t name##_entries[(1u << (BITS)) * WASP_MEMO_STRIDE(WORDS)]                     \
        __attribute__((aligned(64)));                                                            \
    const wasp_memo name = {name##_entries, (BITS), (WORDS), WASP_MEMO_STRIDE(WORDS)}

/* 1 with the value (value_words words) remembered for bytes[0..n), 0 when
 * none is (n must be 1..15). */
int wasp_memo_get(const wasp_memo *m, const uint8_t *bytes, size_t n, void *value);

/* Remember value for bytes[0..n); skipped when another thread is writing the
 * same entry. */
void wasp_memo_put(const wasp_memo *m, const uint8_t *bytes, size_t n, const void *value);

#endif
