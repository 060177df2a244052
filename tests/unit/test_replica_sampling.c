/* Which comparisons replica samples ask for (src/analysis/replicas.c), and the
 * stored value of a store that has not run yet (src/isa). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/replicas/snapshots.h"
#include "isa/isa.h"

enum { N = 8 };

static void first_sample_only_records(void **state)
{
    (void)state;
    wasp_replica_snap t[N];
    memset(t, 0, sizeof t);
    uint64_t wa = 0, v1 = 0;
    uint8_t wl = 0;
    assert_int_equal(wasp_replica_sample(t, N, 3, 2, 0x1000, 64, 0x1018, 8, 42, 1, &wa, &wl, &v1),
                     WASP_REPLICA_NONE);
    /* the same object again: nothing to compare either */
    assert_int_equal(wasp_replica_sample(t, N, 3, 2, 0x1000, 64, 0x1020, 8, 7, 1, &wa, &wl, &v1),
                     WASP_REPLICA_NONE);
}

static void other_object_watches_same_offset(void **state)
{
    (void)state;
    wasp_replica_snap t[N];
    memset(t, 0, sizeof t);
    uint64_t wa = 0, v1 = 0;
    uint8_t wl = 0;
    wasp_replica_sample(t, N, 3, 2, 0x1000, 64, 0x1018, 4, 42, 1, &wa, &wl, &v1);
    /* a sample elsewhere in another object of the site: watch that object at
     * the first sample's offset (0x18), compare with its value */
    assert_int_equal(wasp_replica_sample(t, N, 3, 2, 0x2000, 64, 0x2030, 8, 9, 1, &wa, &wl, &v1),
                     WASP_REPLICA_WATCH);
    assert_int_equal(wa, 0x2018);
    assert_int_equal(wl, 4);
    assert_int_equal(v1, 42);
    /* the chain goes on from the latest sample */
    assert_int_equal(wasp_replica_sample(t, N, 3, 2, 0x3000, 64, 0x3010, 8, 1, 1, &wa, &wl, &v1),
                     WASP_REPLICA_WATCH);
    assert_int_equal(wa, 0x3030);
    assert_int_equal(v1, 9);
}

static void sizes_epochs_sites_and_unknown_values(void **state)
{
    (void)state;
    wasp_replica_snap t[N];
    memset(t, 0, sizeof t);
    uint64_t wa = 0, v1 = 0;
    uint8_t wl = 0;
    wasp_replica_sample(t, N, 3, 2, 0x1000, 64, 0x1018, 8, 42, 1, &wa, &wl, &v1);
    assert_int_equal(wasp_replica_sample(t, N, 3, 2, 0x2000, 128, 0x2018, 8, 42, 1, &wa, &wl, &v1),
                     WASP_REPLICA_DIFFERENT); /* another size: different at once */
    /* after a GC (new epoch) the old object's address means nothing */
    assert_int_equal(wasp_replica_sample(t, N, 3, 4, 0x3000, 128, 0x3018, 8, 42, 1, &wa, &wl, &v1),
                     WASP_REPLICA_NONE);
    /* another site never compares with this one (site 11 shares slot 3 of 8) */
    assert_int_equal(wasp_replica_sample(t, N, 11, 4, 0x4000, 128, 0x4018, 8, 42, 1, &wa, &wl, &v1),
                     WASP_REPLICA_NONE);
    /* a value that could not be read is not compared */
    wasp_replica_sample(t, N, 5, 4, 0x5000, 64, 0x5018, 8, 0, 0, &wa, &wl, &v1);
    assert_int_equal(wasp_replica_sample(t, N, 5, 4, 0x6000, 64, 0x6018, 8, 0, 1, &wa, &wl, &v1),
                     WASP_REPLICA_NONE);
}

static void bitwise_width(void **state)
{
    (void)state;
    assert_true(wasp_replica_same(0x1122334455667788ull, 0xff22334455667788ull, 4));
    assert_false(wasp_replica_same(0x1122334455667788ull, 0xff22334455667788ull, 8));
    assert_false(wasp_replica_same(0x01, 0x02, 1));
}

/* A store's value before it runs: from its source register or immediate. */
static void store_source_values(void **state)
{
    (void)state;
    wasp_regs r = {0};
    for (int i = 0; i < WASP_REG_COUNT; i++)
        r.gpr[i] = 0x1000000ull * (uint64_t)(i + 1);
    wasp_access a;
    /* mov %r11,0x10(%rdi,%r10,8) = 4e 89 5c d7 10 */
    const uint8_t st[] = {0x4e, 0x89, 0x5c, 0xd7, 0x10};
    assert_int_equal(wasp_isa_decode_access(st, sizeof st, 0x7f0000000000ull, &r, &a), 1);
    assert_int_equal(a.has_src, 1);
    assert_int_equal(a.src, r.gpr[11]);
    /* movl $0x2a,0x10(%rax) = c7 40 10 2a 00 00 00 */
    const uint8_t imm[] = {0xc7, 0x40, 0x10, 0x2a, 0x00, 0x00, 0x00};
    assert_int_equal(wasp_isa_decode_access(imm, sizeof imm, 0x7f0000000000ull, &r, &a), 1);
    assert_int_equal(a.has_src, 1);
    assert_int_equal(a.src & 0xffffffffu, 0x2a);
    /* a load has no source value: mov 0x10(%rax),%ecx = 8b 48 10 */
    const uint8_t ld[] = {0x8b, 0x48, 0x10};
    assert_int_equal(wasp_isa_decode_access(ld, sizeof ld, 0x7f0000000000ull, &r, &a), 1);
    assert_int_equal(a.has_src, 0);
    /* nor a read-modify-write: add %ecx,0x10(%rax) = 01 48 10 */
    const uint8_t rmw[] = {0x01, 0x48, 0x10};
    assert_int_equal(wasp_isa_decode_access(rmw, sizeof rmw, 0x7f0000000000ull, &r, &a), 1);
    assert_int_equal(a.has_src, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_sample_only_records),
        cmocka_unit_test(other_object_watches_same_offset),
        cmocka_unit_test(sizes_epochs_sites_and_unknown_values),
        cmocka_unit_test(bitwise_width),
        cmocka_unit_test(store_source_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
