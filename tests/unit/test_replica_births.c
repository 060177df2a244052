/* Replicas from births (src/analysis/replicas/births.c): a site's pending
 * object is read once built and one word of it compared with the previous
 * object's; fake objects live in a buffer read through a fake reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/replicas/births.h"

enum { N = 8, SITE = 3, EPOCH = 2, SIZE = 2064, OBJS = 8 };
static const uint64_t SETTLE = 1000, BASE = 0x100000;

static uint8_t heap[OBJS][SIZE];
static int reads, unreadable;

static uint64_t fake_read(uint64_t addr, int len, int *ok)
{
    uint64_t v = 0;
    size_t off = (size_t)(addr - BASE);
    reads++;
    *ok = !unreadable && addr >= BASE && off + (size_t)len <= sizeof heap;
    if (*ok)
        memcpy(&v, (uint8_t *)heap + off, (size_t)len);
    return v;
}

static uint64_t obj(int i)
{
    return BASE + (uint64_t)i * SIZE;
}

static wasp_birth_verdict born(wasp_birth_slot *t, int i, uint32_t size, uint32_t epoch,
                               uint64_t now, uint64_t *rng)
{
    uint32_t offset;
    return wasp_replica_born(t, N, SITE, obj(i), size, epoch, now, SETTLE, rng, fake_read,
                             &offset);
}

static int setup(void **state)
{
    (void)state;
    memset(heap, 0, sizeof heap);
    reads = unreadable = 0;
    return 0;
}

/* Objects 0..OBJS-1 of one site, their contents `fill` bytes, born 2 us
 * apart: each birth from the third on compares the previous one, `want`. */
static void expect_every_comparison(int fill, uint64_t rng, wasp_birth_verdict want)
{
    wasp_birth_slot t[N];
    memset(t, 0, sizeof t);
    for (int i = 0; i < OBJS; i++)
        memset(heap[i] + WASP_BIRTH_HEADER, fill, SIZE - WASP_BIRTH_HEADER);
    assert_int_equal(born(t, 0, SIZE, EPOCH, 0, &rng), WASP_BIRTH_NONE);     /* 0 pending */
    assert_int_equal(born(t, 1, SIZE, EPOCH, 2000, &rng), WASP_BIRTH_NONE);  /* 0 read, 1 pending */
    for (int i = 2; i < OBJS; i++)
        assert_int_equal(born(t, i, SIZE, EPOCH, 2000u * i, &rng), want);
}

static void identical_objects_compare_same(void **state)
{
    (void)state;
    expect_every_comparison(0x5a, 7, WASP_BIRTH_SAME);
}

/* Zero-filled objects are equal, and said to be zero: space not written. */
static void zero_objects_compare_zero(void **state)
{
    (void)state;
    expect_every_comparison(0, 5, WASP_BIRTH_ZERO);
}

static void differing_objects_compare_different(void **state)
{
    (void)state;
    wasp_birth_slot t[N];
    memset(t, 0, sizeof t);
    uint64_t rng = 9;
    for (int i = 0; i < OBJS; i++)
        memset(heap[i] + WASP_BIRTH_HEADER, i + 1, SIZE - WASP_BIRTH_HEADER);
    born(t, 0, SIZE, EPOCH, 0, &rng);
    born(t, 1, SIZE, EPOCH, 2000, &rng);
    for (int i = 2; i < OBJS; i++)
        assert_int_equal(born(t, i, SIZE, EPOCH, 2000u * i, &rng), WASP_BIRTH_DIFFERENT);
}

static void a_fresh_pending_object_is_not_read(void **state)
{
    (void)state;
    wasp_birth_slot t[N];
    memset(t, 0, sizeof t);
    uint64_t rng = 3;
    born(t, 0, SIZE, EPOCH, 0, &rng);
    reads = 0;
    /* within the settling time: object 0 stays pending and is not read */
    assert_int_equal(born(t, 1, SIZE, EPOCH, SETTLE - 1, &rng), WASP_BIRTH_NONE);
    assert_int_equal(reads, 0);
    assert_int_equal(t[SITE % N].obj, obj(0));
}

