/* The reports: text (leaf-first stack traces) and JSON (the schema of
 * docs/report-json.md), and the `wasp report` command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/pairs/profile.h"
#include "analysis/objects/profile.h"
#include "cli/render/json_writer.h"
#include "cli/render/render.h" /* the renderers, private to src/cli/ */
#include "cli/commands/report.h"
#include "cli/render/report_part.h"
#include "profile/group.h"
#include "profile/profile.h"

static uint32_t jframe(wasp_profile *p, const char *m, const char *file, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, m),
                    file ? wasp_profile_intern_string(p, file) : 0, line};
    return wasp_profile_intern_frame(p, &f);
}

/* Dead stores: work:42 -> work:43 (big) and a deep native context (small);
 * silent loads: one approximate pair. Silent stores enabled, empty. */
static wasp_profile *sample(void)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "java_command", "java -cp w DeadStore");
    wasp_profile_set_meta(p, "sampler", "soft");
    wasp_profile_set_meta(p, "sampler_detail", "timer + decode");
    wasp_profile_set_meta(p, "period", "1ms");
    wasp_profile_set_meta(p, "events", "deadstore+silentstore+silentload");
    wasp_profile_set_meta(p, "odd", "quote \" backslash \\ newline \n ctl \x01 bad \xff end");
    wasp_profile_add_counter(p, "samples", 12345);
    wasp_profile_add_counter(p, "samples.memory", 9000);
    wasp_profile_add_counter(p, "armed", 8000);
    wasp_profile_add_counter(p, "trapped", 7000);
    wasp_profile_add_counter(p, "dropped.gc", 3);
    uint32_t root = jframe(p, "pkg.Main.main", "Main.java", 10);
    uint32_t w42 = jframe(p, "pkg.Main.work", "Main.java", 42);
    uint32_t w43 = jframe(p, "pkg.Main.work", "Main.java", 43);
    wasp_frame nf = {WASP_FRAME_NATIVE, wasp_profile_intern_string(p, "libc.so.6`memset"), 0, -1};
    uint32_t nat = wasp_profile_intern_frame(p, &nf);
    uint32_t c42f[] = {root, w42}, c43f[] = {root, w43};
    uint32_t c42 = wasp_profile_intern_context(
        p, c42f, 2, wasp_profile_intern_string(p, "0x7f3a2c10: movl %eax, 0x10(%rbx)"));
    uint32_t c43 = wasp_profile_intern_context(p, c43f, 2, 0);
    uint32_t deep[20];
    for (int i = 0; i < 19; i++) {
        char m[32];
        snprintf(m, sizeof m, "pkg.Deep.d%d", i);
        deep[i] = jframe(p, m, "Deep.java", 100 + i);
    }
    deep[19] = nat;
    uint32_t cdeep = wasp_profile_intern_context(p, deep, 20, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c42, c43, 3000, 90);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, cdeep, c42, 1000, 10);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, WASP_PAIR_APPROX, c43, c43, 500, 5);
    wasp_totals dt = {10000, 4000, 0, 100}, lt = {2000, 100, 500, 20};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &dt);
    wasp_profile_add_totals(p, WASP_AN_SILENTLOAD, &lt);
    return p;
}

/* Renders as o says into a malloc'd string. */
static char *render_opts(const wasp_profile *p, wasp_report_opts o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(wasp_report_render(p, &o, f), 0);
    fclose(f);
    return buf;
}

static char *render_by(const wasp_profile *p, wasp_format fmt, int top, wasp_report_by by)
{
    return render_opts(p, (wasp_report_opts){.format = fmt, .top = top, .by = by});
}

/* With the default grouping, by line (sample() has one instruction per line). */
static char *render(const wasp_profile *p, wasp_format fmt, int top)
{
    return render_by(p, fmt, top, WASP_BY_LINE);
}

/* The text report with --verbose: how it was measured in the header. */
static char *render_verbose(const wasp_profile *p, int top)
{
    return render_opts(p, (wasp_report_opts){.format = WASP_FORMAT_TEXT, .top = top, .verbose = true});
}

/* Position of needle in hay, failing the test when absent. */
static size_t at(const char *hay, const char *needle)
{
    const char *s = strstr(hay, needle);
    if (!s)
        fail_msg("\"%s\" not found in:\n%s", needle, hay);
    return (size_t)(s - hay);
}

static void test_text_report(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    /* how it was measured: under --verbose only */
    char *t = render_verbose(p, 0);
    at(t, "java -cp w DeadStore");
    at(t, "soft (timer + decode), period 1ms");
    at(t, "12,345 taken, 9,000 with a memory access, 8,000 armed, 7,000 trapped");
    at(t, "3: 3 gc");
    free(t);
    t = render(p, WASP_FORMAT_TEXT, 0);
    at(t, "java -cp w DeadStore");
    at(t, "  wasp used  sampler soft, watchpoints none (--verbose: how, counters, drops)\n");
    assert_null(strstr(t, "timer + decode"));
    assert_null(strstr(t, "12,345 taken"));
    assert_null(strstr(t, "3 gc"));
    /* F_prog = 4000 / 10000 */
    size_t dead = at(t, "Dead stores: 40.0% of 9.8 KiB stored (F_prog)");
    size_t silent_st = at(t, "Silent stores: 0.0% of 0 B stored (F_prog)");
    size_t silent_ld = at(t, "Silent loads: 30.0% of 2.0 KiB loaded (F_prog)");
    assert_true(dead < silent_st && silent_st < silent_ld);
    at(t, "approximate (float/double within threshold) 25.0% (500 B)");
    /* the biggest pair first, 3000 / 10000 = 30% */
    size_t p1 = at(t, "#1  30.0%"), p2 = at(t, "#2  10.0%");
    assert_true(dead < p1 && p1 < p2 && p2 < silent_st);
    /* leaf first, instruction just above the leaf */
    size_t insn = at(t + p1, "watched:    0x7f3a2c10: movl %eax, 0x10(%rbx)") + p1;
    size_t leaf = at(t + p1, "at pkg.Main.work(Main.java:42)") + p1;
    size_t root = at(t + p1, "at pkg.Main.main(Main.java:10)") + p1;
    size_t trap = at(t + p1, "trapped at:") + p1;
    size_t trap_leaf = at(t + p1, "at pkg.Main.work(Main.java:43)") + p1;
    assert_true(insn < leaf && leaf < root && root < trap && trap < trap_leaf);
    /* the deep context: native leaf first, to the first application frame
     * (d18) and three callers, then the rest counted */
    size_t nat = at(t + p2, "at libc.so.6 memset") + p2;
    size_t d18 = at(t + p2, "at pkg.Deep.d18(Deep.java:118)") + p2;
    size_t d15 = at(t + p2, "at pkg.Deep.d15(Deep.java:115)") + p2;
    size_t more = at(t + p2, "... 15 more") + p2;
    assert_true(nat < d18 && d18 < d15 && d15 < more);
    assert_null(strstr(t, "pkg.Deep.d14("));
    at(t + silent_st, "no pairs classified for this analysis");
    at(t + silent_ld, "(approximate: float/double within threshold)");
    free(t);
    wasp_profile_free(p);
}

/* The summary (report_summary.c): first, before the detail; per analysis its
 * top findings, each at its first application frame, with its cost in CPU:
 * a pair's weight times the pair analyses sharing the samples (three, each
 * given a third at random), of the samples due, 95% Wilson interval on the
 * armed samples it rests on; few of them are flagged. */
static void assert_valid_json(const char *doc);

