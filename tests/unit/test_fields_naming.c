/* Naming the member a fields record points into (analysis/fields/naming.c,
 * heap/java_field.c), as the agent does when the run stops: a field is named
 * only by an access of its width and kind; a vector move from a field names
 * several fields; any other access is a mismatch, not the field's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "analysis/fields/naming.h"
#include "analysis/fields/records.h"

/* class Cell { int a; long total; int b; short s; float f; double d; Object ref; }
 * laid out with compressed class pointers and oops (fields from 12). */
static const wasp_java_field cell[] = {
    {"a", 12, 4, 0},     {"total", 16, 8, 0}, {"b", 24, 4, 0},  {"s", 28, 2, 0},
    {"f", 32, 4, 1},     {"d", 40, 8, 1},     {"ref", 48, 4, 0},
};
enum { NCELL = sizeof cell / sizeof cell[0] };
static const wasp_field_header compressed = {12, 12};

static wasp_field_fit name(uint32_t offset, uint32_t width, uint8_t float_size, char *buf)
{
    return wasp_field_member("Cell", cell, NCELL, &compressed, offset, width, float_size, buf, 64);
}

static void an_access_of_the_fields_width_and_kind_names_it(void **state)
{
    (void)state;
    char m[64];
    assert_int_equal(name(12, 4, 0, m), WASP_FIT_FIELD); /* an int load at an int field */
    assert_string_equal(m, "a");
    assert_int_equal(name(16, 8, 0, m), WASP_FIT_FIELD);
    assert_string_equal(m, "total");
    assert_int_equal(name(28, 2, 0, m), WASP_FIT_FIELD);
    assert_string_equal(m, "s");
    assert_int_equal(name(32, 4, 4, m), WASP_FIT_FIELD); /* movss at a float */
    assert_string_equal(m, "f");
    assert_int_equal(name(40, 8, 8, m), WASP_FIT_FIELD);
    assert_string_equal(m, "d");
    assert_int_equal(name(40, 8, 0, m), WASP_FIT_FIELD); /* its raw bits by an integer move */
    assert_int_equal(name(48, 4, 0, m), WASP_FIT_FIELD); /* a compressed reference */
    assert_string_equal(m, "ref");
}

static void an_access_that_does_not_fit_is_not_the_fields(void **state)
{
    (void)state;
    char m[64];
    assert_int_equal(name(16, 4, 4, m), WASP_FIT_MISMATCH); /* a float load at a long */
    assert_string_equal(m, "");
    assert_int_equal(name(16, 4, 0, m), WASP_FIT_MISMATCH); /* half the long */
    assert_int_equal(name(20, 4, 0, m), WASP_FIT_MISMATCH); /* inside the long */
    assert_int_equal(name(12, 8, 0, m), WASP_FIT_MISMATCH); /* from a into half of total */
    assert_int_equal(name(12, 1, 0, m), WASP_FIT_MISMATCH); /* a byte of an int */
    assert_int_equal(name(40, 4, 4, m), WASP_FIT_MISMATCH); /* a float load at a double */
    assert_int_equal(name(32, 8, 8, m), WASP_FIT_MISMATCH); /* a double load at a float */
    assert_int_equal(name(12, 4, 4, m), WASP_FIT_MISMATCH); /* a float load at an int */
    assert_string_equal(m, "");
}

/* C2 zeroes and initializes new objects 8 bytes at a time, and clone copies
 * so: a move over whole fields names them together. */
static void a_wider_move_over_whole_fields_names_several(void **state)
{
    (void)state;
    char m[64];
    assert_int_equal(name(24, 8, 0, m), WASP_FIT_SEVERAL); /* over the int b and the short s */
    assert_string_equal(m, "(several fields from b)");
    assert_int_equal(name(28, 16, 0, m), WASP_FIT_MISMATCH); /* from s to inside d */
    assert_int_equal(name(16, 16, 0, m), WASP_FIT_SEVERAL); /* a vector copy of total, b, s */
    assert_string_equal(m, "(several fields from total)");
    assert_int_equal(name(32, 16, 4, m), WASP_FIT_SEVERAL); /* packed floats from f */
    assert_int_equal(name(12, 16, 4, m), WASP_FIT_MISMATCH); /* packed floats from an int */
}

static void header_words_and_elements(void **state)
{
    (void)state;
    char m[64];
    assert_int_equal(name(0, 8, 0, m), WASP_FIT_FIELD);
    assert_string_equal(m, "(mark word)");
    assert_int_equal(name(8, 4, 0, m), WASP_FIT_FIELD);
    assert_string_equal(m, "(class word)");
    assert_int_equal(wasp_field_member("int[]", NULL, 0, &compressed, 12, 4, 0, m, sizeof m),
                     WASP_FIT_FIELD);
    assert_string_equal(m, "length");
    assert_int_equal(wasp_field_member("int[]", NULL, 0, &compressed, WASP_FIELD_ELEMENTS, 4, 0, m,
                                       sizeof m),
                     WASP_FIT_FIELD);
    assert_string_equal(m, "[]");
    /* Padding, or a field the JVM does not list: no name, no mismatch. */
    assert_int_equal(name(52, 4, 0, m), WASP_FIT_NO_FIELD);
    assert_string_equal(m, "");
    assert_int_equal(name(12, 0, 0, m), WASP_FIT_FIELD); /* width not kept: by offset */
}

