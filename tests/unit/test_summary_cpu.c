/* The summary's CPU share of a pair finding (issue 40, docs/findings.md):
 * with the samples by line (profile/cpu_lines.h) it is the finding's line's
 * samples over every sample counted, code inlined into the line included,
 * with Wilson's interval for those counts; the pairs' weights do not enter
 * it; an access in a native method adds that method's samples. Beside it,
 * when larger beyond the noise, the line with the code it calls: the
 * samples by innermost line, each method's weighed by the share of its
 * armed samples whose stacks pass through the place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pairs/profile.h"
#include "cli/commands/report.h"
#include "cli/render/render.h"
#include "profile/cpu_lines.h"
#include "profile/profile.h"

static wasp_frame at_line(wasp_profile *p, const char *method, int line)
{
    return (wasp_frame){WASP_FRAME_JAVA, wasp_profile_intern_string(p, method),
                        wasp_profile_intern_string(p, "Main.java"), line};
}

/* The text report of p (free it). */
static char *text_report(wasp_profile *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    wasp_report_opts o = {.format = WASP_FORMAT_TEXT};
    assert_int_equal(wasp_report_render(p, &o, f), 0);
    fclose(f);
    return buf;
}

static void line_share_of_all_samples(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_add_counter(p, "samples", 1000);
    wasp_profile_add_counter(p, "armed", 100);
    wasp_frame main10 = at_line(p, "pkg.Main.main", 10), work42 = at_line(p, "pkg.Main.work", 42),
               work43 = at_line(p, "pkg.Main.work", 43);
    uint32_t root = wasp_profile_intern_frame(p, &main10);
    uint32_t f42[] = {root, wasp_profile_intern_frame(p, &work42)};
    uint32_t f43[] = {root, wasp_profile_intern_frame(p, &work43)};
    uint32_t c42 = wasp_profile_intern_context(p, f42, 2, 0);
    uint32_t c43 = wasp_profile_intern_context(p, f43, 2, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c42, c43, 3000, 90);
    wasp_totals t = {10000, 3000, 0, 100};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    /* 2,000 samples: 400 at line 42 with a call inlined into it, 100 more
     * at line 42 itself, 900 at line 43. */
    wasp_frame inlined[] = {at_line(p, "pkg.Util.get", 7), work42, main10};
    wasp_frame own[] = {work42, main10}, next[] = {work43, main10};
    wasp_profile_add_cpu_chain(p, inlined, 3, 400);
    wasp_profile_add_cpu_chain(p, own, 2, 100);
    wasp_profile_add_cpu_chain(p, next, 2, 900);
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 2000);

    char *buf = text_report(p);
    if (!strstr(buf, "of the program's 1,000 CPU samples (2,000 counted by line)"))
        fail_msg("no count by line in the heading:\n%s", buf);
    /* 500 / 2,000 = 25%: Wilson(500, 2000) = 23.2-26.9% */
    if (!strstr(buf, "(Main.java:42): the value stored here is overwritten at Main.java:43 before "
                     "any read (30.0% of the bytes stored); 25.0% of CPU (23.2\xe2\x80\x93"
                     "26.9%)\n"))
        fail_msg("no line share in:\n%s", buf);
    if (strstr(buf, "not taken while the watch budget"))
        fail_msg("pacing named for a profile without it:\n%s", buf);
    free(buf);
    /* Paced: 1,000 taken, 5,000 not; the heading says why so few count. */
    wasp_profile_add_counter(p, "sampler.paced_skips", 5000);
    buf = text_report(p);
    if (!strstr(buf, "of the program's 6,000 CPU samples (2,000 counted by line: the others were "
                     "not taken while the watch budget was spent)"))
        fail_msg("pacing not named in the heading:\n%s", buf);
    free(buf);
    wasp_profile_free(p);
}

/* An access in a native method the place calls (a store by zlib under
 * Deflater.deflateBytesBytes): its native code's samples count at the
 * method (its wrapper, no line: cpu.via_caller), and the finding's cost is
 * the place's line's samples and that method's. A native method's samples
 * do not count for a finding whose access is in Java code. */