static void test_summary(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char *t = render(p, WASP_FORMAT_TEXT, 0);
    size_t sum = at(t, "\nSUMMARY: ");
    at(t + sum, "of the program's 12,345 CPU samples");
    size_t dead = at(t + sum, "\nDead stores: values written and overwritten") + sum;
    /* 90 x 3 / 12,345 = 2.19%; it rests on 90 x 8,000 armed / 120 weight =
     * 6,000 samples: Wilson(6000, 6000 / 0.02187) = 2.13-2.24% */
    size_t p1 = at(t + dead, "  1. pkg.Main.work(Main.java:42): the value stored here is overwritten "
                             "at Main.java:43 before any read (30.0% of the bytes stored); 2.2% of "
                             "CPU, estimate (2.1\xe2\x80\x93" "2.2%)\n") + dead;
    /* the native leaf is not the application's: its caller is the place */
    size_t p2 = at(t + p1, "  2. pkg.Deep.d18(Deep.java:118): the value stored here") + p1;
    size_t hint = at(t + p2, "  try: remove the first store") + p2;
    size_t ss = at(t + hint, "\nSilent stores: writes of the value already in memory\n"
                             "  nothing found") + hint;
    size_t sl = at(t + ss, "  1. pkg.Main.work(Main.java:43): reads the same value it read last "
                           "time, float/double within the threshold (25.0% of the bytes loaded)")
                + ss;
    size_t detail = at(t, "\nDETAIL\n");
    assert_true(sl < detail && detail < at(t, "Dead stores: 40.0% of 9.8 KiB stored (F_prog)"));
    assert_null(strstr(t, "; few "));
    /* instructions only in the detail */
    assert_true(at(t, "movl %eax") > detail);
    free(t);

    /* --top 1: one finding per analysis (and one pair in the detail) */
    t = render(p, WASP_FORMAT_TEXT, 1);
    at(t, "  1. pkg.Main.work(Main.java:42)");
    assert_null(strstr(t, "pkg.Deep.d18"));
    free(t);

    char *j = render(p, WASP_FORMAT_JSON, 0);
    assert_valid_json(j);
    size_t js = at(j, "\"summary\": {");
    assert_true(js < at(j, "\"analyses\": {"));
    at(j + js, "\"samples_due\": 12345.0,");
    at(j + js, "\"few_samples_below\": 30,");
    size_t f1 = at(j + js, "\"place\": \"pkg.Main.work(Main.java:42)\",") + js;
    at(j + f1, "\"method\": \"pkg.Main.work\",\n");
    at(j + f1, "\"line\": 42,");
    at(j + f1, "\"share\": 0.3,");
    at(j + f1, "\"cpu_samples\": 270.0,");
    at(j + f1, "\"samples\": 6000.0,");
    at(j + f1, "\"few_samples\": false");
    free(j);

    /* few armed samples: each finding says how few */
    wasp_profile_add_counter(p, "armed", (uint64_t)-8000 + 3); /* 3 in all */
    t = render(p, WASP_FORMAT_TEXT, 0);
    /* 90 x 3 / 120 = 2.25 samples: Wilson(2.25, 2.25 / 0.02187) = 0.64-7.17% */
    at(t, "2.2% of CPU, estimate (0.6\xe2\x80\x93" "7.2%); few watched samples: 2\n");
    free(t);
    wasp_profile_free(p);
}

/* The place of a finding: the first frame from the leaf that is not the
 * JDK's, else the leaf. */
static void test_summary_place(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t app = jframe(p, "com.example.Shop.total", "Shop.java", 7);
    uint32_t list = jframe(p, "java.util.ArrayList.add", "ArrayList.java", 455);
    uint32_t f[] = {app, list};
    uint32_t c = wasp_profile_intern_context(p, f, 2, 0), jdk = wasp_profile_intern_context(p, f + 1, 1, 0);
    char buf[64];
    assert_string_equal(wasp_place_short(p, c, buf, sizeof buf), "Shop.java:7");
    assert_string_equal(wasp_place_short(p, jdk, buf, sizeof buf), "ArrayList.java:455");
    double lo, hi;
    wasp_wilson95(5, 10, &lo, &hi); /* Wilson's interval of 5/10: 0.2366-0.7634 */
    assert_true(lo > 0.2365 && lo < 0.2367 && hi > 0.7633 && hi < 0.7635);
    for (double n = 1; n < 5000; n = n * 3 + 1) { /* exact ends at none and all */
        wasp_wilson95(0, n, &lo, &hi);
        assert_true(lo == 0 && hi > 0);
        wasp_wilson95(n, n, &lo, &hi);
        assert_true(hi == 1 && lo < 1);
    }
    wasp_profile_free(p);
}

/* Sites at one place (their paths part beyond the first application frame)
 * and of one class are one finding, summed into the first given; another
 * class there, or another place, stays apart; the result ranked by weight. */
static void test_summary_place_merge(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t m51 = jframe(p, "com.example.Matrix.<init>", "Matrix.java", 51);
    uint32_t m106 = jframe(p, "com.example.Matrix.<init>", "Matrix.java", 106);
    uint32_t a = jframe(p, "com.example.A.run", "A.java", 3);
    uint32_t b = jframe(p, "com.example.B.run", "B.java", 4);
    uint32_t fa[] = {a, m51}, fb[] = {b, m51}, fc[] = {a, m106};
    uint32_t ca = wasp_profile_intern_context(p, fa, 2, 0), cb = wasp_profile_intern_context(p, fb, 2, 0),
             cc = wasp_profile_intern_context(p, fc, 2, 0);
    wasp_place_item items[] = {
        {.index = 0, .key = 1, .ctx = ca, .weight = 50, .evidence = 5},
        {.index = 1, .key = 1, .ctx = cc, .weight = 40, .evidence = 4},
        {.index = 2, .key = 1, .ctx = cb, .weight = 30, .evidence = 3}, /* joins 0 */
        {.index = 3, .key = 2, .ctx = cb, .weight = 20, .evidence = 2}, /* another class */
        {.index = 4, .key = 1, .ctx = UINT32_MAX, .weight = 10},         /* no place */
        {.index = 5, .key = 1, .ctx = UINT32_MAX, .weight = 10},         /* nor this */
    };
    uint32_t n;
    assert_int_equal(wasp_place_merge(p, items, 6, &n), 0);
    assert_int_equal(n, 5);
    uint32_t index[] = {0, 1, 3, 4, 5};
    double weight[] = {80, 40, 20, 10, 10};
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(items[i].index, index[i]);
        assert_true(items[i].weight == weight[i]);
    }
    assert_true(items[0].evidence == 8 && items[0].merged == 1 && items[0].ctx == ca);
    assert_int_equal(items[1].merged, 0);
    wasp_profile_free(p);
}

/* A site whose leaf is a constructor of the class it creates is placed where
 * `new` ran, past the constructors (the superclass's that one calls too),
 * and names no inner method; a constructor that creates another class's
 * object, a recursive one, and code that is no constructor keep their place.
 * Sites of one class so placed merge. */
static void test_created_place(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t medium = wasp_profile_intern_string(p, "app.Medium"),
             list = wasp_profile_intern_string(p, "java.util.ArrayList");
    uint32_t churn55 = jframe(p, "app.Main.churn", "Main.java", 55),
             init35 = jframe(p, "app.Medium.<init>", "Main.java", 35),
             base9 = jframe(p, "app.Base.<init>", "Base.java", 9),
             fill = jframe(p, "java.util.Arrays.fill", "Arrays.java", 3287),
             bar = jframe(p, "app.Bar.<init>", "Bar.java", 12),
             outer = jframe(p, "app.Medium.<init>", "Main.java", 40),
             helper = jframe(p, "app.Medium.helper", "Main.java", 44);
    uint32_t own[] = {churn55, init35}, chain[] = {churn55, init35, base9, fill},
             other[] = {churn55, bar}, nested[] = {churn55, outer, init35},
             called[] = {churn55, init35, helper}, alone[] = {init35};
    uint32_t cown = wasp_profile_intern_context(p, own, 2, 0),
             cchain = wasp_profile_intern_context(p, chain, 4, 0),
             cother = wasp_profile_intern_context(p, other, 2, 0),
             cnested = wasp_profile_intern_context(p, nested, 3, 0),
             ccalled = wasp_profile_intern_context(p, called, 3, 0),
             calone = wasp_profile_intern_context(p, alone, 1, 0);
    const wasp_context *c = p->contexts;
    const wasp_frame *at55 = &p->frames[churn55];
    assert_ptr_equal(wasp_created_place(p, &c[cown], medium), at55);
    assert_null(wasp_created_inner(p, &c[cown], medium));
    assert_ptr_equal(wasp_created_place(p, &c[cchain], medium), at55);
    assert_ptr_equal(wasp_created_place(p, &c[cown], 0), &p->frames[init35]);
    assert_ptr_equal(wasp_created_place(p, &c[cother], list), &p->frames[bar]);
    assert_ptr_equal(wasp_created_place(p, &c[cnested], medium), &p->frames[outer]);
    assert_ptr_equal(wasp_created_place(p, &c[ccalled], medium), &p->frames[helper]);
    assert_ptr_equal(wasp_created_place(p, &c[calone], medium), &p->frames[init35]);
    uint32_t bare[] = {churn55};
    uint32_t cbare = wasp_profile_intern_context(p, bare, 1, 0);
    c = p->contexts;
    wasp_place_item items[] = {
        {.index = 0, .key = medium, .created = medium, .ctx = cown, .weight = 50},
        {.index = 1, .key = medium, .created = medium, .ctx = cbare, .weight = 20},
    };
    uint32_t n;
    assert_int_equal(wasp_place_merge(p, items, 2, &n), 0);
    assert_int_equal(n, 1);
    assert_true(items[0].weight == 70 && items[0].ctx == cown);
    wasp_profile_free(p);
}

