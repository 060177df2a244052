/* The share of a thread's allocation its alloc chain covered
 * (analysis/alloc/coverage.c): the bytes of a window counted from the
 * thread's TLAB counts, and catches weighed by allocated over covered bytes,
 * on a thread whose JavaThread is a plain buffer laid out as heap/tlab.h
 * reads it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "analysis/alloc/coverage.h"
#include "heap/tlab.h"

enum { KIB = 1024 };

/* The fake JavaThread, its JNIEnv at offset 0. */
static uint64_t thread[8];
/* The thread's bytes outside TLABs as its allocation samples estimate them. */
static uint64_t outside_now;

static void set_tlab(uint64_t start, uint64_t top, uint64_t end, uint32_t refills,
                     uint64_t retired)
{
    thread[0] = start;
    thread[1] = top;
    thread[2] = end;
    memcpy(&thread[3], &refills, sizeof refills);
    thread[4] = 64 * KIB / 8; /* _desired_size, in heap words */
    thread[5] = retired;      /* Thread::_allocated_bytes */
}

static int setup(void **state)
{
    (void)state;
    memset(thread, 0, sizeof thread);
    outside_now = 0;
    wasp_tlab.start_from_env = 0;
    wasp_tlab.top_from_env = 8;
    wasp_tlab.end_from_env = 16;
    wasp_tlab.refills_from_env = 24;
    wasp_tlab.desired_from_env = 32;
    wasp_tlab.allocated_from_env = 40;
    wasp_tlab.has_counts = 1;
    wasp_tlab.ready = 1;
    return 0;
}

static void window_bytes_from_the_counts(void **state)
{
    (void)state;
    /* The same TLAB: what its top moved. */
    assert_int_equal(wasp_alloc_window_bytes(10 * KIB, 64 * KIB, 5, 30 * KIB, 5, 64 * KIB), 20 * KIB);
    /* Two refills: the first TLAB's rest, one whole, the new one's used part. */
    assert_int_equal(wasp_alloc_window_bytes(10 * KIB, 64 * KIB, 5, 3 * KIB, 7, 64 * KIB),
                     54 * KIB + 64 * KIB + 3 * KIB);
    /* A GC zeroed the refills: not known from them. */
    assert_int_equal(wasp_alloc_window_bytes(10 * KIB, 64 * KIB, 5, 3 * KIB, 1, 64 * KIB), 0);
    assert_int_equal(wasp_alloc_window_bytes(30 * KIB, 64 * KIB, 5, 3 * KIB, 5, 64 * KIB), 0);
}

static void factor_is_bounded(void **state)
{
    (void)state;
    assert_true(wasp_alloc_cover_factor(100, 25) == 4.0);
    assert_true(wasp_alloc_cover_factor(100, 100) == 1.0);
    assert_true(wasp_alloc_cover_factor(90, 100) == 1.0); /* waste counted as covered */
    assert_true(wasp_alloc_cover_factor(100, 0) == 1.0);
    assert_true(wasp_alloc_cover_factor(0, 100) == 1.0);
    assert_true(wasp_alloc_cover_factor(1000000, 1) == WASP_ALLOC_COVER_MAX);
}

static double added[4], added_bytes[4];

static void add(void *arg, uint32_t rec, double weight, double bytes, double factor)
{
    (void)arg;
    added[rec] += weight * (factor - 1);
    added_bytes[rec] += bytes * (factor - 1);
}

static void close_window(wasp_alloc_coverage *c, uint32_t epoch, uint64_t *allocated,
                         uint64_t *covered)
{
    memset(added, 0, sizeof added);
    memset(added_bytes, 0, sizeof added_bytes);
    wasp_alloc_cover_close(c, thread, epoch, outside_now, add, NULL, allocated, covered);
}

/* A slow window covered whole weighs as caught; a fast one, whose chain
 * ended at its first TLAB's end, by what it allocated over what it covered. */
