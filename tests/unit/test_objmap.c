/* The address -> object map: boundaries, pending/published, replace, epochs,
 * a large map against a brute-force oracle, staged races with one lookup, and
 * lookups racing inserts, publishes and replaces — from ordinary threads and
 * from signal handlers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* White-box: the map's shapes and its lookup hooks, so races with a lookup
 * can be staged deterministically. */
#include "heap/objmap.h"
#include "heap/objmap_internal.h"

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void expect_hit(wasp_objmap *m, uint64_t addr, uint32_t epoch, uint64_t start,
                       uint32_t size, uint32_t site)
{
    wasp_obj o = {0, 0, 0};
    if (!wasp_objmap_lookup(m, addr, epoch, &o))
        fail_msg("0x%llx (epoch %u): no object, expected [0x%llx,+%u) site %u",
                 (unsigned long long)addr, epoch, (unsigned long long)start, size, site);
    if (o.start != start || o.size != size || o.site != site)
        fail_msg("0x%llx (epoch %u): got [0x%llx,+%u) site %u, expected [0x%llx,+%u) site %u",
                 (unsigned long long)addr, epoch, (unsigned long long)o.start, o.size, o.site,
                 (unsigned long long)start, size, site);
}

static void expect_miss(wasp_objmap *m, uint64_t addr, uint32_t epoch)
{
    wasp_obj o = {0, 0, 0};
    if (wasp_objmap_lookup(m, addr, epoch, &o))
        fail_msg("0x%llx (epoch %u): got [0x%llx,+%u) site %u, expected none",
                 (unsigned long long)addr, epoch, (unsigned long long)o.start, o.size, o.site);
}

/* A at 0x1000 (64 bytes), B at 0x1100 (16) and C right after B (32). */
static void check_layout(wasp_objmap *m, uint32_t e)
{
    expect_miss(m, 0, e);
    expect_miss(m, 0xfff, e);                   /* before the first */
    expect_hit(m, 0x1000, e, 0x1000, 64, 1);    /* start */
    expect_hit(m, 0x1021, e, 0x1000, 64, 1);    /* inside */
    expect_hit(m, 0x103f, e, 0x1000, 64, 1);    /* end - 1 */
    expect_miss(m, 0x1040, e);                  /* just past the end */
    expect_miss(m, 0x10a0, e);                  /* between objects */
    expect_miss(m, 0x10ff, e);
    expect_hit(m, 0x1100, e, 0x1100, 16, 2);
    expect_hit(m, 0x110f, e, 0x1100, 16, 2);
    expect_hit(m, 0x1110, e, 0x1110, 32, 3);    /* B's end is C's start */
    expect_hit(m, 0x112f, e, 0x1110, 32, 3);
    expect_miss(m, 0x1130, e);                  /* after the last */
    expect_miss(m, UINT64_MAX, e);
}

static void boundaries_pending_and_published(void **state)
{
    (void)state;
    wasp_objmap *m = wasp_objmap_new();
    assert_non_null(m);
    expect_miss(m, 0x1000, 2); /* empty map */
    assert_int_equal(wasp_objmap_insert(m, 0x1110, 32, 3, 2), 0);
    assert_int_equal(wasp_objmap_insert(m, 0x1000, 64, 1, 2), 0);
    assert_int_equal(wasp_objmap_insert(m, 0x1100, 16, 2, 2), 0);
    check_layout(m, 2); /* all pending */
    assert_int_equal(wasp_objmap_count(m), 3);
    assert_int_equal(wasp_objmap_publish(m), 0);
    check_layout(m, 2); /* all published */
    assert_int_equal(wasp_objmap_count(m), 3);
    assert_int_equal(wasp_objmap_publish(m), 0); /* nothing pending */
    check_layout(m, 2);
    wasp_objmap_free(m);

    /* half published, half pending */
    m = wasp_objmap_new();
    assert_int_equal(wasp_objmap_insert(m, 0x1100, 16, 2, 2), 0);
    assert_int_equal(wasp_objmap_publish(m), 0);
    assert_int_equal(wasp_objmap_insert(m, 0x1000, 64, 1, 2), 0);
    assert_int_equal(wasp_objmap_insert(m, 0x1110, 32, 3, 2), 0);
    check_layout(m, 2);
    /* zero-size objects contain nothing and are not tracked */
    assert_int_equal(wasp_objmap_insert(m, 0x1080, 0, 9, 2), 0);
    expect_miss(m, 0x1080, 2);
    assert_int_equal(wasp_objmap_count(m), 3);
    wasp_objmap_free(m);
}