/* A context that fills in a new exception's stack trace is placed where the
 * exception is created: past Throwable.fillInStackTrace (the Java one and
 * the native one) and the exception's constructors, the application's own
 * exception class's included; a constructor of another class that throws
 * is the place; org.xml.sax is the JDK's. */
static void test_thrown_place(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t run = jframe(p, "app.Parser.color", "Parser.java", 152),
             mine = jframe(p, "app.BadColorException.<init>", "BadColorException.java", 35),
             sax = jframe(p, "org.xml.sax.SAXException.<init>", "SAXException.java", 74),
             exc = jframe(p, "java.lang.Exception.<init>", "Exception.java", 67),
             thr = jframe(p, "java.lang.Throwable.<init>", "Throwable.java", 271),
             fill = jframe(p, "java.lang.Throwable.fillInStackTrace", "Throwable.java", 798),
             native = jframe(p, "java.lang.Throwable.fillInStackTrace", "Throwable.java", -1),
             ctor = jframe(p, "app.Config.<init>", "Config.java", 12),
             ise = jframe(p, "java.lang.IllegalStateException.<init>", "IllegalStateException.java", 55);
    uint32_t thrown[] = {run, mine, sax, exc, thr, fill, native},
             in_ctor[] = {run, ctor, ise, thr, fill, native},
             plain[] = {run, mine};
    uint32_t c1 = wasp_profile_intern_context(p, thrown, 7, 0),
             c2 = wasp_profile_intern_context(p, in_ctor, 6, 0),
             c3 = wasp_profile_intern_context(p, plain, 2, 0);
    const wasp_context *c = p->contexts;
    assert_ptr_equal(wasp_place_frame(p, &c[c1]), &p->frames[run]);
    assert_ptr_equal(wasp_place_inner(p, &c[c1]), &p->frames[native]);
    assert_ptr_equal(wasp_place_frame(p, &c[c2]), &p->frames[ctor]);
    assert_ptr_equal(wasp_place_frame(p, &c[c3]), &p->frames[mine]); /* no fill-in: as before */
    wasp_profile_free(p);
}

/* A context deep under JDK code: its three innermost frames, the JDK and JVM
 * frames down to the application's folded, then the application frame and
 * three callers. */
static void test_text_frames_fold(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    uint32_t f[24];
    f[0] = jframe(p, "app.Main.main", "Main.java", 3);
    for (int i = 1; i < 5; i++) {
        char m[32];
        snprintf(m, sizeof m, "app.Main.c%d", i);
        f[i] = jframe(p, m, "Main.java", 10 + i);
    }
    f[5] = jframe(p, "app.Shop.total", "Shop.java", 7);
    for (int i = 6; i < 24; i++) {
        char m[48];
        snprintf(m, sizeof m, "java.util.Inner.m%d", i);
        f[i] = jframe(p, m, "Inner.java", 100 + i);
    }
    uint32_t c = wasp_profile_intern_context(p, f, 24, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 8, 1);
    wasp_totals t8 = {8, 8, 0, 1};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t8);
    char *t = render(p, WASP_FORMAT_TEXT, 0);
    size_t d = at(t, "\nDETAIL\n");
    at(t + d, "        at java.util.Inner.m23(Inner.java:123)\n"
              "        at java.util.Inner.m22(Inner.java:122)\n"
              "        at java.util.Inner.m21(Inner.java:121)\n"
              "        ... 15 JDK and JVM frames\n"
              "        at app.Shop.total(Shop.java:7)\n"
              "        at app.Main.c4(Main.java:14)\n"
              "        at app.Main.c3(Main.java:13)\n"
              "        at app.Main.c2(Main.java:12)\n"
              "        ... 2 more\n");
    /* the summary names the JDK method the place called, where the access ran */
    at(t, "  1. app.Shop.total(Shop.java:7), in java.util.Inner.m23(Inner.java:123): ");
    free(t);
    wasp_profile_free(p);
}

/* A native method's frame reads "(Native Method)" in the text, as in a Java
 * stack trace; in JSON its line is -1, as any line unknown. */
static void test_native_method_frame(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    uint32_t f[2] = {jframe(p, "app.Main.main", "Main.java", 3),
                     jframe(p, "java.util.zip.Inflater.inflate0", "Inflater.java", WASP_LINE_NATIVE)};
    uint32_t c = wasp_profile_intern_context(p, f, 2, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 8, 1);
    wasp_totals t8 = {8, 8, 0, 1};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t8);
    char *t = render(p, WASP_FORMAT_TEXT, 0);
    at(t, "        at java.util.zip.Inflater.inflate0(Native Method)\n"
          "        at app.Main.main(Main.java:3)\n");
    at(t, "  1. app.Main.main(Main.java:3), in java.util.zip.Inflater.inflate0(Native Method): ");
    free(t);
    char *j = render(p, WASP_FORMAT_JSON, 0);
    at(j, "\"method\": \"java.util.zip.Inflater.inflate0\", \"file\": \"Inflater.java\", "
          "\"line\": -1");
    free(j);
    wasp_profile_free(p);
}

/* The page engine's line: a store's and a load's cost when they differ (the
 * load read from the closed page's copy), one cost for older profiles. */
static void test_text_page_fault_costs(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    wasp_profile_set_meta(p, "watch", "page");
    wasp_profile_add_counter(p, "watch.faults", 900);
    wasp_profile_add_counter(p, "watch.emulated", 850);
    wasp_profile_set_meta(p, "watch_emulated_us", "4.8");
    wasp_profile_set_meta(p, "watch_stepped_us", "16.9");
    char *t = render_verbose(p, 0);
    at(t, "900 faults on watched pages: 850 emulated (~4.8 us each), 50 single-stepped (~16.9 us "
          "each)");
    free(t);
    wasp_profile_set_meta(p, "watch_emulated_load_us", "3.6");
    t = render_verbose(p, 0);
    at(t, "850 emulated (~4.8 us a store, ~3.6 us a load), 50 single-stepped");
    free(t);
    wasp_profile_free(p);
}

/* A spent budget that let few samples arm: the report says the fractions
 * rest on that few watched pages; with many armed, or no budget spent, it
 * says nothing of the kind. */