static void native_leaf_counts_its_method(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_add_counter(p, "samples", 1000);
    wasp_profile_add_counter(p, "armed", 100);
    wasp_frame main10 = at_line(p, "pkg.Main.main", 10), enc42 = at_line(p, "pkg.Main.encode", 42),
               deflate = at_line(p, "java.util.zip.Deflater.deflateBytesBytes", -1),
               enc50 = at_line(p, "pkg.Main.encode", 50);
    wasp_frame memmove = {WASP_FRAME_NATIVE, wasp_profile_intern_string(p, "memmove"),
                          wasp_profile_intern_string(p, "libc.so.6"), -1};
    uint32_t root = wasp_profile_intern_frame(p, &main10);
    uint32_t fn[] = {root, wasp_profile_intern_frame(p, &enc42), wasp_profile_intern_frame(p, &deflate),
                     wasp_profile_intern_frame(p, &memmove)};
    uint32_t fj[] = {root, wasp_profile_intern_frame(p, &enc50)};
    uint32_t cn = wasp_profile_intern_context(p, fn, 4, 0);
    uint32_t cj = wasp_profile_intern_context(p, fj, 2, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, cn, cn, 3000, 90);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, cj, cj, 2000, 10);
    wasp_totals t = {10000, 5000, 0, 100};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    /* 2,000 samples: 100 at line 42, 800 in the native method, 300 at line 50. */
    wasp_frame at42[] = {enc42, main10}, at50[] = {enc50, main10};
    wasp_profile_add_cpu_chain(p, at42, 2, 100);
    wasp_profile_add_cpu_chain(p, &deflate, 1, 800);
    wasp_profile_add_cpu_chain(p, at50, 2, 300);
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 2000);

    char *buf = text_report(p);
    /* 900 / 2,000 = 45%: Wilson(900, 2000) = 42.8-47.2%; 300 / 2,000 = 15%:
     * 13.5-16.6% (no innermost lines here: no estimate with the calls) */
    if (!strstr(buf, "(Main.java:42), in java.util.zip.Deflater.deflateBytesBytes(Main.java): the "
                     "value stored here is overwritten by this line again before any read (30.0% of "
                     "the bytes stored); 45.0% of CPU (42.8\xe2\x80\x93" "47.2%)\n"))
        fail_msg("the native method's samples not in the finding's:\n%s", buf);
    if (!strstr(buf, "(Main.java:50): the value stored here is overwritten by this line again "
                     "before any read (20.0% of the bytes stored); 15.0% of CPU (13.5\xe2\x80\x93"
                     "16.6%); few watched samples: 10\n"))
        fail_msg("a Java access's finding has other samples than its line's:\n%s", buf);
    free(buf);
    wasp_profile_free(p);
}

/* A native method called from two places (h2's Object.clone, from its page
 * copies and from Token.clone): its 800 samples divide by the share of the
 * sampled stacks in it through each place, 90 of 120 through copy:20 and 30
 * through dup:7, not all 800 to each. */
static void native_method_shared_by_places(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_add_counter(p, "samples", 1000);
    wasp_profile_add_counter(p, "armed", 120);
    wasp_frame main10 = at_line(p, "pkg.Main.main", 10), copy20 = at_line(p, "pkg.Main.copy", 20),
               dup7 = at_line(p, "pkg.Other.dup", 7),
               clone = at_line(p, "java.lang.Object.clone", -1);
    uint32_t root = wasp_profile_intern_frame(p, &main10), c = wasp_profile_intern_frame(p, &clone);
    uint32_t f1[] = {root, wasp_profile_intern_frame(p, &copy20), c},
             f2[] = {root, wasp_profile_intern_frame(p, &dup7), c};
    uint32_t c1 = wasp_profile_intern_context(p, f1, 3, 0), c2 = wasp_profile_intern_context(p, f2, 3, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c1, c1, 3000, 90);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c2, c2, 2000, 30);
    wasp_totals t = {10000, 5000, 0, 120};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    wasp_frame at20[] = {copy20, main10}, at7[] = {dup7, main10};
    wasp_profile_add_cpu_chain(p, at20, 2, 100);
    wasp_profile_add_cpu_chain(p, at7, 2, 50);
    wasp_profile_add_cpu_chain(p, &clone, 1, 800);
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 2000);

    char *buf = text_report(p);
    /* copy:20: 100 + 800 x 90/120 = 700 of 2,000, 35.0% (32.9-37.1%); dup:7:
     * 50 + 800 x 30/120 = 250, 12.5% (11.1-14.0%) */
    if (!strstr(buf, "pkg.Main.copy(Main.java:20), in java.lang.Object.clone(Main.java): the value "
                     "stored here is overwritten by this line again before any read (30.0% of the "
                     "bytes stored); 35.0% of CPU (32.9\xe2\x80\x93" "37.1%)"))
        fail_msg("copy:20 is not given its part of Object.clone's samples:\n%s", buf);
    if (!strstr(buf, "pkg.Other.dup(Main.java:7), in java.lang.Object.clone(Main.java): the value "
                     "stored here is overwritten by this line again before any read (20.0% of the "
                     "bytes stored); 12.5% of CPU (11.1\xe2\x80\x93" "14.0%)"))
        fail_msg("dup:7 is not given its part of Object.clone's samples:\n%s", buf);
    free(buf);
    wasp_profile_free(p);
}

