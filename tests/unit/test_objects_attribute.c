/*
 * Unit tests for analysis/objects.c: which tracked object a sampled address
 * belongs to, stale maps after a GC, and the NUMA remote check.
 *
 * The development machines have one NUMA node, so the remote path cannot be
 * exercised on real pages. This binary is linked with -Wl,--wrap=syscall
 * (Makefile): the two system calls the check makes, move_pages (node of the
 * page) and getcpu (node of the CPU), return the nodes a test chooses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "heap/attribute.h"

static struct {
    int page_node;  /* what move_pages reports for the page (negative: an errno) */
    int cpu_node;   /* what getcpu reports */
    long fail;      /* non-zero: both calls fail */
    int calls;
    void *page_asked;
} fake;

long __wrap_syscall(long nr, ...);
long __wrap_syscall(long nr, ...)
{
    va_list ap;
    va_start(ap, nr);
    fake.calls++;
    long rc = fake.fail ? -1 : 0;
    if (nr == SYS_move_pages) {
        (void)va_arg(ap, long);          /* pid */
        (void)va_arg(ap, unsigned long); /* count */
        void **pages = va_arg(ap, void **);
        (void)va_arg(ap, const int *);   /* nodes: NULL, only asking */
        int *status = va_arg(ap, int *);
        fake.page_asked = pages[0];
        if (!fake.fail)
            status[0] = fake.page_node;
    } else if (nr == SYS_getcpu) {
        unsigned *cpu = va_arg(ap, unsigned *);
        unsigned *node = va_arg(ap, unsigned *);
        if (!fake.fail) {
            *cpu = 3;
            *node = (unsigned)fake.cpu_node;
        }
    } else {
        rc = -1;
    }
    va_end(ap);
    return rc;
}

enum { EPOCH = 4, START = 0x100000, SIZE = 8192, SITE = 7 };

static int setup(void **state)
{
    wasp_objmap *m = wasp_objmap_new();
    assert_non_null(m);
    assert_int_equal(wasp_objmap_insert(m, START, SIZE, SITE, EPOCH), 0);
    assert_int_equal(wasp_objmap_publish(m), 0);
    *state = m;
    fake.calls = 0;
    fake.fail = 0;
    return 0;
}

static int teardown(void **state)
{
    wasp_objmap_free(*state);
    return 0;
}

static wasp_obj_result attribute(void **state, uint64_t addr, uint32_t gc, uint32_t map, int nodes,
                                 wasp_obj *o, int *remote)
{
    return wasp_objects_attribute(*state, addr, gc, map, nodes, o, remote);
}

static void test_hit_and_miss(void **state)
{
    wasp_obj o;
    int remote = -1;
    assert_int_equal(attribute(state, START + SIZE - 1, EPOCH, EPOCH, 1, &o, &remote),
                     WASP_OBJ_HIT);
    assert_int_equal(o.site, SITE);
    assert_int_equal(o.start, START);
    assert_int_equal(remote, 0);
    assert_int_equal(attribute(state, START + SIZE, EPOCH, EPOCH, 1, &o, &remote), WASP_OBJ_MISS);
    assert_int_equal(attribute(state, START - 1, EPOCH, EPOCH, 1, &o, &remote), WASP_OBJ_MISS);
    /* One node: no system call in the handler for nothing. */
    assert_int_equal(fake.calls, 0);
}

static void test_stale_during_and_after_gc(void **state)
{
    wasp_obj o;
    int remote;
    /* A collection is running (odd epoch), or has ended and the map is not
     * rebuilt yet: the address may now belong to something else. */
    assert_int_equal(attribute(state, START, EPOCH + 1, EPOCH, 1, &o, &remote), WASP_OBJ_STALE);
    assert_int_equal(attribute(state, START, EPOCH + 2, EPOCH, 1, &o, &remote), WASP_OBJ_STALE);
    assert_int_equal(attribute(state, START, EPOCH + 2, EPOCH + 2, 1, &o, &remote), WASP_OBJ_MISS);
}

static void test_numa_remote(void **state)
{
    wasp_obj o;
    int remote;
    fake.page_node = 1;
    fake.cpu_node = 0;
    assert_int_equal(attribute(state, START + 5000, EPOCH, EPOCH, 2, &o, &remote), WASP_OBJ_HIT);
    assert_int_equal(remote, 1);
    assert_ptr_equal(fake.page_asked, (void *)(uintptr_t)(START + 4096)); /* its page */
    fake.cpu_node = 1;
    assert_int_equal(attribute(state, START + 5000, EPOCH, EPOCH, 2, &o, &remote), WASP_OBJ_HIT);
    assert_int_equal(remote, 0);
}

static void test_numa_unknown_is_not_remote(void **state)
{
    wasp_obj o;
    int remote;
    /* A page not yet faulted in: move_pages reports -ENOENT in its status. */
    fake.page_node = -2;
    fake.cpu_node = 0;
    assert_int_equal(attribute(state, START, EPOCH, EPOCH, 2, &o, &remote), WASP_OBJ_HIT);
    assert_int_equal(remote, 0);
    fake.page_node = 1;
    fake.fail = 1;
    assert_int_equal(attribute(state, START, EPOCH, EPOCH, 2, &o, &remote), WASP_OBJ_HIT);
    assert_int_equal(remote, 0);
    assert_true(fake.calls > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hit_and_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_during_and_after_gc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numa_remote, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numa_unknown_is_not_remote, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