static void test_thin_evidence(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_set_meta(p, "watch", "page");
    wasp_profile_add_counter(p, "samples", 116);
    wasp_profile_add_counter(p, "armed", 3);
    char *t = render(p, WASP_FORMAT_TEXT, 0);
    assert_null(strstr(t, "samples armed:")); /* no budget spent: as many as asked */
    free(t);
    wasp_profile_add_counter(p, "dropped.budget", 51);
    t = render_verbose(p, 0);
    at(t, "budget spent: 51 samples not armed (3 armed)");
    at(t, "only 3 samples armed: each fraction below rests on that few watched pages");
    free(t);
    t = render(p, WASP_FORMAT_TEXT, 0); /* the warning, without --verbose too */
    at(t, "  warning    only 3 samples armed: each fraction below rests on that few watched pages");
    /* why: the page engine's few arms, and what to do */
    at(t, "may differ from run to run; page protection arms a few samples a second within its "
          "budget: run a minute or longer, or raise --watch-budget");
    assert_null(strstr(t, "budget spent"));
    /* the first screen says why nothing was found, not only that */
    at(t, "\nDead stores: values written and overwritten before anyone reads them\n"
          "  nothing found: only 3 samples armed, too few to find anything (the warning above "
          "says why)\n");
    free(t);
    t = render(p, WASP_FORMAT_JSON, 0);
    at(t, "\"warnings\": [");
    at(t, "\"only 3 samples armed: each fraction below rests on that few");
    at(t, "\"empty_why\": \"only 3 samples armed, too few to find anything");
    free(t);
    /* chosen because the debug registers did not work: said so */
    wasp_profile_set_meta(p, "watch_passed_over", "debugreg: accepted but did not trap");
    t = render(p, WASP_FORMAT_TEXT, 0);
    at(t, "page protection, used because debug registers are not usable here, arms a few "
          "samples a second within its budget");
    free(t);
    wasp_profile_free(p);
    /* An analysis that arms no samples (alloc watches TLAB boundaries) with
     * its budget spent: no word of armed samples. */
    p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "alloc");
    wasp_profile_set_meta(p, "watch", "page");
    wasp_profile_add_counter(p, "samples", 116);
    wasp_profile_add_counter(p, "dropped.budget", 51);
    t = render(p, WASP_FORMAT_TEXT, 0);
    assert_null(strstr(t, "samples armed"));
    free(t);
    wasp_profile_set_meta(p, "events", "deadstore,alloc");
    t = render(p, WASP_FORMAT_TEXT, 0);
    at(t, "  warning    no samples armed: the watch budget was spent before the first");
    free(t);
    wasp_profile_add_counter(p, "armed", 20);
    t = render(p, WASP_FORMAT_TEXT, 0);
    assert_null(strstr(t, "samples armed:"));
    at(t, "  nothing found (the detail below says why)\n");
    free(t);
    t = render(p, WASP_FORMAT_JSON, 0);
    assert_null(strstr(t, "samples armed:"));
    at(t, "\"empty_why\": null");
    free(t);
    wasp_profile_free(p);
}

static void test_text_top_and_reasons(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char *t = render(p, WASP_FORMAT_TEXT, 1);
    at(t, "#1 ");
    assert_null(strstr(t, "#2 "));
    at(t, "... 1 more pair ");
    free(t);
    wasp_profile_free(p);

    /* nothing armed: the report says so instead of showing an empty table */
    p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_add_counter(p, "samples", 100);
    wasp_profile_add_counter(p, "samples.memory", 70);
    wasp_profile_add_counter(p, "armed", 0);
    t = render(p, WASP_FORMAT_TEXT, 0);
    at(t, "Dead stores: 0.0% of 0 B stored (F_prog)");
    at(t, "no pairs classified: no samples were armed");
    assert_null(strstr(t, "Silent")); /* not enabled, no data */
    free(t);
    wasp_profile_free(p);

    /* the run line from the agent's metadata; a disabled run says why */
    p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "silentload");
    wasp_profile_set_meta(p, "duration_seconds", "12");
    wasp_profile_set_meta(p, "cpu_seconds", "2.500");
    wasp_profile_set_meta(p, "threads", "3");
    wasp_profile_set_meta(p, "busy_threads", "1");
    wasp_profile_set_meta(p, "pid", "42");
    wasp_profile_set_meta(p, "disabled_reason", "no debug registers");
    wasp_profile_add_counter(p, "classified", 6900);
    t = render(p, WASP_FORMAT_TEXT, 0);
    at(t, "  run        12 s wall, 2.5 s CPU, 3 threads (1 busy), pid 42\n");
    assert_null(strstr(t, "classified\n"));
    free(t);
    t = render_verbose(p, 0);
    at(t, "  pairs      6,900 classified\n");
    at(t, "DISABLED   no debug registers");
    at(t, "no pairs classified: profiling was disabled (the header says why)");
    free(t);
    wasp_profile_free(p);

    /* no "events": analyses with data only */
    p = wasp_profile_new();
    wasp_totals tt = {64, 8, 0, 2};
    wasp_profile_add_totals(p, WASP_AN_SILENTSTORE, &tt);
    t = render(p, WASP_FORMAT_TEXT, 0);
    at(t, "Silent stores: 12.5% of 64 B stored");
    at(t, "no pairs classified: no samples were taken");
    assert_null(strstr(t, "Dead stores"));
    assert_null(strstr(t, "Silent loads"));
    free(t);
    wasp_profile_free(p);
}

/* ---- a small JSON checker: validity plus a few lookups ---- */

static const char *json_ws(const char *s)
{
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
        s++;
    return s;
}

static const char *json_value(const char *s);

static const char *json_string(const char *s)
{
    if (*s++ != '"')
        return NULL;
    while (*s != '"') {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            s++;
            if (*s == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
                        return NULL;
                s += 5;
                continue;
            }
            if (!*s || !strchr("\"\\/bfnrt", *s))
                return NULL;
        }
        s++;
    }
    return s + 1;
}

static const char *json_number(const char *s)
{
    const char *b = s;
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return NULL;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9'))
            return NULL;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return NULL;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return s > b ? s : NULL;
}

static const char *json_container(const char *s, char close, int object)
{
    s = json_ws(s + 1);
    if (*s == close)
        return s + 1;
    for (;;) {
        if (object) {
            if (!(s = json_string(s)))
                return NULL;
            s = json_ws(s);
            if (*s++ != ':')
                return NULL;
        }
        if (!(s = json_value(json_ws(s))))
            return NULL;
        s = json_ws(s);
        if (*s == close)
            return s + 1;
        if (*s++ != ',')
            return NULL;
        s = json_ws(s);
    }
}

static const char *json_value(const char *s)
{
    s = json_ws(s);
    switch (*s) {
    case '{': return json_container(s, '}', 1);
    case '[': return json_container(s, ']', 0);
    case '"': return json_string(s);
    case 't': return strncmp(s, "true", 4) ? NULL : s + 4;
    case 'f': return strncmp(s, "false", 5) ? NULL : s + 5;
    case 'n': return strncmp(s, "null", 4) ? NULL : s + 4;
    default: return json_number(s);
    }
}

static void assert_valid_json(const char *doc)
{
    const char *end = json_value(doc);
    if (!end || *json_ws(end))
        fail_msg("invalid JSON near offset %ld:\n%s", end ? (long)(end - doc) : -1L, doc);
}

static void test_json_checker_rejects(void **state)
{
    (void)state; /* the checker itself must be able to say no */
    const char *bad[] = {"{",  "{\"a\" 1}", "[1,]", "{\"a\":1,}",  "\"\x01\"",
                         "01", "1.",        "nul",  "{\"a\":1} x", "[\"\\q\"]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *end = json_value(bad[i]);
        if (end && !*json_ws(end))
            fail_msg("checker accepted %s", bad[i]);
    }
    assert_valid_json("{\"a\": [1, -2.5e3, true, false, null, \"\\u00e9\"], \"b\": {}}");
}

/* The sampling period, written by the agent in words, is a number in JSON
 * with its unit and the words beside it; words without a number and a unit
 * stay words (docs/report-json.md). */
