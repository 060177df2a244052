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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(signature_names),
        cmocka_unit_test(kept_of_a_method_holder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