/* -XX:-UseCompressedClassPointers -XX:-UseCompressedOops: the class word is
 * 8 bytes (fields from 16, an array's length at 16), references 8. */
static void without_compressed_class_pointers(void **state)
{
    (void)state;
    uint8_t f;
    const wasp_java_field wide[] = {
        {"next", 16, wasp_java_field_size("LNode;", 0, &f), f},
        {"hits", 24, wasp_java_field_size("I", 0, &f), f},
    };
    const wasp_field_header h = {16, 16};
    char m[64];
    assert_int_equal(wasp_field_member("Node", wide, 2, &h, 12, 4, 0, m, sizeof m), WASP_FIT_FIELD);
    assert_string_equal(m, "(class word)");
    assert_int_equal(wasp_field_member("Node", wide, 2, &h, 16, 8, 0, m, sizeof m), WASP_FIT_FIELD);
    assert_string_equal(m, "next");
    assert_int_equal(wasp_field_member("Node", wide, 2, &h, 16, 4, 0, m, sizeof m),
                     WASP_FIT_MISMATCH); /* a compressed reference's width: not this JVM's */
    assert_int_equal(wasp_field_member("Node", wide, 2, &h, 24, 4, 0, m, sizeof m), WASP_FIT_FIELD);
    assert_string_equal(m, "hits");
    assert_int_equal(wasp_field_member("long[]", NULL, 0, &h, 16, 4, 0, m, sizeof m), WASP_FIT_FIELD);
    assert_string_equal(m, "length");
}

/* A class's static fields, at their offsets in its mirror: no header words
 * there to name (the mirror's own fields come first), the same fit rule. */
static void static_fields(void **state)
{
    (void)state;
    static const wasp_java_field statics[] = {{"before", 112, 8, 0}, {"hot", 120, 8, 0},
                                              {"ratio", 128, 8, 1}, {"rare", 136, 4, 0}};
    char m[64];
    assert_int_equal(wasp_field_static_member(statics, 4, 120, 8, 0, m, sizeof m), WASP_FIT_FIELD);
    assert_string_equal(m, "hot (static)");
    assert_int_equal(wasp_field_static_member(statics, 4, 128, 8, 8, m, sizeof m), WASP_FIT_FIELD);
    assert_string_equal(m, "ratio (static)");
    assert_int_equal(wasp_field_static_member(statics, 4, 112, 16, 0, m, sizeof m),
                     WASP_FIT_SEVERAL);
    assert_string_equal(m, "(several static fields from before)");
    /* an int load into a long, a double load of an int: not theirs */
    assert_int_equal(wasp_field_static_member(statics, 4, 120, 4, 0, m, sizeof m),
                     WASP_FIT_MISMATCH);
    assert_int_equal(wasp_field_static_member(statics, 4, 136, 8, 8, m, sizeof m),
                     WASP_FIT_MISMATCH);
    assert_string_equal(m, "");
    /* no static there (the statics of another class; none listed) */
    assert_int_equal(wasp_field_static_member(statics, 0, 120, 8, 0, m, sizeof m),
                     WASP_FIT_NO_FIELD);
}

static void field_widths_from_signatures(void **state)
{
    (void)state;
    uint8_t f;
    assert_int_equal(wasp_java_field_size("Z", 1, &f), 1);
    assert_int_equal(wasp_java_field_size("B", 1, &f), 1);
    assert_int_equal(wasp_java_field_size("C", 1, &f), 2);
    assert_int_equal(wasp_java_field_size("S", 1, &f), 2);
    assert_int_equal(wasp_java_field_size("I", 1, &f), 4);
    assert_false(f);
    assert_int_equal(wasp_java_field_size("F", 1, &f), 4);
    assert_true(f);
    assert_int_equal(wasp_java_field_size("J", 1, &f), 8);
    assert_false(f);
    assert_int_equal(wasp_java_field_size("D", 1, &f), 8);
    assert_true(f);
    assert_int_equal(wasp_java_field_size("Ljava/lang/String;", 1, &f), 4);
    assert_int_equal(wasp_java_field_size("[I", 0, &f), 8);
    assert_int_equal(wasp_java_field_size("?", 1, &f), 0);
    assert_int_equal(wasp_java_field_size(NULL, 1, &f), 0);
}

/* Only JDK 19+'s own filler classes: a user class of that simple name, or
 * an int[] (JDK 17's filler, and everyone's array), is not one. */
static void the_jvms_fillers(void **state)
{
    (void)state;
    assert_true(wasp_field_is_filler("jdk.internal.vm.FillerElement[]"));
    assert_true(wasp_field_is_filler("jdk.internal.vm.FillerObject"));
    assert_false(wasp_field_is_filler("jdk.internal.vm.FillerElement"));
    assert_false(wasp_field_is_filler("com.example.FillerObject"));
    assert_false(wasp_field_is_filler("int[]"));
    assert_false(wasp_field_is_filler(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_access_of_the_fields_width_and_kind_names_it),
        cmocka_unit_test(an_access_that_does_not_fit_is_not_the_fields),
        cmocka_unit_test(a_wider_move_over_whole_fields_names_several),
        cmocka_unit_test(header_words_and_elements),
        cmocka_unit_test(without_compressed_class_pointers),
        cmocka_unit_test(field_widths_from_signatures),
        cmocka_unit_test(static_fields),
        cmocka_unit_test(the_jvms_fillers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