static void object_at_the_top_of_the_address_space(void **state)
{
    (void)state;
    wasp_objmap *m = wasp_objmap_new();
    uint64_t top = UINT64_MAX - 15; /* [top, top+16) ends exactly at 2^64 */
    assert_int_equal(wasp_objmap_insert(m, top, 16, 7, 0), 0);
    expect_hit(m, UINT64_MAX, 0, top, 16, 7);
    expect_miss(m, top - 1, 0);
    assert_int_equal(wasp_objmap_publish(m), 0);
    expect_hit(m, UINT64_MAX, 0, top, 16, 7);
    expect_hit(m, top, 0, top, 16, 7);
    expect_miss(m, 0, 0);
    wasp_objmap_free(m);
}

static void replace_removes_old_and_adds_new(void **state)
{
    (void)state;
    wasp_objmap *m = wasp_objmap_new();
    const wasp_obj a[] = {{0x2000, 32, 10}, {0x3000, 32, 11}};
    const wasp_obj b[] = {{0x3010, 64, 20}, {0x2800, 8, 21}, {0x5000, 16, 22}};
    assert_int_equal(wasp_objmap_replace(m, a, 2, 4), 0);
    expect_hit(m, 0x2010, 4, 0x2000, 32, 10);
    expect_hit(m, 0x301f, 4, 0x3000, 32, 11);
    /* another set: a's objects are gone, b's are there (unsorted input) */
    assert_int_equal(wasp_objmap_replace(m, b, 3, 4), 0);
    expect_miss(m, 0x2000, 4);
    expect_miss(m, 0x3000, 4);
    expect_hit(m, 0x3010, 4, 0x3010, 64, 20);
    expect_hit(m, 0x304f, 4, 0x3010, 64, 20);
    expect_hit(m, 0x2807, 4, 0x2800, 8, 21);
    expect_miss(m, 0x2808, 4);
    expect_hit(m, 0x5000, 4, 0x5000, 16, 22);
    assert_int_equal(wasp_objmap_count(m), 3);

    /* inserts of epoch 4, published or not, go with a replace for epoch 6 */
    assert_int_equal(wasp_objmap_insert(m, 0x6000, 16, 30, 4), 0);
    assert_int_equal(wasp_objmap_publish(m), 0);
    assert_int_equal(wasp_objmap_insert(m, 0x7000, 16, 31, 4), 0);
    expect_hit(m, 0x6000, 4, 0x6000, 16, 30);
    expect_hit(m, 0x7000, 4, 0x7000, 16, 31);
    const wasp_obj c[] = {{0x2000, 16, 40}};
    assert_int_equal(wasp_objmap_replace(m, c, 1, 6), 0);
    expect_miss(m, 0x6000, 4);
    expect_miss(m, 0x7000, 4);
    expect_miss(m, 0x3010, 4);
    expect_miss(m, 0x3010, 6);
    expect_hit(m, 0x2000, 6, 0x2000, 16, 40);
    expect_miss(m, 0x2000, 4);
    assert_int_equal(wasp_objmap_count(m), 1);
    assert_int_equal(wasp_objmap_publish(m), 0);
    expect_miss(m, 0x7000, 4);
    assert_int_equal(wasp_objmap_count(m), 1);

    /* replace with nothing empties the map */
    assert_int_equal(wasp_objmap_replace(m, NULL, 0, 8), 0);
    expect_miss(m, 0x2000, 6);
    expect_miss(m, 0x2000, 8);
    assert_int_equal(wasp_objmap_count(m), 0);
    wasp_objmap_free(m);
}

static void epochs_filter_lookups(void **state)
{
    (void)state;
    wasp_objmap *m = wasp_objmap_new();
    assert_int_equal(wasp_objmap_insert(m, 0x1000, 64, 3, 3), 0);
    expect_hit(m, 0x1000, 3, 0x1000, 64, 3);
    expect_miss(m, 0x1000, 4);
    /* the same addresses hold another object after a collection */
    assert_int_equal(wasp_objmap_insert(m, 0x1020, 64, 4, 4), 0);
    for (int pass = 0; pass < 2; pass++) { /* pending, then published */
        expect_hit(m, 0x1000, 3, 0x1000, 64, 3);
        expect_hit(m, 0x1030, 3, 0x1000, 64, 3);
        expect_miss(m, 0x1000, 4);
        expect_hit(m, 0x1030, 4, 0x1020, 64, 4);
        expect_hit(m, 0x105f, 4, 0x1020, 64, 4);
        expect_miss(m, 0x105f, 3);
        expect_miss(m, 0x1030, 5);
        assert_int_equal(wasp_objmap_publish(m), 0);
    }
    wasp_objmap_free(m);

    /* replace(5) keeps pending inserts of epoch 5 and drops those of epoch 4 */
    m = wasp_objmap_new();
    assert_int_equal(wasp_objmap_insert(m, 0x4000, 32, 44, 4), 0);
    assert_int_equal(wasp_objmap_insert(m, 0x5000, 32, 55, 5), 0);
    assert_int_equal(wasp_objmap_insert(m, 0x6000, 32, 66, 6), 0);
    const wasp_obj moved[] = {{0x8000, 32, 44}};
    assert_int_equal(wasp_objmap_replace(m, moved, 1, 5), 0);
    for (int pass = 0; pass < 2; pass++) {
        expect_miss(m, 0x4000, 4);
        expect_hit(m, 0x5010, 5, 0x5000, 32, 55);
        expect_hit(m, 0x6010, 6, 0x6000, 32, 66);
        expect_hit(m, 0x8010, 5, 0x8000, 32, 44);
        expect_miss(m, 0x8010, 4);
        assert_int_equal(wasp_objmap_count(m), 3);
        assert_int_equal(wasp_objmap_publish(m), 0);
    }
    /* a late insert for an epoch already replaced is dropped when published */
    assert_int_equal(wasp_objmap_insert(m, 0x9000, 32, 99, 4), 0);
    assert_int_equal(wasp_objmap_publish(m), 0);
    expect_miss(m, 0x9000, 4);
    assert_int_equal(wasp_objmap_count(m), 3);
    wasp_objmap_free(m);
}

