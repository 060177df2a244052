/*
 * See coarse_code.h. A sorted array of (start, method): lookups by binary
 * search, additions appended and sorted once the batch is done (the
 * methods a JVM had compiled, reported together by GenerateEvents).
 */
#include "agent/coarse_code.h"

#include <stdlib.h>
#include <string.h>

#include "profile/part.h"

typedef struct coarse_method {
    uint64_t start;
    jmethodID method;
} coarse_method;

static coarse_method *all;
static uint32_t n, cap, sorted; /* all[0..sorted) is sorted */

void wasp_coarse_code_add(uint64_t start, jmethodID method)
{
    if (wasp_grow(&all, &cap, n + 1, sizeof *all) == 0) /* out of memory: taken as exact */
        all[n++] = (coarse_method){start, method};
}

static int by_start(const void *a, const void *b)
{
    uint64_t x = ((const coarse_method *)a)->start, y = ((const coarse_method *)b)->start;
    return x < y ? -1 : x > y;
}

void wasp_coarse_code_added(void)
{
    if (n > sorted)
        qsort(all, n, sizeof *all, by_start);
    sorted = n;
}

/* The index of (start, method), or n. Starts are unique among live code;
 * a start remembered twice (unloaded unseen, reused) is looked through. */
static uint32_t find(uint64_t start, jmethodID method)
{
    uint32_t lo = 0, hi = sorted;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (all[mid].start < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < sorted && all[lo].start == start; lo++)
        if (all[lo].method == method)
            return lo;
    return n;
}

bool wasp_coarse_code_has(uint64_t start, jmethodID method)
{
    return find(start, method) < n;
}

void wasp_coarse_code_forget(uint64_t start, jmethodID method)
{
    uint32_t i = find(start, method);
    if (i >= n)
        return;
    memmove(&all[i], &all[i + 1], (n - i - 1) * sizeof *all);
    n--;
    sorted--;
}