static void test_json_period_typed(void **state)
{
    (void)state;
    static const struct {
        const char *words, *json;
    } cases[] = {
        {"1000 us CPU", "\"period\": 1000,\n    \"period_unit\": \"us CPU\",\n"
                        "    \"period_words\": \"1000 us CPU\""},
        {"250000 events", "\"period\": 250000,\n    \"period_unit\": \"events\",\n"
                          "    \"period_words\": \"250000 events\""},
        {"1ms", "\"period\": \"1ms\""},
        {"fast", "\"period\": \"fast\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wasp_profile *p = wasp_profile_new();
        wasp_profile_set_meta(p, "period", cases[i].words);
        char *j = render(p, WASP_FORMAT_JSON, 0);
        assert_valid_json(j);
        if (!strstr(j, cases[i].json))
            fail_msg("period '%s': no %s in\n%s", cases[i].words, cases[i].json, j);
        free(j);
        wasp_profile_free(p);
    }
}

static void test_json_report(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char *j = render(p, WASP_FORMAT_JSON, 0);
    assert_valid_json(j);
    at(j, "\"format\": \"wasp-report\"");
    at(j, "\"version\": 1");
    at(j, "\"merged_profiles\": 1");
    at(j, "\"samples.memory\": 9000");
    at(j, "\"dropped.gc\": 3");
    at(j, "\"odd\": \"quote \\\" backslash \\\\ newline \\n ctl \\u0001 bad \\ufffd end\"");
    size_t an = at(j, "\"analyses\"");
    size_t ds = at(j, "\"deadstore\": {"), ss = at(j, "\"silentstore\": {"),
           sl = at(j, "\"silentload\": {");
    assert_true(an < ds && ds < ss && ss < sl);
    at(j + ds, "\"fraction\": 0.4,");
    at(j + ds, "\"bytes\": 10000.0,");
    at(j + ds, "\"wasted_bytes\": 4000.0,");
    at(j + ds, "\"wasted_bytes_approx\": 0.0,");
    at(j + ds, "\"pairs_classified\": 100.0,");
    /* pair 1 of dead stores: fraction 0.3, root first and leaf last */
    size_t p1 = at(j + ds, "\"fraction\": 0.3,") + ds;
    size_t watch = at(j + p1, "\"watch\": {") + p1;
    size_t main_ =
        at(j + watch,
           "{\"kind\": \"java\", \"method\": \"pkg.Main.main\", \"file\": \"Main.java\", "
           "\"line\": 10}") +
        watch;
    size_t work =
        at(j + watch, "\"method\": \"pkg.Main.work\", \"file\": \"Main.java\", \"line\": 42") +
        watch;
    size_t insn = at(j + watch, "\"instruction\": \"0x7f3a2c10: movl %eax, 0x10(%rbx)\"") + watch;
    size_t trap = at(j + p1, "\"trap\": {") + p1;
    assert_true(main_ < work && work < insn && insn < trap);
    at(j + trap, "\"instruction\": null");
    size_t p2 = at(j + ds, "\"fraction\": 0.1,") + ds;
    assert_true(p1 < p2 && p2 < ss);
    /* the native leaf is the last frame */
    size_t d18 = at(j + p2, "\"pkg.Deep.d18\"") + p2;
    size_t nat =
        at(j + p2, "{\"kind\": \"native\", \"method\": \"libc.so.6`memset\", \"file\": null, "
                   "\"line\": -1}") +
        p2;
    assert_true(d18 < nat);
    at(j + ss, "\"pairs\": []");
    at(j + sl, "\"approximate\": true");
    free(j);

    j = render(p, WASP_FORMAT_JSON, 1); /* --top 1 */
    assert_valid_json(j);
    assert_null(strstr(j, "pkg.Deep.d18"));
    free(j);
    wasp_profile_free(p);
}

/* One loop line, two machine loads (an unrolled loop): one entry by line, two by instruction. */
static wasp_profile *unrolled(void)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "silentload");
    uint32_t f[] = {jframe(p, "S.main", "S.java", 44), jframe(p, "S.indexOf", "S.java", 26)};
    uint32_t a = wasp_profile_intern_context(p, f, 2, wasp_profile_intern_string(p, "mov 0x14"));
    uint32_t b = wasp_profile_intern_context(p, f, 2, wasp_profile_intern_string(p, "mov 0x1c"));
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, a, a, 300, 30);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, b, b, 100, 10);
    wasp_totals t = {1000, 400, 0, 40};
    wasp_profile_add_totals(p, WASP_AN_SILENTLOAD, &t);
    return p;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *s = hay; (s = strstr(s, needle)); s++)
        n++;
    return n;
}

static void test_report_by(void **state)
{
    (void)state;
    wasp_profile *p = unrolled();
    char *t = render(p, WASP_FORMAT_TEXT, 0);
    at(t, "#1  40.0%      400 B  40 samples");
    at(t, "watched:    mov 0x14 (+1 more instruction)\n        at S.indexOf(S.java:26)");
    at(t, "trapped at: mov 0x14 (+1 more instruction)\n");
    assert_null(strstr(t, "#2"));
    free(t);
    t = render_by(p, WASP_FORMAT_TEXT, 0, WASP_BY_INSTRUCTION);
    size_t p1 = at(t, "#1  30.0%      300 B  30 samples"), p2 = at(t, "#2  10.0%      100 B");
    assert_true(p1 < p2);
    at(t + p2, "watched:    mov 0x1c\n");
    assert_null(strstr(t, "more instruction"));
    free(t);

    char *j = render(p, WASP_FORMAT_JSON, 0);
    assert_valid_json(j);
    assert_int_equal(count(j, "\"watch\""), 1);
    at(j, "\"bytes\": 400.0,\n");
    at(j, "\"instruction\": \"mov 0x14 (+1 more instruction)\"");
    free(j);
    j = render_by(p, WASP_FORMAT_JSON, 0, WASP_BY_INSTRUCTION);
    assert_valid_json(j);
    assert_int_equal(count(j, "\"watch\""), 2);
    at(j, "\"instruction\": \"mov 0x1c\"");
    free(j);
    wasp_profile_free(p);
}

static void test_json_doubles_round_trip(void **state)
{
    (void)state;
    double v[] = {0.1, 1.0 / 3, 1e300, 5e-324, 123456789.125, 2.5, 0};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        wasp_json jw;
        wasp_json_init(&jw, f);
        wasp_json_double(&jw, NULL, v[i]);
        fclose(f);
        assert_true(strtod(buf, NULL) == v[i]);
        assert_valid_json(buf);
        free(buf);
    }
}

/* ---- the command ---- */