/* Whether an insert was folded in before the replace must not matter. */
static void published_inserts_survive_a_replace_of_their_epoch(void **state)
{
    (void)state;
    wasp_objmap *m = wasp_objmap_new();
    assert_int_equal(wasp_objmap_insert(m, 0x1000, 16, 1, 5), 0); /* before the GC */
    assert_int_equal(wasp_objmap_publish(m), 0);
    assert_int_equal(wasp_objmap_insert(m, 0x2000, 16, 2, 6), 0); /* after it */
    assert_int_equal(wasp_objmap_publish(m), 0);
    assert_int_equal(wasp_objmap_insert(m, 0x3000, 16, 3, 6), 0);
    const wasp_obj moved[] = {{0x1800, 16, 1}};
    assert_int_equal(wasp_objmap_replace(m, moved, 1, 6), 0);
    expect_miss(m, 0x1000, 5);
    expect_hit(m, 0x1800, 6, 0x1800, 16, 1);
    expect_hit(m, 0x2000, 6, 0x2000, 16, 2);
    expect_hit(m, 0x3000, 6, 0x3000, 16, 3);
    assert_int_equal(wasp_objmap_count(m), 3);
    /* the replace set itself does not survive the next replace, inserts of
     * its epoch do only for a replace of that epoch */
    assert_int_equal(wasp_objmap_replace(m, NULL, 0, 6), 0);
    expect_miss(m, 0x1800, 6);
    expect_hit(m, 0x2000, 6, 0x2000, 16, 2);
    expect_hit(m, 0x3000, 6, 0x3000, 16, 3);
    assert_int_equal(wasp_objmap_replace(m, NULL, 0, 8), 0);
    expect_miss(m, 0x2000, 6);
    assert_int_equal(wasp_objmap_count(m), 0);
    wasp_objmap_free(m);
}

static void same_start_twice_keeps_the_later(void **state)
{
    (void)state;
    wasp_objmap *m = wasp_objmap_new();
    assert_int_equal(wasp_objmap_insert(m, 0x1000, 16, 1, 2), 0);
    assert_int_equal(wasp_objmap_insert(m, 0x1000, 16, 2, 2), 0);
    assert_int_equal(wasp_objmap_publish(m), 0);
    expect_hit(m, 0x1000, 2, 0x1000, 16, 2);
    assert_int_equal(wasp_objmap_count(m), 1);
    /* objs win over a published insert at the same place */
    const wasp_obj o[] = {{0x1000, 16, 3}, {0x1000, 16, 4}};
    assert_int_equal(wasp_objmap_replace(m, o, 2, 2), 0);
    expect_hit(m, 0x1000, 2, 0x1000, 16, 4);
    assert_int_equal(wasp_objmap_count(m), 1);
    wasp_objmap_free(m);
}

/* Full log blocks are searched through their sorted copy; what the view has
 * folded or dropped from them stays invisible. */
