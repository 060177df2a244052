/* ZGC's heap range (heap/zgc_range.h) from the values measured in VMStructs
 * and /proc/self/maps on JDK 17 (single generation: three views) and JDK 25
 * (generational: one range at the heap base); the zpointer decoding of the
 * VM's oop slots (heap/heap_addresses.h); and the report's warnings for an
 * analysis that saw nothing (meta "blind.NAME"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/render/render.h"
#include "heap/heap_addresses.h"
#include "heap/zgc_range.h"
#include "profile/profile.h"

static void test_single_generation(void **state)
{
    (void)state;
    uint64_t lo = 0, hi = 0;
    /* JDK 17, a small heap: 42 offset bits, colours at bits 42-45. */
    assert_int_equal(wasp_zgc_range_of(0x3ffffffffffull, 0x3c0000000000ull, 0x200000000000ull, &lo, &hi), 0);
    assert_int_equal(lo, 0x40000000000ull);  /* marked0 */
    assert_int_equal(hi, 0x140000000000ull); /* remapped + 4 TB */
    /* Views that are not three single bits above the offsets. */
    assert_int_equal(wasp_zgc_range_of(0x3ffffffffffull, 0x30000000000ull, 0, &lo, &hi), -1);
    assert_int_equal(wasp_zgc_range_of(0x3ffffffffffull, 0x3c0000000001ull, 0x200000000000ull, &lo, &hi), -1);
}

static void test_generational(void **state)
{
    (void)state;
    uint64_t lo = 0, hi = 0;
    assert_int_equal(wasp_zgc_range_of(0x3ffffffffffull, 0, 0, &lo, &hi), 0);
    assert_int_equal(lo, 0x40000000000ull);
    assert_int_equal(hi, 0x80000000000ull);
    /* Not a mask of low bits, or none. */
    assert_int_equal(wasp_zgc_range_of(0x3fffffff0ffull, 0, 0, &lo, &hi), -1);
    assert_int_equal(wasp_zgc_range_of(0, 0, 0, &lo, &hi), -1);
}

static void test_maps_line(void **state)
{
    (void)state;
    uint64_t a = 0, b = 0;
    assert_int_equal(wasp_zgc_maps_line("40000000000-40017a00000 rw-s 00000000 00:01 1028"
                                        "                         /memfd:java_heap (deleted)\n",
                                        &a, &b), 1);
    assert_int_equal(a, 0x40000000000ull);
    assert_int_equal(b, 0x40017a00000ull);
    assert_int_equal(wasp_zgc_maps_line("7f00-7f10 r-xp 00000000 08:01 1 /usr/lib/libjvm.so\n", &a, &b), 0);
}

static void test_zpointer(void **state)
{
    (void)state;
    wasp_heap_addresses.zpointers = 0;
    assert_int_equal(wasp_heap_slot_address(0x400001033c0ull), 0x400001033c0ull);
    wasp_heap_addresses.zpointers = 1;
    /* Seen in an ObjectMonitor's handle on JDK 25: remapped bits 0001, shift 13. */
    assert_int_equal(wasp_heap_slot_address(0x80000206781510ull), 0x400001033c0ull);
    assert_int_equal(wasp_heap_slot_address(0x400001033c0ull << 16 | 0x8000), 0x400001033c0ull);
    assert_int_equal(wasp_heap_slot_address(0x3000), 0); /* two remapped bits: none */
    wasp_heap_addresses.zpointers = 0;
}

static void test_blind_warning(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    assert_null(wasp_report_blind(p, 0));
    wasp_profile_set_meta(p, "java_command", "X");
    wasp_profile_set_meta(p, "blind.fields", "fields found no Java objects: why");
    wasp_profile_set_meta(p, "blind.locks", "locks found no Java objects: why");
    assert_string_equal(wasp_report_blind(p, 0), "fields found no Java objects: why");
    assert_string_equal(wasp_report_blind(p, 1), "locks found no Java objects: why");
    assert_null(wasp_report_blind(p, 2));
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_generation),
        cmocka_unit_test(test_generational),
        cmocka_unit_test(test_maps_line),
        cmocka_unit_test(test_zpointer),
        cmocka_unit_test(test_blind_warning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
