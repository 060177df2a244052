/*
 * What the kernel alone charges for a fault on a protected page: the floor
 * under the page engine's cost per fault (docs/corpus.md, "The page engine").
 *
 * A load from a PROT_NONE page raises SIGSEGV; the handler only steps over
 * the load (a fixed 3-byte `mov (%rdi),%rax`) and returns. No decoding, no
 * emulation, no bookkeeping: what is left is the trap, the signal frame
 * (with the FPU state) and sigreturn. Printed: the median of BATCHES batches
 * of ROUNDS faults each, and the same for a pair of mprotect calls (what a
 * stepped fault adds). Compare with `watch_emulated_us` and
 * `watch_stepped_us` in a profile's meta (`wasp report --format json`).
 *
 * Usage: make bench-fault   (or build/bench/fault_round_trip)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>

enum { BATCHES = 21, ROUNDS = 5000, LOAD_BYTES = 3 };

static void step_over_load(int sig, siginfo_t *info, void *ctx)
{
    (void)sig;
    (void)info;
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP] += LOAD_BYTES;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void protected_load(const void *p)
{
    uint64_t v;
    /* 48 8b 07: exactly LOAD_BYTES long, whatever the compiler does around it. */
    __asm__ volatile(".byte 0x48, 0x8b, 0x07" : "=a"(v) : "D"(p) : "memory");
    (void)v;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

int main(void)
{
    long page_size = 4096;
    void *page = mmap(NULL, (size_t)page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    struct sigaction sa = {.sa_sigaction = step_over_load, .sa_flags = SA_SIGINFO};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0) {
        perror("sigaction");
        return 1;
    }
    double fault_us[BATCHES], protect_us[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns();
        for (int i = 0; i < ROUNDS; i++)
            protected_load(page);
        double t1 = now_ns();
        for (int i = 0; i < ROUNDS; i++) {
            mprotect(page, (size_t)page_size, PROT_READ);
            mprotect(page, (size_t)page_size, PROT_NONE);
        }
        double t2 = now_ns();
        fault_us[b] = (t1 - t0) / ROUNDS / 1e3;
        protect_us[b] = (t2 - t1) / ROUNDS / 1e3;
    }
    printf("fault round trip (trap, signal, sigreturn): %.2f us, median of %d x %d\n",
           median(fault_us, BATCHES), BATCHES, ROUNDS);
    printf("mprotect open + close: %.2f us\n", median(protect_us, BATCHES));
    return 0;
}