static void full_log_blocks(void **state)
{
    (void)state;
    wasp_objmap *m = wasp_objmap_new();
    const uint64_t base = 0x40000000;
    for (uint32_t i = 0; i < LOG_CAP; i++) {
        if (i == LOG_CAP / 2)
            assert_int_equal(wasp_objmap_publish(m), 0);
        assert_int_equal(wasp_objmap_insert(m, base + 64 * (uint64_t)(LOG_CAP - 1 - i), 40, i, 4),
                         0);
    }
    assert_non_null(atomic_load(&m->log->sorted)); /* the block is full */
    assert_null(atomic_load(&m->log->next));
    for (uint32_t i = 0; i < LOG_CAP; i++) {
        uint64_t at = base + 64 * (uint64_t)(LOG_CAP - 1 - i);
        expect_hit(m, at, 4, at, 40, i);
        expect_hit(m, at + 39, 4, at, 40, i);
        expect_miss(m, at + 40, 4);
        expect_miss(m, at, 2);
    }
    assert_int_equal(wasp_objmap_count(m), LOG_CAP);
    /* everything in the full block is older than the replace: gone, although
     * the view still starts in that block */
    assert_int_equal(wasp_objmap_replace(m, NULL, 0, 6), 0);
    assert_ptr_equal(atomic_load(&m->view)->log, m->log);
    for (uint32_t i = 0; i < LOG_CAP; i++)
        expect_miss(m, base + 64 * (uint64_t)i, 4);
    assert_int_equal(wasp_objmap_count(m), 0);
    /* a block filled while the publisher is away is folded by the inserter */
    for (uint32_t i = 0; i < 3 * LOG_CAP; i++)
        assert_int_equal(wasp_objmap_insert(m, base + 64 * (uint64_t)i, 40, i, 6), 0);
    const struct view *v = atomic_load(&m->view);
    assert_true(v->main || v->delta);
    for (uint32_t i = 0; i < 3 * LOG_CAP; i += 7)
        expect_hit(m, base + 64 * (uint64_t)i + 5, 6, base + 64 * (uint64_t)i, 40, i);
    assert_int_equal(wasp_objmap_count(m), 3 * LOG_CAP);
    wasp_objmap_free(m);
}

/* ---- staged races: writers run inside a lookup, through its hooks ---- */

static int in_list(const struct view *list, const struct view *v)
{
    for (; list; list = list->next)
        if (list == v)
            return 1;
    return 0;
}

static struct {
    int entering_calls, reading_calls;
    int flipped;       /* the parity changed under the entering lookup */
    int kept_alive;    /* the view the lookup read was retired but not freed */
} staged;

/* After the lookup read the parity, before it registered: one install flips
 * the parity, so the lookup's counter is stale. */
static void stage_flip(wasp_objmap *m)
{
    if (staged.entering_calls++ > 0)
        return; /* the retry */
    unsigned before = atomic_load(&m->parity);
    assert_int_equal(wasp_objmap_insert(m, 0x5000, 16, 50, 2), 0);
    assert_int_equal(wasp_objmap_publish(m), 0);
    staged.flipped = atomic_load(&m->parity) != before;
}

/* While the lookup reads its view: retire that view, its runs and its log
 * (publishes, a replace, a full log). */
static void stage_retire(wasp_objmap *m)
{
    void (*entering)(wasp_objmap *) = wasp_objmap_hook_entering;
    wasp_objmap_hook_entering = NULL; /* inserts that fill a block register as readers */
    staged.reading_calls++;
    struct view *seen = atomic_load(&m->view);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(wasp_objmap_insert(m, 0x9000 + 0x100 * (uint64_t)i, 16, 90, 2), 0);
        assert_int_equal(wasp_objmap_publish(m), 0);
    }
    for (uint64_t i = 0; i < LOG_CAP + 10; i++) /* rolls the log */
        assert_int_equal(wasp_objmap_insert(m, 0x100000 + 64 * i, 32, 91, 2), 0);
    const wasp_obj other[] = {{0x20000, 16, 5}};
    assert_int_equal(wasp_objmap_replace(m, other, 1, 4), 0);
    assert_int_equal(wasp_objmap_publish(m), 0);
    staged.kept_alive = seen != atomic_load(&m->view) &&
                        (in_list(m->fresh, seen) || in_list(m->aged, seen));
    wasp_objmap_hook_entering = entering;
}

static void a_lookup_in_progress_keeps_its_view(void **state)
{
    (void)state;
    wasp_objmap *m = wasp_objmap_new();
    assert_int_equal(wasp_objmap_insert(m, 0x1000, 64, 1, 2), 0);
    assert_int_equal(wasp_objmap_publish(m), 0);
    memset(&staged, 0, sizeof staged);
    wasp_objmap_hook_reading = stage_retire;
    wasp_obj o = {0, 0, 0};
    int found = wasp_objmap_lookup(m, 0x1010, 2, &o);
    wasp_objmap_hook_reading = NULL;
    assert_int_equal(staged.reading_calls, 1);
    assert_true(staged.kept_alive);
    /* the answer comes from the view it read, whose memory is intact */
    assert_int_equal(found, 1);
    assert_true(o.start == 0x1000 && o.size == 64 && o.site == 1);
    /* now that it has left, the next publish frees everything retired */
    expect_miss(m, 0x1010, 2);
    assert_int_equal(wasp_objmap_publish(m), 0);
    assert_null(m->fresh);
    assert_null(m->aged);
    expect_hit(m, 0x20000, 4, 0x20000, 16, 5);
    wasp_objmap_free(m);
}

