/* Test helper shared by the unit tests of `wasp diff` (test_diff.c,
 * test_diff_sub.c): the diff of two profiles as one of its renderers writes
 * it, as a string. Included by one test file each. */
#ifndef WASP_TEST_DIFF_STRING_H
#define WASP_TEST_DIFF_STRING_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>

#include "cli/commands/diff.h"

typedef int (*diff_renderer)(const wasp_diff *d, const wasp_diff_names *names, int top,
                             FILE *out);

/* The diff of b and a (both freed) as r writes it, --top top, verbose as
 * --verbose (the text's contexts of changes within noise); free it. */
static char *render_diff_verbose(wasp_profile *b, wasp_profile *a, diff_renderer r, int top,
                                 bool verbose)
{
    wasp_diff d;
    assert_int_equal(wasp_diff_build(b, a, false, &d), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    wasp_diff_names names = {{"before.wprof", "after.wprof"}, true, verbose};
    assert_int_equal(r(&d, &names, top, out), 0);
    assert_int_equal(fclose(out), 0);
    wasp_diff_free(&d);
    wasp_profile_free(b);
    wasp_profile_free(a);
    return buf;
}

/* The same with --verbose: every change's contexts. */
static inline char *render_diff(wasp_profile *b, wasp_profile *a, diff_renderer r, int top)
{
    return render_diff_verbose(b, a, r, top, true);
}

#endif
