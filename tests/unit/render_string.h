/* Test helper shared by the unit tests that check a rendered report: the
 * report of a profile in one format, as a string (free it), through the
 * command's own renderer. Included by one test file each. */
#ifndef WASP_TEST_RENDER_STRING_H
#define WASP_TEST_RENDER_STRING_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "cli/commands/report.h"

/* The report of p in fmt, grouped by `by`; *len (when not NULL) its length.
 * Not inlined: GCC's dangling-pointer check then mistakes the stream's
 * buffer for the local that receives it. */
__attribute__((noinline)) static char *render_string(const wasp_profile *p, wasp_format fmt, wasp_report_by by, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    wasp_report_opts o = {.format = fmt, .by = by};
    assert_int_equal(wasp_report_render(p, &o, f), 0);
    fclose(f);
    if (len)
        *len = n;
    return buf;
}

#endif