static void a_lookup_with_a_stale_parity_retries(void **state)
{
    (void)state;
    wasp_objmap *m = wasp_objmap_new();
    assert_int_equal(wasp_objmap_insert(m, 0x1000, 64, 1, 2), 0);
    assert_int_equal(wasp_objmap_publish(m), 0);
    memset(&staged, 0, sizeof staged);
    wasp_objmap_hook_entering = stage_flip;
    wasp_objmap_hook_reading = stage_retire;
    wasp_obj o = {0, 0, 0};
    /* 0x5000 is inserted and published by the hook, before the lookup
     * registers: it must find it in the view it then reads */
    int found = wasp_objmap_lookup(m, 0x5008, 2, &o);
    wasp_objmap_hook_entering = NULL;
    wasp_objmap_hook_reading = NULL;
    assert_true(staged.flipped);
    assert_int_equal(staged.entering_calls, 2); /* saw the flip and retried */
    assert_true(staged.kept_alive);             /* registered under the right counter */
    assert_int_equal(found, 1);
    assert_true(o.start == 0x5000 && o.size == 16 && o.site == 50);
    assert_int_equal(atomic_load(&m->readers[0]) + atomic_load(&m->readers[1]), 0);
    assert_int_equal(wasp_objmap_publish(m), 0);
    assert_null(m->fresh);
    assert_null(m->aged);
    wasp_objmap_free(m);
}

/* ---- a large map against a brute-force oracle ---- */

enum { BIG = 100000 };

static int oracle(const wasp_obj *o, size_t n, uint64_t addr, wasp_obj *out)
{
    for (size_t i = 0; i < n; i++)
        if (addr >= o[i].start && addr - o[i].start < o[i].size) {
            *out = o[i];
            return 1;
        }
    return 0;
}

static void check_against_oracle(wasp_objmap *m, const wasp_obj *objs, size_t n, uint32_t epoch,
                                 uint64_t lo, uint64_t hi, uint64_t *seed)
{
    /* boundaries of every object (the layout is known) */
    for (size_t i = 0; i < n; i++) {
        const wasp_obj *o = &objs[i];
        expect_hit(m, o->start, epoch, o->start, o->size, o->site);
        expect_hit(m, o->start + o->size - 1, epoch, o->start, o->size, o->site);
        if (i + 1 < n && objs[i + 1].start != o->start + o->size)
            expect_miss(m, o->start + o->size, epoch);
    }
    /* random addresses, the answer from a linear scan */
    for (int q = 0; q < 3000; q++) {
        uint64_t addr = lo + rng_next(seed) % (hi - lo);
        wasp_obj want, got;
        int w = oracle(objs, n, addr, &want);
        int g = wasp_objmap_lookup(m, addr, epoch, &got);
        if (w != g || (w && (want.start != got.start || want.size != got.size ||
                             want.site != got.site)))
            fail_msg("0x%llx: oracle %d [0x%llx], map %d [0x%llx]", (unsigned long long)addr, w,
                     (unsigned long long)(w ? want.start : 0), g,
                     (unsigned long long)(g ? got.start : 0));
    }
}