static char dir[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/wasp-test-report-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Runs wasp_cmd_report with stderr captured into err (malloc'd). */
static int run_report(char **err, int argc, ...)
{
    char *argv[16];
    va_list ap;
    va_start(ap, argc);
    for (int i = 0; i < argc; i++)
        argv[i] = va_arg(ap, char *);
    va_end(ap);
    argv[argc] = NULL;
    char path[256];
    snprintf(path, sizeof path, "%s/stderr", dir);
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    close(fd);
    int rc = wasp_cmd_report(argc, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(path, "r");
    *err = calloc(1, 4096);
    size_t n = fread(*err, 1, 4095, f);
    (*err)[n] = 0;
    fclose(f);
    return rc;
}

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void test_cmd_report(void **state)
{
    (void)state;
    char a[256], b[256], junk[256], out[256], err[256];
    snprintf(a, sizeof a, "%s/a.wprof", dir);
    snprintf(b, sizeof b, "%s/b.wprof", dir);
    snprintf(junk, sizeof junk, "%s/junk.txt", dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    wasp_profile *p = sample();
    assert_int_equal(wasp_profile_write(p, a, err, sizeof err), 0);
    assert_int_equal(wasp_profile_write(p, b, err, sizeof err), 0);
    FILE *f = fopen(junk, "w");
    fputs("definitely not a profile\n", f);
    fclose(f);

    char *e;
    /* two profiles merged, JSON to a file */
    assert_int_equal(run_report(&e, 6, "report", "--format", "json", "-o", out, a), 0);
    free(e);
    assert_int_equal(run_report(&e, 8, "report", "--format=json", "--top", "1", "-o", out, a, b),
                     0);
    free(e);
    char *j = slurp_file(out);
    assert_valid_json(j);
    at(j, "\"merged_profiles\": 2");
    at(j, "\"bytes\": 20000.0"); /* totals summed */
    at(j, "\"count\": 180.0");   /* pairs summed */
    assert_null(strstr(j, "pkg.Deep"));
    free(j);

    /* options after the files, and "--" before a file that looks like an option */
    char dashed[256];
    snprintf(dashed, sizeof dashed, "%s/-x.wprof", dir);
    assert_int_equal(wasp_profile_write(p, dashed, err, sizeof err), 0);
    assert_int_equal(chdir(dir), 0);
    int rc = run_report(&e, 8, "report", a, "--format", "json", "-o", out, "--", "-x.wprof");
    assert_int_equal(chdir("/"), 0);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, e);
    free(e);
    j = slurp_file(out);
    at(j, "\"merged_profiles\": 2");
    free(j);

    /* --by: line (the default) merges the unrolled loads, instruction keeps them */
    wasp_profile *u = unrolled();
    assert_int_equal(wasp_profile_write(u, b, err, sizeof err), 0);
    wasp_profile_free(u);
    assert_int_equal(run_report(&e, 7, "report", "--format=json", "-o", out, "--by", "line", b),
                     0);
    free(e);
    j = slurp_file(out);
    assert_int_equal(count(j, "\"watch\""), 1);
    free(j);
    assert_int_equal(run_report(&e, 6, "report", "--format=json", "--by=instruction", "-o", out, b),
                     0);
    free(e);
    j = slurp_file(out);
    assert_int_equal(count(j, "\"watch\""), 2);
    free(j);
    assert_int_equal(run_report(&e, 5, "report", "--format=json", "-o", out, b), 0);
    free(e);
    j = slurp_file(out);
    assert_int_equal(count(j, "\"watch\""), 1);
    free(j);

    /* a foreign file: named, explained, exit 1 */
    assert_int_equal(run_report(&e, 3, "report", a, junk), 1);
    char want[512];
    snprintf(want, sizeof want, "wasp report: %s: not a wasp profile (bad magic)\n", junk);
    at(e, want);
    free(e);

    /* usage errors: exit 2 */
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0); /* no wasp.wprof there, the default */
    assert_int_equal(run_report(&e, 1, "report"), 2);
    at(e, "no profile given, and no wasp.wprof");
    free(e);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(run_report(&e, 4, "report", "--top", "0", a), 2);
    at(e, "wasp report: bad option '--top 0': expected a number from 1 to 1000000");
    free(e);
    assert_int_equal(run_report(&e, 4, "report", "--format", "xml", a), 2);
    at(e, "wasp report: bad option '--format xml': expected text, json, html, collapsed or pprof");
    free(e);
    assert_int_equal(run_report(&e, 3, "report", a, "--format"), 2);
    at(e, "bad option '--format': expected text, json, html, collapsed or pprof");
    free(e);
    assert_int_equal(run_report(&e, 4, "report", "--by", "methods", a), 2);
    at(e, "wasp report: bad option '--by methods': expected line, instruction or method");
    free(e);
    assert_int_equal(run_report(&e, 3, "report", a, "--include"), 2);
    at(e, "wasp report: bad option '--include': expected a frame pattern");
    free(e);
    assert_int_equal(run_report(&e, 3, "report", "--bogus", a), 2);
    at(e, "unknown option '--bogus'");
    free(e);

    /* output that cannot be written: exit 1 */
    snprintf(want, sizeof want, "%s/no/such/dir/out.txt", dir);
    assert_int_equal(run_report(&e, 4, "report", "-o", want, a), 1);
    at(e, "No such file or directory");
    free(e);
    wasp_profile_free(p);
}

/* ---- objects (DJXPerf's object-centric view) ---- */

static uint32_t octx(wasp_profile *p, int root_line, const char *leaf, const char *file, int line,
                     const char *insn)
{
    uint32_t f[] = {jframe(p, "pkg.Main.main", "Main.java", root_line), jframe(p, leaf, file, line)};
    return wasp_profile_intern_context(p, f, 2, insn ? wasp_profile_intern_string(p, insn) : 0);
}

/* double[] at Grid.<init> (800 samples: sum 600, scale 200) and String at
 * Names.make (200 samples); remote samples only when numa_nodes is not "1". */
static wasp_profile *objects_sample(const char *events, const char *numa_nodes)
{
    bool remote = strcmp(numa_nodes, "1") != 0;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "java_command", "Grid");
    wasp_profile_set_meta(p, "events", events);
    wasp_profile_set_meta(p, "objects.metric",
                          "software address samples weighted by thread CPU time");
    wasp_profile_set_meta(p, "numa_nodes", numa_nodes);
    wasp_profile_set_meta(p, "objects.min_size", "1024");
    wasp_profile_set_meta(p, "objects.sampling_interval", "524288");
    wasp_profile_add_counter(p, "samples", 1200);
    wasp_profile_add_counter(p, "objects.samples", 1100);
    wasp_profile_add_counter(p, "objects.unattributed", 88);
    wasp_profile_add_counter(p, "objects.stale", 11);
    uint32_t ga = octx(p, 5, "pkg.Grid.<init>", "Grid.java", 12, NULL);
    uint32_t na = octx(p, 6, "pkg.Names.make", "Names.java", 20, NULL);
    uint32_t sum = octx(p, 8, "pkg.Grid.sum", "Grid.java", 30, "vmovsd 0x10(%rax,%rcx,8), %xmm0");
    uint32_t scale = octx(p, 9, "pkg.Grid.scale", "Grid.java", 40, "vmulsd (%rax), %xmm1");
    uint32_t hash = octx(p, 10, "pkg.Names.hash", "Names.java", 50, NULL);
    /* the String site first, so that ids do not give the order away */
    uint32_t s = wasp_profile_intern_site(p, na, wasp_profile_intern_string(p, "java.lang.String"));
    uint32_t g = wasp_profile_intern_site(p, ga, wasp_profile_intern_string(p, "double[]"));
    wasp_profile_add_site_allocs(p, g, 1204, 9.4e6);
    wasp_profile_add_site_allocs(p, s, 1, 4096);
    wasp_profile_add_site_access(p, g, scale, 200, 0);
    wasp_profile_add_site_access(p, g, sum, 600, remote ? 60 : 0);
    wasp_profile_add_site_access(p, s, hash, 200, remote ? 100 : 0);
    return p;
}

static void test_objects_text(void **state)
{
    (void)state;
    wasp_profile *p = objects_sample("objects", "1");
    char *t = render_verbose(p, 0);
    size_t head = at(t, "\nObjects by memory-access cost (software address samples weighted by "
                        "thread CPU time)\n");
    at(t + head, "  samples    1,100 taken; 8.0% hit no tracked object, 1.0% while the object map "
                 "was stale (after a GC)\n");
    at(t + head, "  tracking   objects of 1.0 KiB or more, one allocation sampled per 512.0 KiB "
                 "allocated\n");
    size_t numa = at(t, "  NUMA: single node \xe2\x80\x94 no remote accesses possible\n");
    assert_int_equal(count(t, "NUMA"), 1);
    assert_null(strstr(t, "   remote "));
    assert_null(strstr(t, ", remote "));
    /* the objects counters are in the objects section, not the generic line */
    assert_null(strstr(t, "counters"));
    /* an objects-only run: no watchpoint counters, no complaint about analyses */
    at(t, "  samples    1,200 taken\n");
    assert_null(strstr(t, "armed"));
    assert_null(strstr(t, "no analysis enabled"));
    assert_null(strstr(t, "Dead stores"));
    free(t);
    /* the agent writes the pair counters whatever ran: only a pair analysis shows them */
    wasp_profile_add_counter(p, "classified", 0);
    wasp_profile_add_counter(p, "armed", 0);
    t = render_verbose(p, 0);
    assert_null(strstr(t, "classified"));
    assert_null(strstr(t, "armed"));
    free(t);
    wasp_profile_set_meta(p, "events", "deadstore+objects");
    t = render_verbose(p, 0);
    at(t, "  pairs      0 classified\n");
    wasp_profile_set_meta(p, "events", "objects");
    free(t);
    t = render(p, WASP_FORMAT_TEXT, 0);

    /* ranked by share of the attributed samples: 800 / 1000, then 200 / 1000 */
    size_t s1 = at(t, "\n  #1  80.0% of accesses   double[]   1,204 sampled allocations (9.0 MiB)\n");
    size_t s2 = at(t, "\n  #2  20.0% of accesses   java.lang.String   1 sampled allocation (4.0 KiB)\n");
    assert_true(head < numa && numa < s1 && s1 < s2);
    /* allocation context leaf first, then the accesses by their share of the site */
    size_t alloc = at(t + s1, "      allocated at:\n"
                              "        at pkg.Grid.<init>(Grid.java:12)\n"
                              "        at pkg.Main.main(Main.java:5)\n") + s1;
    size_t from = at(t + s1, "      accessed from:\n") + s1;
    size_t a1 = at(t + s1, "        75.0%   600 samples   vmovsd 0x10(%rax,%rcx,8), %xmm0\n"
                           "          at pkg.Grid.sum(Grid.java:30)\n"
                           "          at pkg.Main.main(Main.java:8)\n") + s1;
    size_t a2 = at(t + s1, "        25.0%   200 samples   vmulsd (%rax), %xmm1\n"
                           "          at pkg.Grid.scale(Grid.java:40)\n") + s1;
    assert_true(alloc < from && from < a1 && a1 < a2 && a2 < s2);
    /* an access with no known instruction */
    at(t + s2, "        100.0%  200 samples\n          at pkg.Names.hash(Names.java:50)\n");
    free(t);

    /* --top 1: one site, the rest counted */
    t = render(p, WASP_FORMAT_TEXT, 1);
    at(t, "#1  80.0% of accesses   double[]");
    assert_null(strstr(t, "java.lang.String"));
    at(t, "\n  ... 1 more site (--top N shows more)\n");
    free(t);
    wasp_profile_free(p);

    /* several nodes: remote shares per site and per access context */
    p = objects_sample("deadstore+objects", "2");
    t = render(p, WASP_FORMAT_TEXT, 0);
    at(t, "  NUMA       2 nodes; remote: the page's node is not the accessing CPU's\n");
    assert_null(strstr(t, "single node"));
    size_t d = at(t, "Dead stores: 0.0% of 0 B stored (F_prog)");
    at(t, "armed"); /* a pair analysis ran: the watchpoint counters are back */
    s1 = at(t, "#1  80.0% of accesses   double[]   1,204 sampled allocations (9.0 MiB)   remote 7.5%\n");
    at(t + s1, "        75.0%   600 samples, remote 10.0%   vmovsd");
    at(t + s1, "        25.0%   200 samples, remote 0.0%   vmulsd");
    s2 = at(t, "#2  20.0% of accesses   java.lang.String   1 sampled allocation (4.0 KiB)   remote 50.0%\n");
    assert_true(d < s1 && s1 < s2);
    free(t);
    wasp_profile_free(p);
}

static void test_objects_text_more_and_none(void **state)
{
    (void)state;
    /* more than 5 access contexts: the top 5, the rest counted; by line,
     * the two instructions of one line are one context */
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "numa_nodes", "1");
    uint32_t s = wasp_profile_intern_site(p, octx(p, 1, "A.<init>", "A.java", 2, NULL),
                                          wasp_profile_intern_string(p, "int[]"));
    for (int i = 0; i < 8; i++) {
        char m[16];
        snprintf(m, sizeof m, "A.r%d", i);
        wasp_profile_add_site_access(p, s, octx(p, 1, m, "A.java", 10 + i, "mov (%rax)"), 10 + i,
                                     0);
    }
    wasp_profile_add_site_access(p, s, octx(p, 1, "A.r7", "A.java", 17, "mov 0x8(%rax)"), 100, 0);
    char *t = render(p, WASP_FORMAT_TEXT, 0);
    at(t, "#1 100.0% of accesses   int[]   0 allocations (0 B)\n");
    /* A.r7: 117 of 208 samples */
    size_t r7 = at(t, "        56.2%   117 samples   mov 0x8(%rax) (+1 more instruction)\n"
                      "          at A.r7(A.java:17)\n");
    size_t r6 = at(t, "at A.r6(A.java:16)"), r3 = at(t, "at A.r3(A.java:13)");
    assert_true(r7 < r6 && r6 < r3);
    assert_null(strstr(t, "A.r2("));
    at(t, "        ... 3 more access contexts\n");
    free(t);
    t = render_by(p, WASP_FORMAT_TEXT, 0, WASP_BY_INSTRUCTION);
    at(t, "        48.1%   100 samples   mov 0x8(%rax)\n");
    at(t, "        ... 4 more access contexts\n");
    free(t);
    wasp_profile_free(p);

    /* objects named in "events" but nothing recorded: the section says why */
    p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore+objects");
    t = render(p, WASP_FORMAT_TEXT, 0);
    size_t d = at(t, "Dead stores:"), o = at(t, "\nObjects by memory-access cost\n");
    assert_true(d < o);
    at(t + o, "  no objects: no address samples were taken\n");
    free(t);
    wasp_profile_add_counter(p, "objects.samples", 40);
    wasp_profile_add_counter(p, "objects.unattributed", 40);
    wasp_profile_set_meta(p, "events", "objects");
    t = render(p, WASP_FORMAT_TEXT, 0);
    at(t, "  samples    40 taken; 100.0% hit no tracked object, 0.0% while the object map was "
          "stale (after a GC)\n");
    at(t, "  no objects: none of the 40 address samples hit a tracked object\n");
    assert_null(strstr(t, "no analysis enabled"));
    free(t);
    wasp_profile_free(p);

    /* no objects at all: no section */
    p = sample();
    t = render(p, WASP_FORMAT_TEXT, 0);
    assert_null(strstr(t, "Objects"));
    free(t);
    t = render(p, WASP_FORMAT_JSON, 0);
    assert_null(strstr(t, "\"objects\""));
    free(t);
    wasp_profile_free(p);
}

