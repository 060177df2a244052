/* The JSON report's frame memo (src/cli/render/json_frame_memo.c): a frame copied
 * from the memo is the same text the writer makes for it, wherever it is
 * written (first or later in an array, at any depth), and a memo made for
 * one profile is not used for another's frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/render/json_frame_memo.h"
#include "cli/render/report_part.h"

/* Two contexts sharing frames: "quoted \"x\"\n" in a file, a stub without one. */
static wasp_profile *profile(const char *leaf)
{
    wasp_profile *p = wasp_profile_new();
    wasp_frame f[] = {
        {WASP_FRAME_JAVA, wasp_profile_intern_string(p, "pkg.Main.main"),
         wasp_profile_intern_string(p, "Main.java"), 12},
        {WASP_FRAME_STUB, wasp_profile_intern_string(p, "quoted \"x\"\n\xff"), 0, -1},
        {WASP_FRAME_NATIVE, wasp_profile_intern_string(p, leaf),
         wasp_profile_intern_string(p, "libc.so.6"), 0},
    };
    uint32_t id[3];
    for (int i = 0; i < 3; i++)
        id[i] = wasp_profile_intern_frame(p, &f[i]);
    uint32_t twice[] = {id[0], id[1], id[2], id[1], id[0]};
    wasp_profile_intern_context(p, id, 3, 0);
    wasp_profile_intern_context(p, twice, 5, 0);
    return p;
}

/* Every context of p written into nested containers, with
 * the memo made for memo_of (NULL: none). */
static char *write_contexts(const wasp_profile *p, const wasp_profile *memo_of)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    wasp_json j;
    wasp_json_init(&j, out);
    j.frame_memo = memo_of ? wasp_json_memo_new(memo_of) : NULL;
    assert_true(!memo_of || j.frame_memo);
    wasp_json_begin_object(&j, NULL, false);
    wasp_json_begin_array(&j, "contexts", false);
    for (uint32_t c = 0; c < p->ncontexts; c++) {
        wasp_json_begin_object(&j, NULL, c == 1); /* compact or not */
        wasp_json_frames(&j, p, &p->contexts[c]);
        wasp_json_end_object(&j);
    }
    wasp_json_end_array(&j);
    wasp_json_end_object(&j);
    wasp_json_memo_free(j.frame_memo);
    assert_int_equal(fclose(out), 0);
    return buf;
}

static void test_memo_writes_the_same(void **state)
{
    (void)state;
    wasp_profile *p = profile("memset");
    char *plain = write_contexts(p, NULL), *memo = write_contexts(p, p);
    assert_non_null(strstr(plain, "\"method\": \"quoted \\\"x\\\"\\n\\ufffd\", \"file\": null"));
    assert_string_equal(memo, plain);
    free(plain);
    free(memo);
    wasp_profile_free(p);
}

/* Same frame ids, other names: the other profile's memo must not be used. */
static void test_memo_of_another_profile(void **state)
{
    (void)state;
    wasp_profile *p = profile("memset"), *q = profile("memcpy");
    char *plain = write_contexts(p, NULL), *other = write_contexts(p, q);
    assert_non_null(strstr(other, "memset"));
    assert_null(strstr(other, "memcpy"));
    assert_string_equal(other, plain);
    free(plain);
    free(other);
    wasp_profile_free(p);
    wasp_profile_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memo_writes_the_same),
        cmocka_unit_test(test_memo_of_another_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
