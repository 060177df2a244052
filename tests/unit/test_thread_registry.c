/* The registry of profiled threads (src/watch/thread_registry.c): an index
 * whose thread ended is handed out again, oldest first, once more than
 * WASP_REGISTRY_REUSE_AFTER wait; until then indexes are fresh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "watch/thread_registry.h"

static void test_reuse_oldest_after_enough(void **state)
{
    (void)state;
    enum { N = WASP_REGISTRY_REUSE_AFTER + 10 };
    static uint32_t got[N];
    for (uint32_t i = 0; i < N; i++) {
        got[i] = wasp_registry_reserve();
        assert_int_equal(got[i], i); /* fresh, in order */
    }
    /* all of them end: the first ten released are handed out again, in order */
    for (uint32_t i = 0; i < N; i++)
        wasp_registry_release(got[i]);
    for (uint32_t i = 0; i < 10; i++)
        assert_int_equal(wasp_registry_reserve(), got[i]);
    /* the rest wait (exactly REUSE_AFTER free): a fresh index again */
    assert_int_equal(wasp_registry_reserve(), N);
    assert_int_equal(wasp_registry_count(), N + 1);
    /* one more release passes the mark: the oldest waiting comes back */
    wasp_registry_release(N);
    assert_int_equal(wasp_registry_reserve(), got[10]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse_oldest_after_enough),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