/* The place's line with the code it calls: pkg.Main.work:42 calls
 * pkg.Util.get, which pkg.Other.run calls too. The armed samples' stacks
 * ending in Util.get pass through work:42 in 30 of 40 (its share 0.75),
 * whatever line of Util.get they ended at; Util.get's samples by innermost
 * line, 400 at line 7 and 200 at line 8 (never armed), count 0.75 of them;
 * a method never armed (pkg.Calc.run) counts nothing: a lower bound. */
static void with_calls_by_method(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_add_counter(p, "samples", 1500);
    wasp_profile_add_counter(p, "armed", 100);
    wasp_frame main10 = at_line(p, "pkg.Main.main", 10), work42 = at_line(p, "pkg.Main.work", 42),
               get7 = at_line(p, "pkg.Util.get", 7), get8 = at_line(p, "pkg.Util.get", 8),
               run5 = at_line(p, "pkg.Other.run", 5), calc = at_line(p, "pkg.Calc.run", 60);
    uint32_t m = wasp_profile_intern_frame(p, &main10), w = wasp_profile_intern_frame(p, &work42),
             g = wasp_profile_intern_frame(p, &get7), r = wasp_profile_intern_frame(p, &run5);
    uint32_t via_work[] = {m, w, g}, via_run[] = {m, r, g}, at_work[] = {m, w}, at_run[] = {m, r};
    uint32_t c1 = wasp_profile_intern_context(p, via_work, 3, 0);
    uint32_t c2 = wasp_profile_intern_context(p, via_run, 3, 0);
    uint32_t c3 = wasp_profile_intern_context(p, at_work, 2, 0);
    uint32_t c4 = wasp_profile_intern_context(p, at_run, 2, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c1, c1, 3000, 30);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c2, c2, 100, 10);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c3, c3, 100, 20);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c4, c4, 100, 40);
    wasp_totals t = {10000, 3300, 0, 100};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    /* Util.get, Other.run and Calc.run compiled on their own: each sample's
     * chain is its innermost line alone. */
    wasp_frame own[] = {work42, main10};
    wasp_profile_add_cpu_chain(p, own, 2, 100);
    wasp_profile_add_cpu_leaf(p, work42.name, work42.file, work42.line, 100);
    const wasp_frame *alone[] = {&get7, &get8, &run5, &calc};
    const double counts[] = {400, 200, 300, 500};
    for (int i = 0; i < 4; i++) {
        wasp_profile_add_cpu_chain(p, alone[i], 1, counts[i]);
        wasp_profile_add_cpu_leaf(p, alone[i]->name, alone[i]->file, alone[i]->line, counts[i]);
    }
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 1500);

    char *buf = text_report(p);
    /* Its line: 100 / 1,500 = 6.7%, Wilson 5.5-8.0%. With the calls: 100 +
     * 0.75 x 600 = 550 (36.7%); variance 100 + 600 x 0.75^2 + 600^2 x 0.75 x
     * 0.25 / 40 draws = 2,125: 550 +- 90.4, 30.6-42.7%. */
    if (!strstr(buf, "(Main.java:42): the value stored here is overwritten by this line again "
                     "before any read (1.0% of the bytes stored); 6.7% of CPU (5.5\xe2\x80\x93"
                     "8.0%), with the code it calls at least 36.7% (30.6\xe2\x80\x93" "42.7%)"))
        fail_msg("no estimate with the calls, or not this one:\n%s", buf);
    /* Util.get:7 is its own innermost line: 400 +- 39 with the calls, no
     * more than its line's 26.7% (24.5-29.0%): not shown. */
    if (!strstr(buf, "(Main.java:7): the value stored here is overwritten by this line again "
                     "before any read (31.0% of the bytes stored); 26.7% of CPU (24.5\xe2\x80\x93"
                     "29.0%)\n"))
        fail_msg("an estimate with the calls where the line is all of it:\n%s", buf);
    free(buf);
    wasp_profile_free(p);
}