static void catches_weigh_by_the_window_coverage(void **state)
{
    (void)state;
    const uint64_t T = 1 << 20; /* heap address of the first TLAB */
    wasp_alloc_coverage c;
    memset(&c, 0, sizeof c);
    uint64_t a, cov;
    set_tlab(T, T + 8 * KIB, T + 64 * KIB, 3, 1000);
    close_window(&c, 1, &a, &cov); /* the first sample opens a window */
    assert_true(c.open);
    assert_int_equal(a, 0);
    /* Slow: the chain starts at the top and the thread allocates 16 KiB in
     * the same TLAB; one catch. */
    wasp_alloc_cover_from(&c, T + 8 * KIB, T + 64 * KIB);
    wasp_alloc_cover_caught(&c, 1, 2.0, 2.0 * 16);
    set_tlab(T, T + 24 * KIB, T + 64 * KIB, 3, 1000);
    close_window(&c, 1, &a, &cov);
    assert_int_equal(a, 16 * KIB);
    assert_int_equal(cov, 16 * KIB);
    assert_true(added[1] == 0.0);
    /* The chain goes on in the same TLAB from there, to its end (a pick
     * past it); the thread takes three more TLABs, 32 KiB used of the
     * last: covered 40 KiB of 40 + 2 x 64 + 32. Two catches. */
    wasp_alloc_cover_from(&c, T + 24 * KIB, T + 64 * KIB); /* the next sample: the same stretch */
    wasp_alloc_cover_caught(&c, 2, 1.0, 1.0 * 16);
    wasp_alloc_cover_caught(&c, 3, 3.0, 3.0 * 16);
    const uint64_t U = T + 4 * 64 * KIB;
    set_tlab(U, U + 32 * KIB, U + 64 * KIB, 6, 1000 + 64 * KIB * 3);
    close_window(&c, 1, &a, &cov);
    assert_int_equal(a, 40 * KIB + 2 * 64 * KIB + 32 * KIB);
    assert_int_equal(cov, 40 * KIB);
    double f = 200.0 / 40.0;
    assert_true(added[2] > 1.0 * (f - 1) - 1e-9 && added[2] < 1.0 * (f - 1) + 1e-9);
    assert_true(added[3] > 3.0 * (f - 1) - 1e-9 && added[3] < 3.0 * (f - 1) + 1e-9);
    /* Each catch's bytes grow by the same factor: its own size rides along. */
    assert_true(added_bytes[3] > 48.0 * (f - 1) - 1e-9 && added_bytes[3] < 48.0 * (f - 1) + 1e-9);
    assert_int_equal(c.ncaught, 0);
    /* A chain that stopped early (the engine refused its next watch)
     * covered up to the top then: 8 of the 16 KiB allocated. */
    wasp_alloc_cover_from(&c, U + 32 * KIB, U + 64 * KIB);
    wasp_alloc_cover_stop(&c, U + 40 * KIB);
    wasp_alloc_cover_caught(&c, 1, 1.0, 1.0 * 16);
    set_tlab(U, U + 48 * KIB, U + 64 * KIB, 6, 1000 + 64 * KIB * 3);
    close_window(&c, 1, &a, &cov);
    assert_int_equal(a, 16 * KIB);
    assert_int_equal(cov, 8 * KIB);
    assert_true(added[1] > 0.999 && added[1] < 1.001);
    /* A window with no chain at all (4 KiB allocated): its bytes weigh on
     * the next window's catches, whose chain covered 8 of 8 KiB. */
    set_tlab(U, U + 52 * KIB, U + 64 * KIB, 6, 1000 + 64 * KIB * 3);
    close_window(&c, 1, &a, &cov);
    assert_int_equal(a, 0);
    wasp_alloc_cover_from(&c, U + 52 * KIB, U + 64 * KIB);
    wasp_alloc_cover_caught(&c, 2, 1.0, 1.0 * 16);
    set_tlab(U, U + 60 * KIB, U + 64 * KIB, 6, 1000 + 64 * KIB * 3);
    close_window(&c, 1, &a, &cov);
    assert_int_equal(a, 12 * KIB);
    assert_int_equal(cov, 8 * KIB);
    assert_true(added[2] > 0.5 - 1e-9 && added[2] < 0.5 + 1e-9);
}

