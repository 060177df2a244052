/* Sampling creations by page boundaries (analysis/alloc/byte_sampling.c): a
 * simulated allocation stream, laid out in TLABs as a JVM lays it out, is
 * sampled the way the handler does it (each boundary picked with chance p,
 * p changing as the handler changes it), and the weighted classes must give
 * the stream's real counts; weighing every caught object alike must not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "analysis/alloc/byte_sampling.h"

enum { CLASSES = 6, TLAB = 327 * 1024 };

/* Sizes from 16 bytes to several pages, in a repeating pattern whose phases
 * differ (a run of small objects, then the arrays). */
static const uint64_t SIZE[CLASSES] = {16, 24, 40, 272, 6000, 70000};
static const int PER_ROUND[CLASSES] = {400, 300, 200, 60, 6, 1};

typedef struct object {
    uint64_t start, size;
    int cls;
} object;

static object *objects;
static size_t nobjects;
static double real[CLASSES];

/* The stream: rounds of the pattern, objects packed in TLABs; an object
 * that does not fit starts the next TLAB (the rest is waste, never picked). */
static void build(int rounds)
{
    size_t cap = 0;
    for (int c = 0; c < CLASSES; c++)
        cap += (size_t)PER_ROUND[c];
    cap *= (size_t)rounds;
    objects = malloc(cap * sizeof *objects);
    assert_non_null(objects);
    nobjects = 0;
    uint64_t tlab = 1u << 20, top = tlab;
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < CLASSES; c++)
            for (int k = 0; k < PER_ROUND[c]; k++) {
                if (top + SIZE[c] > tlab + TLAB) {
                    tlab += TLAB + 4096 * (uint64_t)(r % 3); /* the next TLAB, after a gap */
                    top = tlab;
                }
                objects[nobjects++] = (object){top, SIZE[c], c};
                top += SIZE[c];
                real[c] += 1;
            }
}

/* The object holding addr, or NULL (TLAB waste). */
static const object *holding(uint64_t addr)
{
    size_t lo = 0, hi = nobjects;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (objects[mid].start + objects[mid].size <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nobjects && objects[lo].start <= addr ? &objects[lo] : NULL;
}

static double overlap(const double *a, const double *b)
{
    double ta = 0, tb = 0, o = 0;
    for (int c = 0; c < CLASSES; c++)
        ta += a[c], tb += b[c];
    for (int c = 0; c < CLASSES; c++)
        o += fmin(a[c] / ta, b[c] / tb);
    return o;
}

/* Walk the stream's page boundaries as the handler's chain does, the mean
 * gap 16 or 48 KiB in turn every 64 catches (as samples change it); weighted
 * (and unweighted) shares. */
static int sample(double *weighted, double *plain)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    double gap = WASP_ALLOC_GAP_MIN;
    int caught = 0;
    uint64_t end = objects[nobjects - 1].start + objects[nobjects - 1].size;
    uint64_t x = (objects[0].start + WASP_ALLOC_PAGE - 1) & ~(uint64_t)(WASP_ALLOC_PAGE - 1);
    double p = wasp_alloc_page_chance(gap);
    x += (wasp_alloc_pages_to_next(p, &rng) - 1) * WASP_ALLOC_PAGE;
    while (x < end) {
        const object *o = holding(x);
        if (o) {
            weighted[o->cls] += wasp_alloc_weight(o->size, p);
            plain[o->cls] += 1;
            if (++caught % 64 == 0)
                gap = caught / 64 % 2 ? 3 * WASP_ALLOC_GAP_MIN : WASP_ALLOC_GAP_MIN;
        }
        p = wasp_alloc_page_chance(gap);
        x += wasp_alloc_pages_to_next(p, &rng) * WASP_ALLOC_PAGE;
    }
    return caught;
}

static void weighted_counts_are_the_real_ones(void **state)
{
    (void)state;
    build(3000);
    double weighted[CLASSES] = {0}, plain[CLASSES] = {0};
    int caught = sample(weighted, plain);
    assert_true(caught > 10000);
    double w = overlap(weighted, real), u = overlap(plain, real);
    /* Size-proportional catches, each weighed back: the counts. Weighed
     * alike, the large objects swamp the small ones. */
    if (w < 0.97 || u > 0.6)
        fail_msg("overlap weighted %.3f (need >= 0.97), unweighted %.3f (need <= 0.6), %d caught",
                 w, u, caught);
    free(objects);
}

/* Pages to the next pick: geometric with mean 1/p, never 0. */
static void pages_to_next_is_geometric(void **state)
{
    (void)state;
    uint64_t rng = 12345;
    const double ps[] = {0.5, 0.05, 0.0156};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        double sum = 0;
        uint64_t min = UINT64_MAX;
        const int n = 200000;
        for (int k = 0; k < n; k++) {
            uint64_t g = wasp_alloc_pages_to_next(ps[i], &rng);
            sum += (double)g;
            min = g < min ? g : min;
        }
        assert_int_equal(min, 1);
        double mean = sum / n, want = 1 / ps[i];
        if (fabs(mean - want) > 0.02 * want)
            fail_msg("p %.4f: mean %.3f pages, want %.3f", ps[i], mean, want);
    }
    assert_int_equal(wasp_alloc_pages_to_next(1.0, &rng), 1);
}