/* A run with a tenth or more of its samples in the interpreter says so under
 * the summary's heading (its findings there count at no line); below that,
 * nothing. */
static void interpreted_share_noted(void **state)
{
    (void)state;
    for (int interpreted = 150; interpreted <= 250; interpreted += 100) {
        wasp_profile *p = wasp_profile_new();
        wasp_profile_set_meta(p, "events", "deadstore");
        wasp_profile_add_counter(p, "samples", 2000);
        wasp_frame work = at_line(p, "pkg.Main.work", 42);
        uint32_t f = wasp_profile_intern_frame(p, &work);
        uint32_t c = wasp_profile_intern_context(p, &f, 1, 0);
        wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 100, 1);
        wasp_totals t = {1000, 100, 0, 1};
        wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
        wasp_profile_add_cpu_chain(p, &work, 1, 100);
        wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 2000);
        wasp_profile_add_counter(p, WASP_CPU_INTERPRETER, (uint64_t)interpreted);
        char *buf = text_report(p);
        const char *note = strstr(buf, "of the CPU samples ran in the interpreter");
        if (interpreted == 150 && note)
            fail_msg("7.5%% in the interpreter noted:\n%s", buf);
        if (interpreted == 250 && !strstr(buf, "  12.5% of the CPU samples ran in the interpreter"))
            fail_msg("12.5%% in the interpreter not noted:\n%s", buf);
        free(buf);
        wasp_profile_free(p);
    }
}

/* The kernel's share of the profiled threads' CPU, which the perf and PMU
 * samplers take no sample of, is said under the summary's heading from 5%,
 * with page protection's own faults named when it watched; the timer
 * sampler's samples count the kernel, so nothing is said for it. */
static void kernel_share_noted(void **state)
{
    (void)state;
    static const struct {
        const char *sampler, *watch;
        double kernel;
        const char *said; /* NULL: nothing */
    } cases[] = {
        {"perf", "page", 3.0, "  30.0% of the profiled threads' CPU ran in the kernel (page faults, "
                              "as on new heap memory; system calls; wasp's own page-protection "
                              "faults), where the perf sampler takes no sample"},
        {"pmu", "debugreg", 1.0, "  10.0% of the profiled threads' CPU ran in the kernel (page "
                                 "faults, as on new heap memory; system calls), where the pmu"},
        {"perf", "page", 0.4, NULL}, /* 4% */
        {"timer", "page", 3.0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wasp_profile *p = wasp_profile_new();
        wasp_profile_set_meta(p, "events", "deadstore");
        wasp_profile_set_meta(p, "sampler", cases[i].sampler);
        wasp_profile_set_meta(p, "watch", cases[i].watch);
        wasp_profile_set_meta_num(p, "cpu_seconds", 10);
        wasp_profile_set_meta_num(p, "cpu_kernel_seconds", cases[i].kernel);
        wasp_profile_add_counter(p, "samples", 7000);
        wasp_frame work = at_line(p, "pkg.Main.work", 42);
        uint32_t f = wasp_profile_intern_frame(p, &work);
        uint32_t c = wasp_profile_intern_context(p, &f, 1, 0);
        wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 100, 40);
        wasp_totals t = {1000, 100, 0, 40};
        wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
        char *buf = text_report(p);
        const char *note = strstr(buf, "ran in the kernel");
        if (cases[i].said && !strstr(buf, cases[i].said))
            fail_msg("%s, %.0f%% in the kernel not said so:\n%s", cases[i].sampler,
                     cases[i].kernel * 10, buf);
        if (!cases[i].said && note)
            fail_msg("%s, %.0f%% in the kernel said:\n%s", cases[i].sampler, cases[i].kernel * 10,
                     buf);
        free(buf);
        wasp_profile_free(p);
    }
}

/* A class compiled without line numbers (javac -g:none, "Unknown Source"):
 * the finding is its method, whose samples are all at line -1; the dead
 * store's own words say "method", and the summary says why once. One with a
 * line says neither. */