static void large_map_agrees_with_oracle(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    wasp_obj *objs = malloc(BIG * sizeof *objs);
    size_t *order = malloc(BIG * sizeof *order);
    assert_non_null(objs);
    assert_non_null(order);
    uint64_t at = 0x7f0000000000ull;
    for (size_t i = 0; i < BIG; i++) {
        uint64_t gap = rng_next(&seed) % 4 == 0 ? 0 : rng_next(&seed) % 64;
        at += gap;
        objs[i] = (wasp_obj){at, (uint32_t)(1 + rng_next(&seed) % 300), (uint32_t)i};
        at += objs[i].size;
        order[i] = i;
    }
    for (size_t i = BIG - 1; i > 0; i--) { /* insert in random order */
        size_t j = rng_next(&seed) % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    wasp_objmap *m = wasp_objmap_new();
    size_t next_publish = 1000;
    for (size_t k = 0; k < BIG; k++) {
        const wasp_obj *o = &objs[order[k]];
        assert_int_equal(wasp_objmap_insert(m, o->start, o->size, o->site, 2), 0);
        if (k == next_publish) { /* irregularly; several full logs in between */
            assert_int_equal(wasp_objmap_publish(m), 0);
            next_publish += 1 + rng_next(&seed) % 20000;
        }
    }
    assert_int_equal(wasp_objmap_count(m), BIG);
    uint64_t lo = objs[0].start - 1000, hi = at + 1000;
    check_against_oracle(m, objs, BIG, 2, lo, hi, &seed);
    assert_int_equal(wasp_objmap_publish(m), 0);
    check_against_oracle(m, objs, BIG, 2, lo, hi, &seed);

    /* a collection: a third dies, the rest moves down by 1 MiB; objects
     * allocated after it are inserted before and after the replace */
    size_t kept = 0;
    for (size_t i = 0; i < BIG; i++)
        if (rng_next(&seed) % 3)
            objs[kept++] = (wasp_obj){objs[i].start - (1u << 20), objs[i].size, objs[i].site};
    size_t fresh = 2000;
    uint64_t fresh_at = at + 4096;
    for (size_t i = 0; i < fresh; i++) {
        wasp_obj *o = &objs[kept + i];
        *o = (wasp_obj){fresh_at + i * 64, 48, (uint32_t)(BIG + i)};
        if (i == fresh / 2) {
            wasp_obj *moved = malloc(kept * sizeof *moved);
            memcpy(moved, objs, kept * sizeof *moved);
            assert_int_equal(wasp_objmap_replace(m, moved, kept, 4), 0);
            free(moved);
        }
        assert_int_equal(wasp_objmap_insert(m, o->start, o->size, o->site, 4), 0);
        if (i % 700 == 0)
            assert_int_equal(wasp_objmap_publish(m), 0);
    }
    assert_int_equal(wasp_objmap_count(m), kept + fresh);
    check_against_oracle(m, objs, kept + fresh, 4, objs[0].start - 1000,
                         fresh_at + fresh * 64 + 1000, &seed);
    /* nothing of epoch 2 is left */
    for (int q = 0; q < 1000; q++)
        expect_miss(m, lo + rng_next(&seed) % (hi - lo), 2);
    wasp_objmap_free(m);
    free(objs);
    free(order);
}

/* ---- concurrency ---- */

enum {
    NWRITERS = 3,
    PER_WRITER = 250000,
    OBJ_STRIDE = 64, /* object i of a writer: [base + i*64, +48), then 16 free bytes */
    OBJ_SIZE = 48,
    NSTATIC = 1024,  /* replace sets: slot j = A [S + j*128, +64), B [S + j*128 + 64, +64) */
    EP = 2
};
#define STATIC_BASE 0x900000000ull

static uint64_t writer_base(int w)
{
    return 0x100000000ull + (uint64_t)w * 0x10000000ull;
}

/* writer 2 allocates "after the next collection": epoch EP+2 */
static uint32_t writer_epoch(int w)
{
    return w == 2 ? EP + 2 : EP;
}

struct race {
    wasp_objmap *m;
    atomic_int stop;
    _Atomic uint32_t progress[NWRITERS]; /* objects [0, progress) are inserted */
    atomic_ulong checks, errors, static_hits, insert_failures, publishes, replaces;
    wasp_obj set_a[NSTATIC], set_b[NSTATIC];
    char first_error[200];
    atomic_int have_error;
    int want_signals;
};

static void race_error(struct race *r, const char *what, uint64_t addr, int found,
                       const wasp_obj *o)
{
    atomic_fetch_add(&r->errors, 1);
    if (atomic_exchange(&r->have_error, 1) == 0) /* only one writer of first_error */
        snprintf(r->first_error, sizeof r->first_error, "%s: 0x%llx found=%d [0x%llx,+%u) site %u",
                 what, (unsigned long long)addr, found, (unsigned long long)(found ? o->start : 0),
                 found ? o->size : 0, found ? o->site : 0);
}

/* One round of checks; async-signal-safe except for race_error's snprintf,
 * which runs only on a failure. */
static void race_check(struct race *r, uint64_t *seed)
{
    wasp_obj o;
    int w = (int)(rng_next(seed) % NWRITERS);
    uint32_t k = atomic_load_explicit(&r->progress[w], memory_order_acquire);
    if (k) {
        uint32_t i = (uint32_t)(rng_next(seed) % k);
        uint64_t start = writer_base(w) + (uint64_t)i * OBJ_STRIDE;
        uint32_t site = ((uint32_t)w << 24) | i;
        uint64_t addr = start + rng_next(seed) % OBJ_SIZE;
        int f = wasp_objmap_lookup(r->m, addr, writer_epoch(w), &o);
        if (!f || o.start != start || o.size != OBJ_SIZE || o.site != site)
            race_error(r, "inserted object", addr, f, &o);
        /* the same address in the other epoch holds nothing */
        f = wasp_objmap_lookup(r->m, addr, writer_epoch(w) == EP ? EP + 2 : EP, &o);
        if (f)
            race_error(r, "wrong epoch", addr, f, &o);
        /* the gap after it is free */
        addr = start + OBJ_SIZE + rng_next(seed) % (OBJ_STRIDE - OBJ_SIZE);
        f = wasp_objmap_lookup(r->m, addr, writer_epoch(w), &o);
        if (f)
            race_error(r, "free gap", addr, f, &o);
        atomic_fetch_add_explicit(&r->checks, 3, memory_order_relaxed);
    }
    /* the replace sets come and go; what is found must be right */
    uint32_t j = (uint32_t)(rng_next(seed) % NSTATIC);
    uint64_t addr = STATIC_BASE + (uint64_t)j * 128 + rng_next(seed) % 128;
    int f = wasp_objmap_lookup(r->m, addr, EP, &o);
    if (f) {
        const wasp_obj *want = addr - STATIC_BASE - (uint64_t)j * 128 < 64 ? &r->set_a[j]
                                                                            : &r->set_b[j];
        if (o.start != want->start || o.size != want->size || o.site != want->site)
            race_error(r, "replace set", addr, f, &o);
        atomic_fetch_add_explicit(&r->static_hits, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&r->checks, 1, memory_order_relaxed);
}

static void pause_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL); /* EINTR from the test signal just shortens it */
}

