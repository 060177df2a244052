/*
 * See exact_code.h. A sorted array of (start, method): lookups by binary
 * search; additions (a session's compilations, one at a time) go to an
 * unsorted tail, searched linearly (by an unload) until the next attach's
 * first lookup sorts them in.
 */
#include "agent/exact_code.h"

#include <stdlib.h>
#include <string.h>

#include "profile/part.h"

typedef struct exact_method {
    uint64_t start;
    jmethodID method;
    bool seen; /* asked about since the last prune */
} exact_method;

static exact_method *all;
static uint32_t n, cap, sorted; /* all[0..sorted) is sorted by start */

void wasp_exact_code_add(uint64_t start, jmethodID method)
{
    if (wasp_grow(&all, &cap, n + 1, sizeof *all) == 0) /* out of memory: taken as coarse */
        all[n++] = (exact_method){start, method, false};
}

static int by_start(const void *a, const void *b)
{
    uint64_t x = ((const exact_method *)a)->start, y = ((const exact_method *)b)->start;
    return x < y ? -1 : x > y;
}

/* The index of (start, method), or n. */
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
    for (uint32_t i = sorted; i < n; i++)
        if (all[i].start == start && all[i].method == method)
            return i;
    return n;
}

bool wasp_exact_code_has(uint64_t start, jmethodID method)
{
    if (sorted < n) { /* an attach's first question: the last session's additions sorted in */
        qsort(all, n, sizeof *all, by_start);
        sorted = n;
    }
    uint32_t i = find(start, method);
    if (i < n)
        all[i].seen = true;
    return i < n;
}

void wasp_exact_code_prune(void)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++)
        if (all[i].seen) {
            all[kept] = all[i];
            all[kept++].seen = false;
        }
    n = kept;
    qsort(all, n, sizeof *all, by_start);
    sorted = n;
}

void wasp_exact_code_forget(uint64_t start, jmethodID method)
{
    uint32_t i = find(start, method);
    if (i >= n)
        return;
    memmove(&all[i], &all[i + 1], (n - i - 1) * sizeof *all);
    n--;
    if (i < sorted)
        sorted--;
}