/* A GC in the window zeroes the refills: the thread's allocated bytes
 * (which count objects outside TLABs too) give the window's bytes then. */
static void a_gc_window_falls_back_on_allocated_bytes(void **state)
{
    (void)state;
    const uint64_t T = 1 << 20;
    wasp_alloc_coverage c;
    memset(&c, 0, sizeof c);
    uint64_t a, cov;
    set_tlab(T, T + 8 * KIB, T + 64 * KIB, 9, 5000);
    close_window(&c, 1, &a, &cov);
    wasp_alloc_cover_from(&c, T + 8 * KIB, T + 64 * KIB);
    wasp_alloc_cover_caught(&c, 0, 1.0, 1.0 * 16);
    set_tlab(T + 512 * KIB, T + 528 * KIB, T + 576 * KIB, 1, 5000 + 64 * KIB + 64 * KIB);
    close_window(&c, 2, &a, &cov);
    /* 56 KiB to the first TLAB's end, one retired TLAB, 16 KiB of this one. */
    assert_int_equal(a, 56 * KIB + 64 * KIB + 16 * KIB);
    assert_int_equal(cov, 56 * KIB);
    assert_true(added[0] > 136.0 / 56.0 - 1 - 1e-9 && added[0] < 136.0 / 56.0 - 1 + 1e-9);
}

/* Objects allocated outside TLABs are in the thread's allocated bytes and
 * in no TLAB: a window across a GC leaves out what the allocation samples
 * estimate of them, and one without a GC goes by the TLAB counts alone, even
 * when they say no TLAB byte was allocated. */
static void outside_bytes_are_not_tlab_bytes(void **state)
{
    (void)state;
    const uint64_t T = 1 << 20;
    wasp_alloc_coverage c;
    memset(&c, 0, sizeof c);
    uint64_t a, cov;
    outside_now = 100 * KIB;
    set_tlab(T, T + 8 * KIB, T + 64 * KIB, 9, 5000);
    close_window(&c, 1, &a, &cov);
    wasp_alloc_cover_from(&c, T + 8 * KIB, T + 64 * KIB);
    wasp_alloc_cover_caught(&c, 0, 1.0, 1.0 * 16);
    /* A GC; 300 KiB outside TLABs, and the TLAB bytes of the window before:
     * 56 KiB to the first TLAB's end, one retired TLAB, 16 KiB of this one. */
    outside_now += 300 * KIB;
    set_tlab(T + 512 * KIB, T + 528 * KIB, T + 576 * KIB, 1, 5000 + 128 * KIB + 300 * KIB);
    close_window(&c, 2, &a, &cov);
    assert_int_equal(a, 136 * KIB);
    /* No GC, no TLAB byte, 200 KiB outside: none of them the TLAB's. */
    wasp_alloc_cover_from(&c, T + 528 * KIB, T + 576 * KIB);
    wasp_alloc_cover_caught(&c, 1, 1.0, 1.0 * 16);
    outside_now += 200 * KIB;
    set_tlab(T + 512 * KIB, T + 528 * KIB, T + 576 * KIB, 1, 5000 + 128 * KIB + 500 * KIB);
    close_window(&c, 2, &a, &cov);
    assert_int_equal(a, 0);
    /* An estimate above what the thread allocated (sampling noise): none. */
    outside_now += 900 * KIB;
    set_tlab(T + 1024 * KIB, T + 1032 * KIB, T + 1088 * KIB, 0, 5000 + 128 * KIB + 600 * KIB);
    close_window(&c, 3, &a, &cov);
    assert_int_equal(a, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_bytes_from_the_counts),
        cmocka_unit_test(factor_is_bounded),
        cmocka_unit_test_setup(catches_weigh_by_the_window_coverage, setup),
        cmocka_unit_test_setup(a_gc_window_falls_back_on_allocated_bytes, setup),
        cmocka_unit_test_setup(outside_bytes_are_not_tlab_bytes, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