struct writer_arg {
    struct race *r;
    int w;
};

static void *writer_main(void *p)
{
    struct writer_arg *a = p;
    struct race *r = a->r;
    for (uint32_t i = 0; i < PER_WRITER && !atomic_load(&r->stop); i++) {
        uint64_t start = writer_base(a->w) + (uint64_t)i * OBJ_STRIDE;
        if (wasp_objmap_insert(r->m, start, OBJ_SIZE, ((uint32_t)a->w << 24) | i,
                               writer_epoch(a->w)) != 0) {
            atomic_fetch_add(&r->insert_failures, 1);
            break;
        }
        atomic_store_explicit(&r->progress[a->w], i + 1, memory_order_release);
        if (i % 8 == 7) /* spread over the race */
            pause_us(50);
    }
    return NULL;
}

static void *publisher_main(void *p)
{
    struct race *r = p;
    for (unsigned it = 0; !atomic_load(&r->stop); it++) {
        int rc;
        if (it % 8 == 7) {
            rc = wasp_objmap_replace(r->m, (it / 8) % 2 ? r->set_b : r->set_a, NSTATIC, EP);
            atomic_fetch_add(&r->replaces, 1);
        } else {
            rc = wasp_objmap_publish(r->m);
            atomic_fetch_add(&r->publishes, 1);
        }
        if (rc != 0)
            race_error(r, "publish/replace failed", 0, 0, NULL);
        pause_us(200);
    }
    return NULL;
}

static void *reader_main(void *p)
{
    struct race *r = p;
    uint64_t seed = (uint64_t)(uintptr_t)&seed | 1;
    while (!atomic_load(&r->stop))
        race_check(r, &seed);
    return NULL;
}

static struct race *race_new(void)
{
    struct race *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->m = wasp_objmap_new();
    assert_non_null(r->m);
    for (uint32_t j = 0; j < NSTATIC; j++) {
        r->set_a[j] = (wasp_obj){STATIC_BASE + (uint64_t)j * 128, 64, 0xa0000000u | j};
        r->set_b[j] = (wasp_obj){STATIC_BASE + (uint64_t)j * 128 + 64, 64, 0xb0000000u | j};
    }
    return r;
}

static void race_report(struct race *r, const char *name)
{
    printf("[ INFO     ] %s: %lu checks, %lu replace-set hits, %lu publishes, %lu replaces, "
           "inserted %u/%u/%u, %zu tracked\n",
           name, atomic_load(&r->checks), atomic_load(&r->static_hits),
           atomic_load(&r->publishes), atomic_load(&r->replaces), atomic_load(&r->progress[0]),
           atomic_load(&r->progress[1]), atomic_load(&r->progress[2]), wasp_objmap_count(r->m));
    if (atomic_load(&r->errors))
        fail_msg("%lu wrong answers; first: %s", atomic_load(&r->errors), r->first_error);
    assert_int_equal(atomic_load(&r->insert_failures), 0);
    assert_true(atomic_load(&r->checks) > 10000);
    assert_true(atomic_load(&r->static_hits) > 0);
    assert_true(atomic_load(&r->replaces) > 2);
    for (int w = 0; w < NWRITERS; w++)
        assert_true(atomic_load(&r->progress[w]) > 5000);
}

static double race_seconds(void)
{
    const char *s = getenv("WASP_OBJMAP_RACE_SECONDS");
    return s ? atof(s) : 1.5;
}

static atomic_ulong sig_handled;

/* Enough happened for the race to mean something. */
static int race_ready(struct race *r)
{
    if (atomic_load(&r->checks) <= 10000 || atomic_load(&r->static_hits) == 0 ||
        atomic_load(&r->replaces) <= 2)
        return 0;
    for (int w = 0; w < NWRITERS; w++)
        if (atomic_load(&r->progress[w]) <= 5000)
            return 0;
    return !r->want_signals || atomic_load(&sig_handled) > 1000;
}

/* Runs the race for its duration (longer on a slow machine or under a
 * sanitizer, until enough has happened, up to 60 s more), then stops it. */
static void sleep_until_stop(struct race *r)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double elapsed;
    do {
        pause_us(10000);
        clock_gettime(CLOCK_MONOTONIC, &t);
        elapsed = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9;
    } while (elapsed < race_seconds() || (!race_ready(r) && elapsed < race_seconds() + 60));
    atomic_store(&r->stop, 1);
}