static void epochs_and_sizes(void **state)
{
    (void)state;
    wasp_birth_slot t[N];
    memset(t, 0, sizeof t);
    uint64_t rng = 5;
    for (int i = 0; i < OBJS; i++)
        memset(heap[i] + WASP_BIRTH_HEADER, 0x11, SIZE - WASP_BIRTH_HEADER);
    born(t, 0, SIZE, EPOCH, 0, &rng);
    born(t, 1, SIZE, EPOCH, 2000, &rng);
    /* a collection: the pending object may have moved, the kept word may be
     * a reference — nothing is read or compared, the new birth is pending */
    reads = 0;
    assert_int_equal(born(t, 2, SIZE, EPOCH + 2, 4000, &rng), WASP_BIRTH_NONE);
    assert_int_equal(reads, 0);
    assert_int_equal(born(t, 3, SIZE, EPOCH + 2, 6000, &rng), WASP_BIRTH_NONE); /* 2 read */
    assert_int_equal(born(t, 4, SIZE, EPOCH + 2, 8000, &rng), WASP_BIRTH_SAME);
    /* object 4 (pending) is smaller than the site's earlier ones: different */
    wasp_birth_slot *s = &t[SITE % N];
    s->size = SIZE - 8;
    assert_int_equal(born(t, 5, SIZE, EPOCH + 2, 10000, &rng), WASP_BIRTH_DIFFERENT);
}

static void unreadable_memory_compares_nothing(void **state)
{
    (void)state;
    wasp_birth_slot t[N];
    memset(t, 0, sizeof t);
    uint64_t rng = 5;
    born(t, 0, SIZE, EPOCH, 0, &rng);
    born(t, 1, SIZE, EPOCH, 2000, &rng);
    unreadable = 1;
    assert_int_equal(born(t, 2, SIZE, EPOCH, 4000, &rng), WASP_BIRTH_NONE);
    unreadable = 0; /* the word kept of object 1 was unreadable too */
    assert_int_equal(born(t, 3, SIZE, EPOCH, 6000, &rng), WASP_BIRTH_NONE);
    assert_int_equal(born(t, 4, SIZE, EPOCH, 8000, &rng), WASP_BIRTH_ZERO); /* zeroed heap */
}

static void header_only_objects_are_ignored(void **state)
{
    (void)state;
    wasp_birth_slot t[N];
    memset(t, 0, sizeof t);
    uint64_t rng = 5;
    assert_int_equal(born(t, 0, WASP_BIRTH_HEADER, EPOCH, 0, &rng), WASP_BIRTH_NONE);
    assert_int_equal(t[SITE % N].site1, 0);
}

static void words_cover_the_contents(void **state)
{
    (void)state;
    wasp_birth_slot t[N];
    memset(t, 0, sizeof t);
    uint64_t rng = 3;
    int seen[(SIZE - WASP_BIRTH_HEADER) / 8] = {0};
    born(t, 0, SIZE, EPOCH, 0, &rng);
    for (int i = 1; i < 20000; i++) {
        born(t, i % OBJS, SIZE, EPOCH, 2000u * i, &rng);
        wasp_birth_slot *s = &t[SITE % N];
        assert_true(s->offset >= WASP_BIRTH_HEADER && s->offset % 8 == 0 &&
                    s->offset + s->len <= SIZE);
        seen[(s->offset - WASP_BIRTH_HEADER) / 8]++;
    }
    for (size_t w = 0; w < sizeof seen / sizeof *seen; w++)
        assert_true(seen[w] > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(identical_objects_compare_same, setup),
        cmocka_unit_test_setup(zero_objects_compare_zero, setup),
        cmocka_unit_test_setup(differing_objects_compare_different, setup),
        cmocka_unit_test_setup(a_fresh_pending_object_is_not_read, setup),
        cmocka_unit_test_setup(epochs_and_sizes, setup),
        cmocka_unit_test_setup(unreadable_memory_compares_nothing, setup),
        cmocka_unit_test_setup(header_only_objects_are_ignored, setup),
        cmocka_unit_test_setup(words_cover_the_contents, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
