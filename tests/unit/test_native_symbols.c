/* Native code named through elfutils: functions that dladdr cannot name (a
 * static function of this program, not exported) and a libc function. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/native_symbols.h"

/* Not exported: only .symtab knows its name. noinline and used, so it has
 * its own code for the address to point into. */
__attribute__((noinline, used)) static int hidden_helper_for_symbols(int x)
{
    return x * 3 + 1;
}

/* A C++ name (wasp::demo(int)) in a C program, which links no C++ runtime:
 * its demangler must be found even so (a libjvm with its own copy of
 * libstdc++ exports none). */
__attribute__((noinline, used)) static int cxx_named_helper(int x) __asm__("_ZN4wasp4demoEi");
__attribute__((noinline, used)) static int cxx_named_helper(int x)
{
    return x * 5 + 2;
}

static wasp_native_symbols *open_or_fail(void)
{
    wasp_native_symbols *s = wasp_native_symbols_open();
    assert_non_null(s);
    return s;
}

static void names_a_static_function_dladdr_cannot(void **state)
{
    (void)state;
    int (*volatile fn)(int) = hidden_helper_for_symbols;
    uint64_t pc = (uint64_t)(uintptr_t)fn + 2; /* inside, not at its start */
    Dl_info info;
    /* The reason for elfutils: dladdr sees exported symbols only. */
    if (dladdr((void *)(uintptr_t)pc, &info))
        assert_true(!info.dli_sname || strcmp(info.dli_sname, "hidden_helper_for_symbols") != 0);
    wasp_native_symbols *s = open_or_fail();
    char name[256], lib[256];
    assert_int_equal(wasp_native_symbols_name(s, pc, name, sizeof name, lib, sizeof lib), 1);
    assert_string_equal(name, "hidden_helper_for_symbols");
    assert_string_equal(lib, "test_native_symbols");
    assert_int_equal(fn(1), 4);
    wasp_native_symbols_close(s);
}

static void names_a_libc_function(void **state)
{
    (void)state;
    void *q = dlsym(RTLD_DEFAULT, "qsort");
    assert_non_null(q);
    wasp_native_symbols *s = open_or_fail();
    char name[256], lib[256];
    assert_int_equal(wasp_native_symbols_name(s, (uint64_t)(uintptr_t)q + 1, name, sizeof name, lib,
                                              sizeof lib), 1);
    assert_string_equal(name, "qsort");
    assert_true(strncmp(lib, "libc.so", 7) == 0);
    wasp_native_symbols_close(s);
}

/* The test binary's directory: the fixture library and debug root are
 * built next to it. */
static void beside_this_test(char *out, size_t len, const char *name)
{
    char self[2048];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = 0;
    char *slash = strrchr(self, '/');
    assert_non_null(slash);
    *slash = 0;
    snprintf(out, len, "%s/%s", self, name);
}

/* The fixture library (Makefile: libstripped.so), loaded, and its debug
 * root into root. */
static void *load_stripped_fixture(char *root, size_t len)
{
    char lib_path[4096];
    beside_this_test(lib_path, sizeof lib_path, "libstripped.so");
    beside_this_test(root, len, "debugroot");
    void *lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    return lib;
}

/* A library stripped to .dynsym: its static function is named from its
 * separate debug file, found by build ID under the debug root, and not
 * without that file. */
static void names_a_stripped_function_from_its_debug_file(void **state)
{
    (void)state;
    char root[4096];
    void *lib = load_stripped_fixture(root, sizeof root);
    void *(*internal)(void) = (void *(*)(void))dlsym(lib, "stripped_lib_internal");
    assert_non_null(internal);
    uint64_t pc = (uint64_t)(uintptr_t)internal() + 1;
    assert_true(pc > 1);

    char name[256], lib_name[256];
    wasp_native_symbols *s = wasp_native_symbols_open_with_debug_root(root);
    assert_non_null(s);
    assert_int_equal(wasp_native_symbols_name(s, pc, name, sizeof name, lib_name, sizeof lib_name), 1);
    assert_string_equal(name, "internal_only_in_debug_file");
    assert_string_equal(lib_name, "libstripped.so");
    wasp_native_symbols_close(s);

    s = wasp_native_symbols_open_with_debug_root("/nonexistent");
    assert_non_null(s);
    assert_int_equal(wasp_native_symbols_name(s, pc, name, sizeof name, lib_name, sizeof lib_name), 1);
    assert_string_not_equal(name, "internal_only_in_debug_file");
    wasp_native_symbols_close(s);
    dlclose(lib);
}

/* A function without a size (assembly, as libjvm's SpinPause) is named for
 * a PC inside it, from .dynsym and from the debug file alike. */
static void names_a_sizeless_function(void **state)
{
    (void)state;
    char root[4096];
    void *lib = load_stripped_fixture(root, sizeof root);
    void *fn = dlsym(lib, "stripped_lib_sizeless");
    assert_non_null(fn);
    uint64_t pc = (uint64_t)(uintptr_t)fn + 1;
    const char *roots[] = {root, "/nonexistent"};
    for (int i = 0; i < 2; i++) {
        char name[256], lib_name[256];
        wasp_native_symbols *s = wasp_native_symbols_open_with_debug_root(roots[i]);
        assert_non_null(s);
        assert_int_equal(wasp_native_symbols_name(s, pc, name, sizeof name, lib_name,
                                                  sizeof lib_name), 1);
        assert_string_equal(name, "stripped_lib_sizeless");
        wasp_native_symbols_close(s);
    }
    dlclose(lib);
}

static void demangles_without_a_cxx_runtime_loaded(void **state)
{
    (void)state;
    if (dlsym(RTLD_DEFAULT, "__cxa_demangle"))
        skip(); /* something loaded libstdc++ already: nothing to prove */
    int (*volatile fn)(int) = cxx_named_helper;
    wasp_native_symbols *s = open_or_fail();
    char name[256], lib[256];
    assert_int_equal(wasp_native_symbols_name(s, (uint64_t)(uintptr_t)fn + 1, name, sizeof name,
                                              lib, sizeof lib), 1);
    assert_string_equal(name, "wasp::demo(int)");
    assert_int_equal(fn(1), 7);
    wasp_native_symbols_close(s);
}

static void anonymous_memory_is_not_native_code(void **state)
{
    (void)state;
    /* JIT code lives in anonymous mappings: not a library, so the caller
     * asks the JVM's stub table instead. */
    char *heap = malloc(1 << 20);
    assert_non_null(heap);
    wasp_native_symbols *s = open_or_fail();
    char name[256], lib[256];
    assert_int_equal(wasp_native_symbols_name(s, (uint64_t)(uintptr_t)(heap + 4096), name,
                                              sizeof name, lib, sizeof lib), 0);
    assert_int_equal(wasp_native_symbols_name(NULL, 0x1000, name, sizeof name, lib, sizeof lib), 0);
    wasp_native_symbols_close(s);
    free(heap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_a_static_function_dladdr_cannot),
        cmocka_unit_test(names_a_libc_function),
        cmocka_unit_test(names_a_stripped_function_from_its_debug_file),
        cmocka_unit_test(names_a_sizeless_function),
        cmocka_unit_test(anonymous_memory_is_not_native_code),
        cmocka_unit_test(demangles_without_a_cxx_runtime_loaded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
