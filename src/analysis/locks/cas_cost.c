/*
 * What one uncontended acquiring compare-and-swap costs (see cas_cost.h).
 * The loop is shaped like HotSpot's fast-path lock and unlock: a store (the
 * displaced header into the lock record, or the lock stack's entry), then a
 * `lock cmpxchg` on a cache-hot word setting the lock bits to 00; another
 * store and the releasing compare-and-swap back to 01. A locked instruction
 * waits for the stores before it to drain, so the store belongs to its cost
 * as a sample sees it. Batches are timed on the thread's CPU clock and the
 * fastest kept: an interrupt or a preemption only lengthens a batch. It
 * touches only its own static words (nothing can fault) and runs on the
 * agent's set-up thread, never in a signal handler.
 */
#include "analysis/locks/cas_cost.h"

#include <time.h>

enum { BATCH = 5000, MAX_BATCHES = 100 }; /* 10,000 compare-and-swaps a batch, ~30 us */

static double thread_cpu_ns(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return -1;
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#if defined(__x86_64__)
/* Its own cache line each: the mark word, and the lock record. */
static volatile uint64_t mark __attribute__((aligned(64))) = 1;
static volatile uint64_t record[8] __attribute__((aligned(64)));

static void lock_unlock(long n)
{
    for (long i = 0; i < n; i++) {
        uint64_t expect = 1, locked = (uint64_t)(uintptr_t)&record[0]; /* bits 00 */
        record[0] = expect;
        __asm__ volatile("lock cmpxchgq %2, %1"
                         : "+a"(expect), "+m"(mark)
                         : "r"(locked)
                         : "memory", "cc");
        uint64_t unlocked = 1;
        expect = locked;
        record[1] = (uint64_t)i;
        __asm__ volatile("lock cmpxchgq %2, %1"
                         : "+a"(expect), "+m"(mark)
                         : "r"(unlocked)
                         : "memory", "cc");
    }
}

double wasp_lock_cas_cost_ns(uint64_t budget_ns)
{
    double start = thread_cpu_ns(), best = 0;
    if (start < 0)
        return 0;
    lock_unlock(BATCH); /* warm the lines and the branch predictors */
    for (int b = 0; b < MAX_BATCHES; b++) {
        double t0 = thread_cpu_ns();
        lock_unlock(BATCH);
        double t = thread_cpu_ns() - t0;
        if (t > 0 && (best == 0 || t < best))
            best = t;
        if (thread_cpu_ns() - start > (double)budget_ns)
            break;
    }
    return best / (2.0 * BATCH);
}
#else
double wasp_lock_cas_cost_ns(uint64_t budget_ns)
{
    (void)budget_ns;
    (void)thread_cpu_ns;
    return 0;
}
#endif