static void test_objects_json(void **state)
{
    (void)state;
    wasp_profile *p = objects_sample("objects", "1");
    char *j = render(p, WASP_FORMAT_JSON, 0);
    assert_valid_json(j);
    at(j, "\"analyses\": {},");
    size_t o = at(j, "\"objects\": {");
    assert_true(at(j, "\"analyses\"") < o);
    at(j + o, "\"metric\": \"software address samples weighted by thread CPU time\",");
    at(j + o, "\"samples\": 1100,");
    at(j + o, "\"unattributed\": 88,");
    at(j + o, "\"stale\": 11,");
    at(j + o, "\"attributed\": 1000.0,");
    at(j + o, "\"numa_nodes\": 1,");
    at(j + o, "\"min_size\": 1024,");
    at(j + o, "\"sampling_interval\": 524288,");
    size_t s1 = at(j + o, "\"share\": 0.8,") + o;
    size_t s2 = at(j + o, "\"share\": 0.2,") + o;
    assert_true(s1 < s2);
    at(j + s1, "\"class\": \"double[]\",");
    at(j + s1, "\"allocations\": 1204.0,");
    at(j + s1, "\"bytes\": 9400000.0,");
    at(j + s1, "\"samples\": 800.0,");
    at(j + s1, "\"remote_share\": null,");
    /* frames root first, leaf last; the allocation has no instruction member */
    size_t alloc = at(j + s1, "\"allocation\": {") + s1;
    size_t am = at(j + alloc, "\"method\": \"pkg.Main.main\", \"file\": \"Main.java\", \"line\": 5")
                + alloc;
    size_t ai = at(j + alloc, "\"method\": \"pkg.Grid.<init>\"") + alloc;
    size_t acc = at(j + s1, "\"accesses\": [") + s1;
    assert_true(alloc < am && am < ai && ai < acc);
    const char *first_insn = strstr(j + alloc, "\"instruction\"");
    assert_true(first_insn && (size_t)(first_insn - j) > acc);
    size_t a1 = at(j + acc, "\"share\": 0.75,") + acc;
    size_t a2 = at(j + acc, "\"share\": 0.25,") + acc;
    assert_true(a1 < a2 && a2 < s2);
    at(j + a1, "\"samples\": 600.0,\n");
    size_t sum = at(j + a1, "\"method\": \"pkg.Grid.sum\"") + a1;
    size_t insn = at(j + a1, "\"instruction\": \"vmovsd 0x10(%rax,%rcx,8), %xmm0\"") + a1;
    assert_true(sum < insn && insn < a2);
    at(j + s2, "\"class\": \"java.lang.String\",");
    at(j + s2, "\"instruction\": null");
    free(j);

    /* --top 1: one site (and one access context per site) */
    j = render(p, WASP_FORMAT_JSON, 1);
    assert_valid_json(j);
    assert_null(strstr(j, "java.lang.String"));
    assert_null(strstr(j, "pkg.Grid.scale"));
    free(j);
    wasp_profile_free(p);

    /* several nodes: remote shares are numbers; alongside a pair analysis */
    p = objects_sample("deadstore+objects", "2");
    j = render(p, WASP_FORMAT_JSON, 0);
    assert_valid_json(j);
    at(j, "\"deadstore\": {");
    assert_null(strstr(j, "\"objects\": {\n      \"fraction\"")); /* not an analysis */
    o = at(j, "\"objects\": {");
    at(j + o, "\"remote_share\": 0.16,"); /* 160 of 1000 */
    at(j + o, "\"numa_nodes\": 2,");
    s1 = at(j + o, "\"class\": \"double[]\"") + o;
    at(j + s1, "\"remote_share\": 0.075,");
    at(j + s1, "\"remote_share\": 0.1,");
    at(j + s1, "\"remote_share\": 0.0,");
    s2 = at(j + o, "\"class\": \"java.lang.String\"") + o;
    at(j + s2, "\"remote_share\": 0.5,");
    free(j);
    wasp_profile_free(p);

    /* named in events, nothing recorded: the key with nulls and no sites */
    p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "objects");
    j = render(p, WASP_FORMAT_JSON, 0);
    assert_valid_json(j);
    o = at(j, "\"objects\": {");
    at(j + o, "\"metric\": null,");
    at(j + o, "\"samples\": null,");
    at(j + o, "\"numa_nodes\": null,");
    at(j + o, "\"sites\": []");
    free(j);
    wasp_profile_free(p);
}