static void unnumbered_class_noted(void **state)
{
    (void)state;
    for (int line = -1; line <= 42; line += 43) {
        wasp_profile *p = wasp_profile_new();
        wasp_profile_set_meta(p, "events", "deadstore");
        wasp_profile_add_counter(p, "samples", 1000);
        wasp_frame work = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, "pkg.Main.work"),
                           line < 0 ? 0 : wasp_profile_intern_string(p, "Main.java"), line};
        uint32_t f = wasp_profile_intern_frame(p, &work);
        uint32_t c = wasp_profile_intern_context(p, &f, 1, 0);
        wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 100, 40);
        wasp_totals t = {1000, 100, 0, 40};
        wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
        wasp_profile_add_cpu_chain(p, &work, 1, 400);
        wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 1000);
        char *buf = text_report(p);
        bool method = strstr(buf, "overwritten by this method again") != NULL,
             note = strstr(buf, "\n1 of these findings is in classes compiled without line "
                                "numbers") != NULL;
        if (line < 0 && !(method && note && strstr(buf, "(Unknown Source): the value stored")))
            fail_msg("a method's place not said so:\n%s", buf);
        if (line > 0 && (method || note || !strstr(buf, "overwritten by this line again")))
            fail_msg("a line's place said to be a method's:\n%s", buf);
        if (!strstr(buf, "; 40.0% of CPU"))
            fail_msg("the place's samples not its CPU:\n%s", buf);
        free(buf);
        wasp_profile_free(p);
    }
}

/* Exceptions' stack traces: the samples at Throwable.fillInStackTrace, of
 * all counted by line, and the place most of the sampled stacks through it
 * share (75 of 100 samples at find:7, 25 at scan:9); under 2% nothing. */
static void exceptions_cost_noted(void **state)
{
    (void)state;
    for (int filled = 10; filled <= 300; filled += 290) {
        wasp_profile *p = wasp_profile_new();
        wasp_profile_set_meta(p, "events", "deadstore");
        wasp_profile_add_counter(p, "samples", 1000);
        wasp_frame main10 = at_line(p, "pkg.Main.main", 10), find = at_line(p, "pkg.Main.find", 7),
                   scan = at_line(p, "pkg.Main.scan", 9),
                   init = at_line(p, "java.lang.Throwable.<init>", 271),
                   fill = at_line(p, "java.lang.Throwable.fillInStackTrace", -1);
        uint32_t root = wasp_profile_intern_frame(p, &main10), ti = wasp_profile_intern_frame(p, &init),
                 tf = wasp_profile_intern_frame(p, &fill);
        uint32_t f1[] = {root, wasp_profile_intern_frame(p, &find), ti, tf},
                 f2[] = {root, wasp_profile_intern_frame(p, &scan), ti, tf};
        uint32_t c1 = wasp_profile_intern_context(p, f1, 4, 0), c2 = wasp_profile_intern_context(p, f2, 4, 0);
        wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c1, c1, 300, 75);
        wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c2, c2, 100, 25);
        wasp_totals t = {1000, 400, 0, 100};
        wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
        wasp_profile_add_cpu_chain(p, &fill, 1, filled);
        wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 1000);
        char *buf = text_report(p);
        const char *note = strstr(buf, "of the CPU samples");
        /* 300 / 1,000: Wilson 27.2-32.9% */
        if (filled == 300 && !strstr(buf, "  30.0% of the CPU samples (27.2\xe2\x80\x93" "32.9%) fill "
                                          "in exceptions' stack traces (Throwable.fillInStackTrace, "
                                          "run by every exception created), mostly (75.0% of the "
                                          "sampled stacks there) under pkg.Main.find(Main.java:7): "))
            fail_msg("the exceptions' cost not said:\n%s", buf);
        if (filled == 10 && note && strstr(note, "exceptions"))
            fail_msg("1%% in exceptions noted:\n%s", buf);
        free(buf);
        wasp_profile_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(line_share_of_all_samples),
        cmocka_unit_test(native_leaf_counts_its_method),
        cmocka_unit_test(native_method_shared_by_places),
        cmocka_unit_test(with_calls_by_method),
        cmocka_unit_test(interpreted_share_noted),
        cmocka_unit_test(kernel_share_noted),
        cmocka_unit_test(unnumbered_class_noted),
        cmocka_unit_test(exceptions_cost_noted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
