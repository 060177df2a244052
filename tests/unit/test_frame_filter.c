/* Frames (issue 40): the glob of --include/--exclude (cli/render/frame_filter.c),
 * the filter and --by method through the one regrouping (profile/group.c),
 * start-up work (cli/render/startup_frames.c) and what the summary makes of them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/render/evidence_share.h"
#include "cli/render/frame_filter.h"
#include "profile/cpu_lines.h"
#include "cli/commands/report.h"
#include "cli/render/startup_frames.h"
#include "profile/group.h"
#include "pairs_view.h"

static uint32_t jframe(wasp_profile *p, const char *m, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, m),
                    wasp_profile_intern_string(p, "S.java"), line};
    return wasp_profile_intern_frame(p, &f);
}

static uint32_t nframe(wasp_profile *p, const char *sym)
{
    wasp_frame f = {WASP_FRAME_NATIVE, wasp_profile_intern_string(p, sym), 0, -1};
    return wasp_profile_intern_frame(p, &f);
}

/* root -> leaf (line), leaf instruction insn. */
static uint32_t ctx2(wasp_profile *p, const char *root, const char *leaf, int line,
                     const char *insn)
{
    uint32_t fr[] = {jframe(p, root, 10), jframe(p, leaf, line)};
    return wasp_profile_intern_context(p, fr, 2, insn ? wasp_profile_intern_string(p, insn) : 0);
}

static const char *leaf_name(const wasp_profile *q, uint32_t c)
{
    const wasp_context *x = &q->contexts[c];
    return wasp_profile_string(q, q->frames[q->frame_refs[x->first + x->nframes - 1]].name);
}

static void test_glob(void **state)
{
    (void)state;
    assert_true(wasp_glob_match("com.acme.*", "com.acme.Shop.total"));
    assert_true(wasp_glob_match("com.acme.*", "com.acme.io.Reader.read")); /* subpackages */
    assert_false(wasp_glob_match("com.acme.*", "com.acmex.Shop.total"));
    assert_false(wasp_glob_match("com.acme.*", "org.com.acme.A.b")); /* anchored */
    assert_true(wasp_glob_match("*.parse*", "java.lang.Integer.parseInt"));
    assert_false(wasp_glob_match("*.parse*", "x.Y.doparse"));
    assert_true(wasp_glob_match("*", ""));
    assert_true(wasp_glob_match("a?c", "abc"));
    assert_false(wasp_glob_match("a?c", "ac"));
    assert_true(wasp_glob_match("a*b*c", "aXbYbZc")); /* backtracks past the first b */
    assert_false(wasp_glob_match("a*b*c", "aXbYbZ"));
    assert_false(wasp_glob_match("Shop.total", "shop.total")); /* case counts */
    assert_true(wasp_glob_match("*$Lambda*", "pkg.A$$Lambda$14.run"));

    wasp_profile *p = wasp_profile_new();
    uint32_t f = nframe(p, "libjvm.so`SystemDictionary::resolve_or_fail(Symbol*)");
    assert_string_equal(wasp_frame_method(p, &p->frames[f]), "SystemDictionary::resolve_or_fail(Symbol*)");
    wasp_profile_free(p);
}

/* Three dead-store pairs: two in com.acme, one in org.other; totals 10,000 bytes. */
static wasp_profile *three_pairs(void)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_add_counter(p, "samples", 1000);
    uint32_t a = ctx2(p, "com.acme.Main.main", "com.acme.Shop.total", 7, "mov %eax, (%rbx)");
    uint32_t b = ctx2(p, "com.acme.Main.main", "com.acme.Shop.tax", 9, NULL);
    uint32_t c = ctx2(p, "org.other.Main.main", "org.other.Util.fill", 3, NULL);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, a, a, 3000, 30);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, b, b, 1000, 10);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 2000, 20);
    wasp_totals t = {10000, 6000, 0, 60};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    return p;
}

/* The bytes of q's pair whose watched leaf is named leaf (-1: none). */
static double pair_bytes(const wasp_profile *q, const char *leaf)
{
    for (uint32_t i = 0; i < pair_count(q); i++)
        if (strcmp(leaf_name(q, pairs_of(q)[i].watch_ctx), leaf) == 0)
            return pairs_of(q)[i].bytes;
    return -1;
}

static wasp_profile *filtered(const wasp_profile *p, wasp_group_key key, const wasp_frame_filter *f)
{
    wasp_context_filter hide = {wasp_frame_filter_hides, f, WASP_HIDDEN_FRAME};
    wasp_profile *q = wasp_profile_group(p, key, &hide);
    assert_non_null(q);
    return q;
}

