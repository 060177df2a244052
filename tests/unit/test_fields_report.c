/* The fields analysis's report (analysis/fields/report.c): accesses whose
 * width or kind did not fit the field at their offset are not named and are
 * shown under their cause, in text and JSON; a vector move over several
 * fields is labelled as such. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fields/profile.h"
#include "cli/commands/report.h"
#include "render_string.h"
#include "profile/profile.h"

static uint32_t ctx(wasp_profile *p, const char *m, int line, const char *insn)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, m),
                    wasp_profile_intern_string(p, "Main.java"), line};
    uint32_t fr = wasp_profile_intern_frame(p, &f);
    return wasp_profile_intern_context(p, &fr, 1, wasp_profile_intern_string(p, insn));
}

/* What the agent writes for: 300 int loads of Cell.hits, 20 vector copies
 * from Cell.total, and 30 float loads at a long's offset (a mismatch: not
 * named, counted). */
static wasp_profile *sample(void)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "fields");
    wasp_profile_add_counter(p, "samples", 400);
    wasp_profile_add_counter(p, "fields.by_instruction", 350);
    wasp_profile_add_counter(p, "fields.mismatch", 30);
    uint32_t cell = wasp_profile_intern_string(p, "pkg.Cell");
    wasp_field_entry hits = {cell, wasp_profile_intern_string(p, "hits"), 12, 4 /* old */,
                             ctx(p, "pkg.Main.visit", 32, "incl 0xc(%r12,%r10,8)"), 300, 0};
    wasp_field_entry copy = {cell, wasp_profile_intern_string(p, "(several fields from total)"), 16,
                             4, ctx(p, "pkg.Main.copy", 40, "vmovdqu 0x10(%rsi), %xmm0"), 20, 0};
    wasp_field_entry bad = {0, 0, 0, 4, ctx(p, "pkg.Main.odd", 50, "movss 0x10(%rsi), %xmm1"), 30,
                            0};
    wasp_profile_add_field(p, &hits);
    wasp_profile_add_field(p, &copy);
    wasp_profile_add_field(p, &bad);
    return p;
}

static char *render(const wasp_profile *p, wasp_format fmt)
{
    return render_string(p, fmt, WASP_BY_LINE, NULL);
}

static void at(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("\"%s\" not found in:\n%s", needle, hay);
}

static void mismatches_are_not_named_and_say_why(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char *t = render(p, WASP_FORMAT_TEXT);
    at(t, "350 in the Java heap (91.4% of them named)");
    at(t, "not named: 30 (the access's width or kind does not fit the field at its offset)");
    at(t, "where heap samples were not named:");
    at(t, "pkg.Main.odd");
    at(t, "pkg.Cell.hits");
    at(t, "pkg.Cell (several fields from total)");
    free(t);
    char *j = render(p, WASP_FORMAT_JSON);
    at(j, "\"fields.mismatch\": 30");
    at(j, "\"named\": 320");
    at(j, "\"field\": \"(several fields from total)\"");
    free(j);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mismatches_are_not_named_and_say_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