/* The mean gap follows the catches toward WASP_ALLOC_CATCHES_PER_MS a ms
 * of CPU (here samples 1 ms apart), by at most a quarter a sample, within its
 * bounds; the page chance is 1 - e^(-page/gap). */
static void the_gap_follows_the_catches(void **state)
{
    (void)state;
    double g = WASP_ALLOC_GAP_START, rate = WASP_ALLOC_CATCHES_PER_MS;
    assert_true(wasp_alloc_next_gap(g, 0, 1.0, &rate) < g); /* fewer caught: closer picks */
    rate = WASP_ALLOC_CATCHES_PER_MS;
    assert_true(wasp_alloc_next_gap(g, 4, 1.0, &rate) > g);
    rate = 100;
    assert_true(wasp_alloc_next_gap(g, 100, 1.0, &rate) == 1.25 * g);
    rate = 0;
    assert_true(wasp_alloc_next_gap(g, 0, 1.0, &rate) == 0.8 * g);
    /* Steady at the target: unchanged. */
    rate = WASP_ALLOC_CATCHES_PER_MS;
    double same = wasp_alloc_next_gap(g, 0, 1.0, &rate);
    rate = WASP_ALLOC_CATCHES_PER_MS;
    assert_true(same < g && same > 0.7 * g);
    /* A run of samples catching one each settles where one is half as many. */
    rate = 0;
    for (int i = 0; i < 200; i++)
        g = wasp_alloc_next_gap(g, i % 2, 1.0, &rate);
    assert_true(rate > 0.4 && rate < 0.6);
    rate = 0;
    assert_true(wasp_alloc_next_gap(WASP_ALLOC_GAP_MIN, 0, 1.0, &rate) == WASP_ALLOC_GAP_MIN);
    rate = 9;
    assert_true(wasp_alloc_next_gap(WASP_ALLOC_GAP_MAX, 9, 1.0, &rate) == WASP_ALLOC_GAP_MAX);
    double p = wasp_alloc_page_chance(64.0 * 1024);
    assert_true(fabs(p - (1 - exp(-1.0 / 16))) < 1e-12);
    assert_true(fabs(wasp_alloc_weight(16, p) - 4096 / (16 * p)) < 1e-9);
}

/* Within one sample's interval the first WASP_ALLOC_BURST_CATCHES_PER_MS
 * catches a ms leave the gap alone; each after doubles it, up to its bound. */
static void a_burst_of_catches_widens_the_gap(void **state)
{
    (void)state;
    double g = WASP_ALLOC_GAP_START;
    for (double ms = 1; ms <= 4; ms *= 2) {
        uint32_t allowed = (uint32_t)(WASP_ALLOC_BURST_CATCHES_PER_MS * ms);
        for (uint32_t c = 1; c <= allowed; c++)
            assert_true(wasp_alloc_gap_after_catch(g, c, ms) == g);
        assert_true(wasp_alloc_gap_after_catch(g, allowed + 1, ms) == 2 * g);
    }
    assert_true(wasp_alloc_gap_after_catch(g, 1, 0.1) == g); /* always one */
    assert_true(wasp_alloc_gap_after_catch(g, 2, 0.1) == 2 * g);
    assert_true(wasp_alloc_gap_after_catch(WASP_ALLOC_GAP_MAX, 9, 1.0) == WASP_ALLOC_GAP_MAX);
}

/* The target is per ms of CPU: samples far enough apart to catch one
 * creation each on target, at the rate of 1 ms samples that catch one in
 * that many, leave the gap where those do. */
static void the_target_is_per_ms_of_cpu(void **state)
{
    (void)state;
    double apart = 1.0 / WASP_ALLOC_CATCHES_PER_MS; /* ms of CPU a catch */
    /* rate: the moving average of catches a sample */
    double g = WASP_ALLOC_GAP_START, rate = 1.0;
    double far = wasp_alloc_next_gap(g, 1, apart, &rate);
    assert_true(fabs(far - g) < 1e-9 * g); /* on target */
    rate = WASP_ALLOC_CATCHES_PER_MS;
    double at1 = wasp_alloc_next_gap(g, 0, 1.0, &rate);
    assert_true(fabs(at1 - 0.9 * g) < 1e-9 * g); /* none caught: below it */
    /* The catch a sample makes over `apart` ms is too many over 1 ms. */
    rate = 1.0;
    assert_true(wasp_alloc_next_gap(g, 1, 1.0, &rate) == 1.25 * g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weighted_counts_are_the_real_ones),
        cmocka_unit_test(pages_to_next_is_geometric),
        cmocka_unit_test(the_gap_follows_the_catches),
        cmocka_unit_test(a_burst_of_catches_widens_the_gap),
        cmocka_unit_test(the_target_is_per_ms_of_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