static void test_include_exclude(void **state)
{
    (void)state;
    wasp_profile *p = three_pairs();
    wasp_frame_filter inc = {.include = {"com.acme.*"}, .ninclude = 1};
    wasp_profile *q = filtered(p, WASP_GROUP_EXACT, &inc);
    assert_int_equal(pair_count(q), 3);
    assert_true(pair_bytes(q, "com.acme.Shop.total") == 3000);
    assert_true(pair_bytes(q, "com.acme.Shop.tax") == 1000);
    assert_true(pair_bytes(q, WASP_HIDDEN_FRAME) == 2000);
    assert_true(totals_of(q, WASP_AN_DEADSTORE).bytes == 10000); /* of the whole profile */
    /* a kept context keeps its instruction under --by instruction */
    for (uint32_t i = 0; i < pair_count(q); i++)
        if (pair_bytes(q, "com.acme.Shop.total") == pairs_of(q)[i].bytes)
            assert_string_equal(wasp_profile_string(q, q->contexts[pairs_of(q)[i].watch_ctx].insn),
                                "mov %eax, (%rbx)");
    /* the share the summary says is shown: (3000 + 1000) x 2 sides / 12000 */
    double shown = 1 - wasp_evidence_share(q, WASP_AN_DEADSTORE, wasp_context_hidden);
    assert_true(shown > 0.666 && shown < 0.667);
    wasp_profile_free(q);

    /* exclude: any frame matching hides the stack; both filters at once */
    wasp_frame_filter both = {.include = {"*.Main.main"}, .ninclude = 1,
                              .exclude = {"*.tax", "*.fill"}, .nexclude = 2};
    q = filtered(p, WASP_GROUP_LINE, &both);
    assert_int_equal(pair_count(q), 2);
    assert_true(pair_bytes(q, "com.acme.Shop.total") == 3000);
    assert_true(pair_bytes(q, WASP_HIDDEN_FRAME) == 3000); /* tax and fill, summed */
    wasp_profile_free(q);

    /* a pattern no frame matches hides everything, into one pair */
    wasp_frame_filter none = {.include = {"nothing.*"}, .ninclude = 1};
    q = filtered(p, WASP_GROUP_EXACT, &none);
    assert_int_equal(pair_count(q), 1);
    assert_true(pair_bytes(q, WASP_HIDDEN_FRAME) == 6000);
    wasp_profile_free(q);

    char text[128];
    assert_string_equal(wasp_frame_filter_text(&both, text, sizeof text),
                        "--include *.Main.main --exclude *.tax --exclude *.fill");
    wasp_profile_free(p);
}

/* --by method: lines and instructions ignored, methods kept apart. */
static void test_by_method(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t a = ctx2(p, "S.main", "S.indexOf", 26, "mov 0x14(%rbx), %r10d");
    uint32_t b = ctx2(p, "S.main", "S.indexOf", 27, "mov 0x1c(%rbx), %r10d");
    uint32_t fr[] = {jframe(p, "S.main", 11), jframe(p, "S.indexOf", 26)}; /* main at another line */
    uint32_t c = wasp_profile_intern_context(p, fr, 2, 0);
    uint32_t d = ctx2(p, "S.main", "S.hash", 26, NULL);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, a, a, 100, 10);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, b, b, 300, 30);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, c, c, 50, 5);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, d, d, 7, 1);

    wasp_profile *line = wasp_profile_group(p, WASP_GROUP_LINE, NULL);
    assert_non_null(line);
    assert_int_equal(pair_count(line), 4); /* three lines of indexOf, one of hash */
    wasp_profile_free(line);

    /* the CPU samples by line: a method's place (line -1) finds its lines' */
    uint32_t index = wasp_profile_intern_string(p, "S.indexOf"), file = wasp_profile_intern_string(p, "S.java");
    assert_int_equal(wasp_profile_add_cpu_line(p, index, file, 26, 40), 0);
    assert_int_equal(wasp_profile_add_cpu_line(p, index, file, 27, 2), 0);
    assert_int_equal(wasp_profile_add_cpu_leaf(p, index, file, 27, 2), 0);

    wasp_profile *q = wasp_profile_group(p, WASP_GROUP_METHOD, NULL);
    assert_non_null(q);
    uint32_t qindex = wasp_profile_intern_string(q, "S.indexOf");
    assert_true(wasp_profile_cpu_at(q, qindex, -1) == 42 && wasp_profile_cpu_at(q, qindex, 26) == 0);
    assert_true(wasp_profile_cpu_leaf_at(q, qindex, -1) == 2);
    assert_int_equal(pair_count(q), 2);
    assert_true(pair_bytes(q, "S.indexOf") == 450 && pair_bytes(q, "S.hash") == 7);
    for (uint32_t i = 0; i < pair_count(q); i++) {
        const wasp_pair *r = &pairs_of(q)[i];
        const wasp_context *x = &q->contexts[r->watch_ctx];
        assert_int_equal(x->nframes, 2);
        for (uint32_t k = 0; k < x->nframes; k++) /* a method has no one line */
            assert_int_equal(q->frames[q->frame_refs[x->first + k]].line, -1);
        if (r->bytes == 450) {
            assert_true(r->count == 45);
            assert_string_equal(wasp_profile_string(q, x->insn),
                                "mov 0x1c(%rbx), %r10d (+1 more instruction)");
        }
    }
    wasp_profile_free(q);
    wasp_profile_free(p);
}