/* The report options' one parser each (report, run, attach, detach, diff):
 * every name in the table, and refusals that name the option and list every
 * accepted value. */
static void test_format_parse(void **state)
{
    (void)state;
    wasp_format f = WASP_FORMAT_TEXT;
    char err[256] = "";
    assert_int_equal(wasp_format_parse("--format", "json", WASP_FORMATS_ALL, &f, err, sizeof err), 0);
    assert_int_equal(f, WASP_FORMAT_JSON);
    assert_int_equal(wasp_format_parse("--format", "text", WASP_FORMATS_ALL, &f, err, sizeof err), 0);
    assert_int_equal(f, WASP_FORMAT_TEXT);
    f = WASP_FORMAT_JSON;
    assert_int_equal(wasp_format_parse("--format", "JSON", WASP_FORMATS_ALL, &f, err, sizeof err), -1);
    assert_string_equal(err, "bad option '--format JSON': expected text, json, html, collapsed or pprof");
    assert_int_equal(f, WASP_FORMAT_JSON); /* unchanged */
    assert_int_equal(wasp_format_parse("--format", "", WASP_FORMATS_ALL, &f, err, sizeof err), -1);
    assert_int_equal(wasp_format_parse("--format", NULL, WASP_FORMATS_ALL, &f, err, sizeof err), -1);
    assert_string_equal(err, "bad option '--format': expected text, json, html, collapsed or pprof");
    /* a subset (diff's): the others are refused and not listed */
    unsigned some = (1u << WASP_FORMAT_TEXT) | (1u << WASP_FORMAT_JSON) | (1u << WASP_FORMAT_HTML);
    assert_int_equal(wasp_format_parse("--format", "html", some, &f, err, sizeof err), 0);
    assert_int_equal(f, WASP_FORMAT_HTML);
    assert_int_equal(wasp_format_parse("--format", "pprof", some, &f, err, sizeof err), -1);
    assert_string_equal(err, "bad option '--format pprof': expected text, json or html");
    char names[64];
    wasp_format_names(WASP_FORMATS_ALL, "|", names, sizeof names);
    assert_string_equal(names, "text|json|html|collapsed|pprof");
    wasp_format_names(some, "|", names, sizeof names);
    assert_string_equal(names, "text|json|html");

    wasp_report_by by = WASP_BY_LINE;
    assert_int_equal(wasp_by_parse("--by", "instruction", &by, err, sizeof err), 0);
    assert_int_equal(by, WASP_BY_INSTRUCTION);
    assert_int_equal(wasp_by_parse("--by", "file", &by, err, sizeof err), -1);
    assert_string_equal(err, "bad option '--by file': expected line or instruction");
    int top = 0;
    assert_int_equal(wasp_top_parse("--top", "7", &top, err, sizeof err), 0);
    assert_int_equal(top, 7);
    assert_int_equal(wasp_top_parse("--top", "-3", &top, err, sizeof err), -1);
    assert_string_equal(err, "bad option '--top -3': expected a number from 1 to 1000000");
    assert_int_equal(wasp_top_parse("--top", NULL, &top, err, sizeof err), -1);
    assert_string_equal(err, "bad option '--top': expected a number from 1 to 1000000");
    assert_int_equal(top, 7);
}

/* The report parts' registry: a part per analysis, each with its three
 * renderings; which analyses a report shows comes from them. */
static void test_report_parts(void **state)
{
    (void)state;
    assert_null(wasp_report_part_of(-1));
    assert_null(wasp_report_part_of(WASP_ANALYSES));
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_report_part *part = wasp_report_part_of(id);
        assert_non_null(part);
        assert_true(part->shown && part->text && part->json);
    }
    wasp_profile *p = wasp_profile_new();
    assert_int_equal(wasp_report_shown_analyses(p), 0);
    wasp_profile_set_meta(p, "events", "silentload+replicas");
    assert_int_equal(wasp_report_shown_analyses(p),
                     1u << WASP_ID_silentload | 1u << WASP_ID_replicas);
    wasp_profile_free(p);
}

static void test_render_write_error(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        skip();
    wasp_profile *p = sample();
    wasp_report_opts o = {.format = WASP_FORMAT_TEXT, .by = WASP_BY_LINE};
    assert_int_equal(wasp_report_render(p, &o, f), -1);
    fclose(f);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_report),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_summary_place),
        cmocka_unit_test(test_summary_place_merge),
        cmocka_unit_test(test_created_place),
        cmocka_unit_test(test_thrown_place),
        cmocka_unit_test(test_text_frames_fold),
        cmocka_unit_test(test_native_method_frame),
        cmocka_unit_test(test_text_page_fault_costs),
        cmocka_unit_test(test_thin_evidence),
        cmocka_unit_test(test_text_top_and_reasons),
        cmocka_unit_test(test_report_by),
        cmocka_unit_test(test_json_checker_rejects),
        cmocka_unit_test(test_json_report),
        cmocka_unit_test(test_json_period_typed),
        cmocka_unit_test(test_json_doubles_round_trip),
        cmocka_unit_test(test_cmd_report),
        cmocka_unit_test(test_format_parse),
        cmocka_unit_test(test_report_parts),
        cmocka_unit_test(test_render_write_error),
        cmocka_unit_test(test_objects_text),
        cmocka_unit_test(test_objects_text_more_and_none),
        cmocka_unit_test(test_objects_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
