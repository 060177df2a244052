/* What issue 38 cut from a sample's cost keeps the answers it gave:
 * - a drawn interval kept for WASP_INTERVAL_KEPT samples (interval.c): a new
 *   one is drawn every that many samples, never in between, and the
 *   intervals the sampler sees still average the period when each re-arming
 *   comes late (its lateness taken off the interval armed, a share from
 *   each sample it serves; the check test_jitter.c made when every sample
 *   re-armed);
 * - wasp_insn_length (the backward search's synchronisation) says what the
 *   full decode says of the bytes: the same length, or both no instruction. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "isa/insn.h"
#include "isa/isa.h"
#include "sample/jitter.h"
#include "sample/source.h"

enum { SAMPLES = 400000 };

/* The kernel's side, modelled: a kept interval is reloaded at its expiry,
 * so the sampler sees it exactly; a re-armed one counts from the re-arming,
 * `late` after the expiry that sent the signal. */
static void kept_intervals_average_the_period(void **state)
{
    (void)state;
    wasp_source src;
    memset(&src, 0, sizeof src);
    src.jitter = WASP_JITTER_ONE / 2;
    wasp_sampler_thread t;
    memset(&t, 0, sizeof t);
    t.rng = wasp_jitter_seed(3, 4);
    const uint64_t mean = 1000000, late = 27000; /* measured: 27 us median */
    uint64_t armed = mean;
    double total = 0;
    int redraws = 0, since = 0;
    for (int i = 0; i < SAMPLES; i++) {
        if (wasp_sampler_redraw(&t)) {
            assert_int_equal(++since, WASP_INTERVAL_KEPT);
            since = 0;
            armed = wasp_sampler_after(&src, &t, mean, late);
            total += (double)(armed + late);
            redraws++;
        } else {
            since++;
            assert_true(since < WASP_INTERVAL_KEPT);
            total += (double)armed;
        }
    }
    assert_int_equal(redraws, SAMPLES / WASP_INTERVAL_KEPT);
    /* Draws are uniform over +-50%: sd mean/sqrt(12); each serves
     * WASP_INTERVAL_KEPT samples, so the mean has redraws' worth of them. */
    double se = (double)mean / sqrt(12.0) / sqrt((double)redraws);
    assert_true(fabs(total / SAMPLES - (double)mean) < 5 * se);
    /* Later than a period is forgiven, not owed for ever. */
    for (int i = 0; i < 100; i++)
        wasp_sampler_after(&src, &t, mean, 5 * mean);
    assert_true(t.owed <= mean);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint8_t next_byte(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint8_t)rng;
}

static void assert_length_agrees(const uint8_t *b, size_t n)
{
    wasp_insn d;
    int rd = wasp_insn_decode_direct(b, n, &d);
    int len = wasp_insn_length(b, n);
    if (rd < 0)
        assert_int_equal(len, -1);
    else
        assert_int_equal(len, d.length);
}

/* Random bytes (mostly no instruction, or one of odd shapes) and the
 * compiler's own code, at every offset (boundaries and tails of real
 * instructions). */
static void length_agrees_with_decode(void **state)
{
    (void)state;
    uint8_t b[WASP_MAX_INSN];
    for (int i = 0; i < 200000; i++) {
        size_t n = 1 + next_byte() % WASP_MAX_INSN;
        for (size_t k = 0; k < n; k++)
            b[k] = next_byte();
        assert_length_agrees(b, n);
    }
    const uint8_t *code = (const uint8_t *)(uintptr_t)&wasp_insn_decode_direct;
    for (size_t off = 0; off < 2048; off++) {
        memcpy(b, code + off, sizeof b);
        assert_length_agrees(b, sizeof b);
        assert_length_agrees(b, 1 + off % WASP_MAX_INSN);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kept_intervals_average_the_period),
        cmocka_unit_test(length_agrees_with_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
