/* An access is attributed to an object only when its value type fits the
 * object's elements: float/double accesses need a float[]/double[]. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "heap/site_kind.h"

static void float_accesses_need_float_elements(void **state)
{
    (void)state;
    wasp_site_kind_set(1, "int[]");
    wasp_site_kind_set(2, "double[]");
    wasp_site_kind_set(3, "float[]");
    wasp_site_kind_set(4, "java.lang.String");
    assert_false(wasp_site_kind_fits(1, 24, 8, 8)); /* a double load in an int[] */
    assert_false(wasp_site_kind_fits(1, 24, 4, 4));
    assert_true(wasp_site_kind_fits(1, 24, 8, 0));  /* integer moves copy any array */
    assert_true(wasp_site_kind_fits(1, 24, 32, 0));
    assert_true(wasp_site_kind_fits(2, 24, 8, 8));
    assert_false(wasp_site_kind_fits(2, 24, 4, 4)); /* a float load in a double[] */
    assert_true(wasp_site_kind_fits(3, 24, 4, 4));
    assert_false(wasp_site_kind_fits(3, 24, 8, 8));
    assert_true(wasp_site_kind_fits(4, 24, 8, 8));  /* fields: layout not tracked */
    assert_true(wasp_site_kind_fits(4, 24, 1, 0));
    wasp_site_kind_set(5, "long[]");
    assert_false(wasp_site_kind_fits(5, 24, 4, 0)); /* half a long: not this array's access */
    assert_true(wasp_site_kind_fits(5, 24, 8, 0));
    assert_true(wasp_site_kind_fits(5, 24, 16, 0)); /* a vector copy */
    assert_false(wasp_site_kind_fits(1, 24, 2, 0)); /* a short access in an int[] */
    wasp_site_kind_set(6, "byte[]");
    assert_true(wasp_site_kind_fits(6, 24, 1, 0));
}

static void header_accesses_always_fit(void **state)
{
    (void)state;
    wasp_site_kind_set(7, "long[]");
    assert_true(wasp_site_kind_fits(7, 12, 4, 0)); /* the length, by a bounds check */
    assert_false(wasp_site_kind_fits(7, 16, 4, 0));
}

/* Fields and elements sit at their natural alignment: a scalar access off it
 * is to no field of the object (a neighbour's, or a stale map's). */
static void scalar_accesses_are_aligned(void **state)
{
    (void)state;
    assert_true(wasp_site_kind_fits(400, 24, 8, 0));  /* a class instance's long field */
    assert_false(wasp_site_kind_fits(400, 28, 8, 0)); /* no 8-byte field at 28 */
    assert_true(wasp_site_kind_fits(400, 28, 4, 0));
    assert_false(wasp_site_kind_fits(400, 30, 4, 0));
    assert_true(wasp_site_kind_fits(400, 31, 1, 0));
    wasp_site_kind_set(8, "int[]");
    assert_true(wasp_site_kind_fits(8, 20, 8, 0));    /* two ints copied at once */
    assert_false(wasp_site_kind_fits(8, 22, 8, 0));   /* off the elements */
    assert_true(wasp_site_kind_fits(8, 20, 32, 0));   /* a vector move */
}

/* The header is this JVM's (the array classes' layout helpers): without
 * compressed class pointers the length is at 16 and elements start at 20 or
 * 24; with compact object headers the length is at 8 and ints start at 12. */
static void the_header_is_the_jvms(void **state)
{
    (void)state;
    wasp_site_kind_set(9, "long[]");
    wasp_site_kind_set(10, "int[]");
    wasp_site_kind_set(11, "short[]");
    assert_int_equal(wasp_site_kind_header(8), 16); /* until set: compressed class pointers */
    assert_false(wasp_site_kind_fits(9, 16, 4, 0)); /* half a long, past a 16-byte header */
    /* JDK 17, -XX:-UseCompressedClassPointers: every array's elements at 24. */
    wasp_site_kind_set_headers((const uint32_t[4]){24, 24, 24, 24});
    assert_int_equal(wasp_site_kind_header(8 | WASP_KIND_FLOAT), 24);
    assert_true(wasp_site_kind_fits(9, 16, 4, 0));  /* the length, by a bounds check */
    assert_true(wasp_site_kind_fits(9, 20, 4, 0));  /* padding before the elements */
    assert_false(wasp_site_kind_fits(9, 24, 4, 0)); /* half the first long */
    assert_true(wasp_site_kind_fits(9, 24, 8, 0));
    /* JDK 22+: elements aligned to their own size, ints from 20. */
    wasp_site_kind_set_headers((const uint32_t[4]){20, 20, 20, 24});
    assert_false(wasp_site_kind_fits(10, 20, 2, 0)); /* a short access in an int[] */
    assert_false(wasp_site_kind_fits(10, 20, 4, 4)); /* a float load in an int[] */
    assert_true(wasp_site_kind_fits(10, 20, 4, 0));
    /* Compact object headers: the length at 8, ints from 12, longs from 16. */
    wasp_site_kind_set_headers((const uint32_t[4]){12, 12, 12, 16});
    assert_false(wasp_site_kind_fits(10, 12, 2, 0)); /* a short in an int[]: no header there */
    assert_true(wasp_site_kind_fits(11, 12, 2, 0));
    assert_int_equal(wasp_site_kind_header(0), 12); /* objects: the smallest */
    wasp_site_kind_set_headers((const uint32_t[4]){0, 40, 16, 16}); /* out of range: kept */
    assert_int_equal(wasp_site_kind_header(1), 12);
    assert_int_equal(wasp_site_kind_header(2), 12);
    wasp_site_kind_set_headers((const uint32_t[4]){16, 16, 16, 16});
}

static void unknown_sites_fit_anything(void **state)
{
    (void)state;
    assert_true(wasp_site_kind_fits(500, 24, 8, 8)); /* never set (and aligned) */
    wasp_site_kind_set(WASP_SITE_KINDS_MAX + 1, "int[]"); /* past the table: ignored */
    assert_true(wasp_site_kind_fits(WASP_SITE_KINDS_MAX + 1, 24, 8, 8));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(float_accesses_need_float_elements),
        cmocka_unit_test(header_accesses_always_fit),
        cmocka_unit_test(scalar_accesses_are_aligned),
        cmocka_unit_test(the_header_is_the_jvms),
        cmocka_unit_test(unknown_sites_fit_anything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