static bool startup(wasp_profile *p, uint32_t leaf)
{
    uint32_t fr[] = {jframe(p, "com.acme.Main.main", 5), leaf};
    uint32_t c = wasp_profile_intern_context(p, fr, 2, 0);
    return wasp_context_startup(p, &p->contexts[c]);
}

static void test_startup_frames(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    assert_true(startup(p, jframe(p, "java.lang.ClassLoader.loadClass", 521)));
    assert_true(startup(p, jframe(p, "jdk.internal.loader.BuiltinClassLoader.loadClassOrNull", 3)));
    assert_true(startup(p, jframe(p, "com.acme.Tables.<clinit>", 12)));
    assert_true(startup(p, jframe(p, "java.lang.invoke.InnerClassLambdaMetafactory.spinInnerClass", 3)));
    assert_true(startup(p, nframe(p, "libjvm.so`SystemDictionary::resolve_or_fail(Symbol*, Handle)")));
    assert_true(startup(p, nframe(p, "ClassFileParser::parse_stream(ClassFileStream const*)")));
    assert_true(startup(p, nframe(p, "libjvm.so`InterpreterRuntime::resolve_from_cache(JavaThread*)")));
    /* the launcher checking the main class (rhino: half its dead bytes) */
    assert_true(startup(p, jframe(p, "sun.launcher.LauncherHelper.validateMainClass", 867)));
    assert_true(startup(p, nframe(p, "libjvm.so`InterpreterRuntime::build_method_counters(JavaThread*, Method*)")));
    assert_false(startup(p, jframe(p, "com.acme.Shop.total", 7)));
    assert_false(startup(p, jframe(p, "java.lang.invoke.LambdaForm$MH.invoke", 7))); /* running a lambda is not bootstrap */
    assert_false(startup(p, nframe(p, "libjvm.so`InterpreterRuntime::frequency_counter_overflow")));
    wasp_profile_free(p);
}

static char *render(const wasp_profile *p, wasp_format fmt, const wasp_frame_filter *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    wasp_report_opts o = {.format = fmt};
    if (f)
        o.filter = *f;
    assert_int_equal(wasp_report_render(p, &o, out), 0);
    fclose(out);
    return buf;
}

static const char *at(const char *hay, const char *needle)
{
    const char *s = strstr(hay, needle);
    if (!s)
        fail_msg("\"%s\" not found in:\n%s", needle, hay);
    return s;
}

/* The summary passes over start-up work and says how much it is; under a
 * filter it says what it shows. */
static void test_summary(void **state)
{
    (void)state;
    wasp_profile *p = three_pairs();
    uint32_t fr[] = {jframe(p, "com.acme.Main.main", 10), jframe(p, "com.acme.Tables.<clinit>", 4)};
    uint32_t s = wasp_profile_intern_context(p, fr, 2, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, s, s, 4000, 40); /* the heaviest */
    char *t = render(p, WASP_FORMAT_TEXT, NULL);
    const char *dead = at(t, "\nDead stores: values written");
    /* 4000 x 2 sides of (3000 + 1000 + 2000 + 4000) x 2 */
    /* the findings first under their heading, then the note */
    const char *first = at(dead, "  1. com.acme.Shop.total(S.java:7)");
    assert_true(first == strchr(dead + 1, '\n') + 1);
    at(first, "  40.0% of its evidence is JVM start-up work (class loading, linking, "
              "lambda bootstrap), not among these findings\n");
    const char *detail = at(t, "\nDETAIL\n");
    assert_true(strstr(t, "<clinit>") > detail); /* in the detail only */
    free(t);

    wasp_frame_filter inc = {.include = {"com.acme.*"}, .ninclude = 1};
    t = render(p, WASP_FORMAT_TEXT, &inc);
    at(t, "  filtered (--include com.acme.*): only the stacks it keeps are shown");
    at(t, "  the filter shows 80.0% of its evidence\n"); /* fill's 2000 of 10000 hidden */
    assert_null(strstr(strstr(t, "SUMMARY"), "  2. [stacks hidden")); /* the stand-in is no finding */
    free(t);

    char *j = render(p, WASP_FORMAT_JSON, &inc);
    at(j, "\"report.filter\": \"--include com.acme.*\"");
    at(j, "\"startup_share\": 0.4,");
    at(j, "\"shown_share\": 0.8,");
    free(j);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glob),
        cmocka_unit_test(test_include_exclude),
        cmocka_unit_test(test_by_method),
        cmocka_unit_test(test_startup_frames),
        cmocka_unit_test(test_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
