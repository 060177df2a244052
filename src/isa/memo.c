/*
 * ASYNC-SIGNAL-SAFE: see memo.h. Entry layout in words: [0] seq (even:
 * stable, odd: being written), [1..2] key (byte 0: the window's length, 0 for
 * an empty entry; bytes 1-15: the window), [3..] the value.
 */
#include "isa/memo.h"

#include <string.h>

enum { MAX_WINDOW = 15 };

static void make_key(const uint8_t *bytes, size_t n, uint64_t key[2])
{
    uint8_t k[16] = {0};
    k[0] = (uint8_t)n;
    memcpy(k + 1, bytes, n);
    memcpy(key, k, sizeof k);
}

static uint64_t *entry_for(const wasp_memo *m, const uint64_t key[2])
{
    uint64_t h = key[0] * 0x9e3779b97f4a7c15ull ^ key[1] * 0xc2b2ae3d27d4eb4full;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return m->entries + (size_t)(h >> (64 - m->bits)) * m->stride;
}

int wasp_memo_get(const wasp_memo *m, const uint8_t *bytes, size_t n, void *value)
{
    if (n == 0 || n > MAX_WINDOW)
        return 0;
    uint64_t key[2], w[WASP_MEMO_MAX_WORDS];
    make_key(bytes, n, key);
    uint64_t *e = entry_for(m, key);
    uint64_t s1 = __atomic_load_n(&e[0], __ATOMIC_ACQUIRE);
    if (s1 & 1)
        return 0;
    if (__atomic_load_n(&e[1], __ATOMIC_RELAXED) != key[0] ||
        __atomic_load_n(&e[2], __ATOMIC_RELAXED) != key[1])
        return 0;
    for (unsigned i = 0; i < m->value_words; i++)
        w[i] = __atomic_load_n(&e[3 + i], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&e[0], __ATOMIC_RELAXED) != s1)
        return 0; /* overwritten while we read it */
    memcpy(value, w, m->value_words * 8u);
    return 1;
}

void wasp_memo_put(const wasp_memo *m, const uint8_t *bytes, size_t n, const void *value)
{
    if (n == 0 || n > MAX_WINDOW)
        return;
    uint64_t key[2], w[WASP_MEMO_MAX_WORDS];
    make_key(bytes, n, key);
    memcpy(w, value, m->value_words * 8u);
    uint64_t *e = entry_for(m, key);
    uint64_t s = __atomic_load_n(&e[0], __ATOMIC_RELAXED);
    if ((s & 1) ||
        !__atomic_compare_exchange_n(&e[0], &s, s + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return; /* another thread is writing it: leave it to them */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&e[1], key[0], __ATOMIC_RELAXED);
    __atomic_store_n(&e[2], key[1], __ATOMIC_RELAXED);
    for (unsigned i = 0; i < m->value_words; i++)
        __atomic_store_n(&e[3 + i], w[i], __ATOMIC_RELAXED);
    __atomic_store_n(&e[0], s + 2, __ATOMIC_RELEASE);
}