static void concurrent_inserts_publishes_and_lookups(void **state)
{
    (void)state;
    struct race *r = race_new();
    enum { NREADERS = 2 };
    pthread_t writers[NWRITERS], readers[NREADERS], publisher;
    struct writer_arg wa[NWRITERS];
    for (int w = 0; w < NWRITERS; w++) {
        wa[w] = (struct writer_arg){r, w};
        assert_int_equal(pthread_create(&writers[w], NULL, writer_main, &wa[w]), 0);
    }
    for (int i = 0; i < NREADERS; i++)
        assert_int_equal(pthread_create(&readers[i], NULL, reader_main, r), 0);
    assert_int_equal(pthread_create(&publisher, NULL, publisher_main, r), 0);
    sleep_until_stop(r);
    for (int w = 0; w < NWRITERS; w++)
        pthread_join(writers[w], NULL);
    for (int i = 0; i < NREADERS; i++)
        pthread_join(readers[i], NULL);
    pthread_join(publisher, NULL);

    /* quiescent: everything inserted is there */
    uint64_t seed = 12345;
    for (int q = 0; q < 20000; q++)
        race_check(r, &seed);
    race_report(r, "threads");
    wasp_objmap_free(r->m);
    free(r);
}

/* Lookups from a signal handler, on threads that are themselves in the middle
 * of lookups, inserts, publishes and replaces. */
static struct race *sig_race;
static _Atomic uint64_t sig_seq;

static void on_sigusr1(int sig)
{
    (void)sig;
    int saved = errno;
    struct race *r = sig_race;
    if (r) {
        uint64_t seed = (atomic_fetch_add(&sig_seq, 1) + 1) * 0x9e3779b97f4a7c15ull;
        for (int i = 0; i < 4; i++)
            race_check(r, &seed);
        atomic_fetch_add(&sig_handled, 1);
    }
    errno = saved;
}

struct signaler_arg {
    struct race *r;
    pthread_t *targets;
    int ntargets;
};

static void *signaler_main(void *p)
{
    struct signaler_arg *a = p;
    for (unsigned it = 0; !atomic_load(&a->r->stop); it++) {
        pthread_kill(a->targets[it % (unsigned)a->ntargets], SIGUSR1);
        if (it % 4 == 3)
            pause_us(20);
    }
    return NULL;
}

static void lookups_from_signal_handlers(void **state)
{
    (void)state;
    struct race *r = race_new();
    r->want_signals = 1;
    sig_race = r;
    atomic_store(&sig_handled, 0);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigusr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);

    pthread_t writers[NWRITERS], reader, publisher, signaler;
    struct writer_arg wa[NWRITERS];
    for (int w = 0; w < NWRITERS; w++) {
        wa[w] = (struct writer_arg){r, w};
        assert_int_equal(pthread_create(&writers[w], NULL, writer_main, &wa[w]), 0);
    }
    assert_int_equal(pthread_create(&reader, NULL, reader_main, r), 0);
    assert_int_equal(pthread_create(&publisher, NULL, publisher_main, r), 0);
    /* the reader (interrupted mid-lookup), the publisher (mid-publish, maybe
     * waiting for lookups to drain) and a writer (mid-insert) */
    pthread_t all_targets[4] = {reader, publisher, writers[0], reader};
    struct signaler_arg sarg = {r, all_targets, 4};
    assert_int_equal(pthread_create(&signaler, NULL, signaler_main, &sarg), 0);
    sleep_until_stop(r);
    pthread_join(signaler, NULL); /* no signal is sent after this */
    for (int w = 0; w < NWRITERS; w++)
        pthread_join(writers[w], NULL);
    pthread_join(reader, NULL);
    pthread_join(publisher, NULL);
    assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
    sig_race = NULL;

    printf("[ INFO     ] signals handled: %lu\n", atomic_load(&sig_handled));
    race_report(r, "signals");
    assert_true(atomic_load(&sig_handled) > 1000);
    wasp_objmap_free(r->m);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(boundaries_pending_and_published),
        cmocka_unit_test(object_at_the_top_of_the_address_space),
        cmocka_unit_test(replace_removes_old_and_adds_new),
        cmocka_unit_test(epochs_filter_lookups),
        cmocka_unit_test(published_inserts_survive_a_replace_of_their_epoch),
        cmocka_unit_test(same_start_twice_keeps_the_later),
        cmocka_unit_test(full_log_blocks),
        cmocka_unit_test(a_lookup_in_progress_keeps_its_view),
        cmocka_unit_test(a_lookup_with_a_stale_parity_retries),
        cmocka_unit_test(large_map_agrees_with_oracle),
        cmocka_unit_test(concurrent_inserts_publishes_and_lookups),
        cmocka_unit_test(lookups_from_signal_handlers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
