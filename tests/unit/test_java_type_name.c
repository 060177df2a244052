/* Java type names from JVM signatures (src/agent/java_type_name.c): array
 * and primitive types, and a hidden class's address left out, so that the
 * same lambda of two runs (or of two processes merged into one report) has
 * one name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "agent/java_type_name.h"

static void signature_names(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"Ljava/lang/String;", "java.lang.String"},
        {"[[I", "int[][]"},
        {"[Ljava/util/TreeMap$Entry;", "java.util.TreeMap$Entry[]"},
        {"B", "byte"},
        /* hidden classes: JDK 17's lambdas, newer ones', method handles' forms */
        {"LMain$$Lambda$35/0x0000000800c03000;", "Main$$Lambda$35"},
        {"LMain$$Lambda.0x00007f92600a8de8;", "Main$$Lambda"},
        {"Ljava/lang/invoke/LambdaForm$MH/0x00007f48040a8de8;", "java.lang.invoke.LambdaForm$MH"},
        {"[LMain$$Lambda$35/0x0000000800c03000;", "Main$$Lambda$35[]"},
        /* not an address: too short, or no 0x */
        {"Lpkg/Deadbeef;", "pkg.Deadbeef"},
        {"Lpkg/C0xab;", "pkg.C0xab"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *name = wasp_java_signature_name(cases[i][0]);
        assert_non_null(name);
        assert_string_equal(name, cases[i][1]);
        free(name);
    }
}

static void kept_of_a_method_holder(void **state)
{
    (void)state;
    const char *n = "Main$$Lambda$35.0x00007f92600a8de8";
    assert_int_equal(wasp_java_name_kept(n, strlen(n)), strlen("Main$$Lambda$35"));
    n = "java.lang.Object";
    assert_int_equal(wasp_java_name_kept(n, strlen(n)), strlen(n));
    assert_int_equal(wasp_java_name_kept("", 0), 0);
}

/* Into a buffer: the same name, cut to fit (never past the buffer). */
static void into_a_buffer(void **state)
{
    (void)state;
    char out[64];
    wasp_java_signature_name_into("[Ljava/util/TreeMap$Entry;", out, sizeof out);
    assert_string_equal(out, "java.util.TreeMap$Entry[]");
    wasp_java_signature_name_into("LMain$$Lambda$35/0x0000000800c03000;", out, sizeof out);
    assert_string_equal(out, "Main$$Lambda$35");
    char small[8];
    memset(small, 'x', sizeof small);
    wasp_java_signature_name_into("Ljava/lang/String;", small, 6);
    assert_string_equal(small, "java.");
    assert_int_equal(small[6], 'x');
    wasp_java_signature_name_into("[[D", small, sizeof small);
    assert_string_equal(small, "double");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(signature_names),
        cmocka_unit_test(kept_of_a_method_holder),
        cmocka_unit_test(into_a_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
