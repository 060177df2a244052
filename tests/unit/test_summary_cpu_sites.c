/* The summary's CPU share of an allocation and of a replica finding (issue
 * 40, docs/findings.md): an allocation's is the samples counted at its
 * creating line over every sample counted; a replica's (without -e objects)
 * those at its creating line and at the lines where its objects were
 * compared or accessed (a record of no comparisons: a sampled access's
 * place), each line once; the births' comparisons (no instruction: wasp's
 * own read at the next allocation) add no line of their own. Without
 * samples by line neither is measured. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/alloc/profile.h"
#include "analysis/objects/profile.h"
#include "analysis/replicas/profile.h"
#include "cli/render/render.h"
#include "heap/class_site.h"
#include "profile/cpu_lines.h"
#include "profile/profile.h"
#include "render_string.h"

static wasp_frame at_line(wasp_profile *p, const char *method, int line)
{
    return (wasp_frame){WASP_FRAME_JAVA, wasp_profile_intern_string(p, method),
                        wasp_profile_intern_string(p, "Main.java"), line};
}

/* main(Main.java:5) -> method(Main.java:line), with insn (NULL: none). */
static uint32_t context(wasp_profile *p, const char *method, int line, const char *insn)
{
    wasp_frame root = at_line(p, "pkg.Main.main", 5), leaf = at_line(p, method, line);
    uint32_t f[] = {wasp_profile_intern_frame(p, &root), wasp_profile_intern_frame(p, &leaf)};
    return wasp_profile_intern_context(p, f, 2, insn ? wasp_profile_intern_string(p, insn) : 0);
}

/* 1,000 samples; with_lines: 1,000 counted by line, `n` at each (method,
 * line) given, the rest elsewhere (else a profile of an older wasp). */
static void cpu_lines(wasp_profile *p, bool with_lines, const char *const *methods,
                      const int *lines, const double *n, int count)
{
    double rest = 1000;
    wasp_profile_add_counter(p, "samples", 1000);
    if (!with_lines)
        return;
    for (int i = 0; i < count; i++) {
        /* code inlined into the line counts at it */
        wasp_frame chain[] = {at_line(p, "pkg.Util.get", 7), at_line(p, methods[i], lines[i]),
                              at_line(p, "pkg.Main.main", 5)};
        assert_int_equal(wasp_profile_add_cpu_chain(p, chain, 3, n[i]), 0);
        rest -= n[i];
    }
    wasp_frame other[] = {at_line(p, "pkg.Main.other", 99), at_line(p, "pkg.Main.main", 6)};
    assert_int_equal(wasp_profile_add_cpu_chain(p, other, 2, rest), 0);
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 1000);
}

/* The text report; the caller frees it. */
static char *text(const wasp_profile *p)
{
    return render_string(p, WASP_FORMAT_TEXT, WASP_BY_LINE, NULL);
}

/* The report of make(true) holds `with`; that of make(false), a profile
 * of an older wasp, `without`. */
static void expect(wasp_profile *(*make)(bool with_lines), const char *with, const char *without)
{
    for (int lines = 1; lines >= 0; lines--) {
        wasp_profile *p = make(lines);
        char *r = text(p);
        const char *line = lines ? with : without;
        if (!strstr(r, line))
            fail_msg("no \"%s\" in:\n%s", line, r);
        free(r);
        wasp_profile_free(p);
    }
}

/* 300 of 1,000 samples: Wilson(300, 1000) = 27.2-32.9%; 500: 46.9-53.1%. */
#define THIRTY "; 30.0% of CPU (27.2\xe2\x80\x93" "32.9%)\n"
#define FIFTY "; 50.0% of CPU (46.9\xe2\x80\x93" "53.1%)\n"

static wasp_profile *alloc_profile(bool with_lines)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "alloc");
    wasp_alloc_entry e = {wasp_profile_intern_string(p, "int[]"),
                          context(p, "pkg.Main.make", 30, "mov %eax, 0x8(%rbx)"), 40};
    assert_int_equal(wasp_profile_add_alloc(p, &e), 0);
    cpu_lines(p, with_lines, (const char *const[]){"pkg.Main.make"}, (const int[]){30},
              (const double[]){300}, 1);
    return p;
}

static void alloc_is_its_creating_line(void **state)
{
    (void)state;
    expect(alloc_profile,
           "  1. pkg.Main.make(Main.java:30): creates int[] objects: 100.0% of the sampled "
           "creations" THIRTY,
           "creations; CPU not measured\n");
}

/* Two classes created by one line: the second finding's cost is the line's
 * the first already gave, said so, not repeated (nor read as twice it). */
static wasp_profile *two_classes_profile(bool with_lines)
{
    wasp_profile *p = alloc_profile(with_lines);
    wasp_alloc_entry e = {wasp_profile_intern_string(p, "long[]"),
                          context(p, "pkg.Main.make", 30, "mov %eax, 0xc(%rbx)"), 30};
    assert_int_equal(wasp_profile_add_alloc(p, &e), 0);
    return p;
}

static void one_line_two_classes(void **state)
{
    (void)state;
    expect(two_classes_profile,
           "  2. pkg.Main.make(Main.java:30): creates long[] objects: 42.9% of the sampled "
           "creations; CPU counted with 1 (the same line)\n",
           "creations; CPU not measured\n");
    wasp_profile *p = two_classes_profile(true);
    char *json = render_string(p, WASP_FORMAT_JSON, WASP_BY_LINE, NULL);
    assert_non_null(strstr(json, "\"cpu_same_as\": null"));
    assert_non_null(strstr(json, "\"cpu_same_as\": 1"));
    free(json);
    wasp_profile_free(p);
}

/* A replicas profile with site 0, int[] created at Grid.build:12, and its
 * births' comparisons (at the site's allocation path: no instruction). */
static wasp_profile *grid_profile(uint32_t *site)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "replicas");
    uint32_t s = wasp_profile_intern_site(p, context(p, "pkg.Grid.build", 12, NULL),
                                          wasp_profile_intern_string(p, "int[]"));
    wasp_profile_add_site_allocs(p, s, 100, 819200);
    wasp_profile_add_replica(p, s, context(p, "pkg.Grid.build", 12, NULL), 400, 100);
    *site = s;
    return p;
}

static wasp_profile *replica_profile(bool with_lines)
{
    uint32_t s;
    wasp_profile *p = grid_profile(&s);
    /* line 20 through two instructions: one line */
    wasp_profile_add_replica(p, s, context(p, "pkg.Grid.sum", 20, "mov 0x10(%rbx), %eax"), 30, 10);
    wasp_profile_add_replica(p, s, context(p, "pkg.Grid.sum", 20, "mov 0x14(%rbx), %ecx"), 5, 5);
    wasp_profile_add_replica(p, s, context(p, "pkg.Grid.copy", 25, "mov %eax, 0x10(%rbx)"), 10, 0);
    cpu_lines(p, with_lines,
              (const char *const[]){"pkg.Grid.build", "pkg.Grid.sum", "pkg.Grid.copy"},
              (const int[]){12, 20, 25}, (const double[]){200, 250, 50}, 3);
    return p;
}

static void replica_is_the_lines_that_accessed_it(void **state)
{
    (void)state;
    /* the creating line 12 (once, births or not), lines 20 and 25: 500
     * (without 12: 300; 20 twice: 750) */
    expect(replica_profile,
           "  1. pkg.Grid.build(Main.java:12): int[] objects created here are copies of each "
           "other: 79.5% of sampled fields equal the previous object's (95%: 75.9–82.6%, 560 comparisons), ~635.7 KiB "
           "replicated" FIFTY,
           "replicated; CPU not measured\n");
}

/* The lines' samples the replica finding carries are a share of the samples
 * counted by line (cpu.samples), not of the samples due: pacing that left
 * out 1,000 more moves neither the share nor the count. */
static void replica_share_is_of_the_samples_counted_by_line(void **state)
{
    (void)state;
    wasp_profile *p = replica_profile(true);
    wasp_profile_add_counter(p, "sampler.paced_skips", 1000); /* 2,000 due */
    char *r = text(p);
    if (!strstr(r, "of the program's 2,000 CPU samples") || !strstr(r, "replicated" FIFTY))
        fail_msg("not 500 of 1,000 counted by line in:\n%s", r);
    free(r);
    r = render_string(p, WASP_FORMAT_JSON, WASP_BY_LINE, NULL);
    const char *f = strstr(r, "\"place\": \"pkg.Grid.build(Main.java:12)\"");
    if (!f || !strstr(f, "\"cpu_share\": 0.5,") || !strstr(f, "\"cpu_samples\": 500.0,") ||
        !strstr(f, "\"samples\": 500.0,"))
        fail_msg("not 500 of 1,000 counted by line in:\n%s", r);
    free(r);
    wasp_profile_free(p);
}

/* A second site whose objects are created at the same line from another
 * caller: one finding there, θ over both sites' comparisons, their
 * replicated bytes summed, its lines' samples counted once. */
static wasp_profile *two_paths_profile(bool with_lines)
{
    wasp_profile *p = replica_profile(with_lines);
    wasp_frame root = at_line(p, "pkg.Main.other", 7), leaf = at_line(p, "pkg.Grid.build", 12);
    uint32_t f[] = {wasp_profile_intern_frame(p, &root), wasp_profile_intern_frame(p, &leaf)};
    uint32_t s = wasp_profile_intern_site(p, wasp_profile_intern_context(p, f, 2, 0),
                                          wasp_profile_intern_string(p, "int[]"));
    wasp_profile_add_site_allocs(p, s, 100, 819200);
    wasp_profile_add_replica(p, s, context(p, "pkg.Grid.sum", 20, "mov 0x10(%rbx), %eax"), 30, 10);
    return p;
}

static void replica_paths_at_one_place(void **state)
{
    (void)state;
    /* θ (445 + 30) / (560 + 40); 635.7 KiB + 0.75 x 800 KiB */
    expect(two_paths_profile,
           "  1. pkg.Grid.build(Main.java:12): int[] objects created here are copies of each "
           "other: 79.2% of sampled fields equal the previous object's (95%: 75.7–82.2%, 600 comparisons), ~1.2 MiB "
           "replicated" FIFTY "  try:",
           "replicated; CPU not measured\n  try:");
}

/* A place where the site's objects were accessed, compared nowhere (a
 * record of no comparisons): its line's samples count, θ and the detail's
 * comparison contexts do not change. */
static wasp_profile *place_profile(bool with_lines)
{
    uint32_t s;
    wasp_profile *p = grid_profile(&s);
    wasp_profile_add_replica(p, s, context(p, "pkg.Grid.sum", 20, "mov 0x10(%rbx), %eax"), 30, 10);
    wasp_profile_add_replica(p, s, context(p, "pkg.Grid.scan", 30, "mov 0x18(%rbx), %edx"), 0, 0);
    cpu_lines(p, with_lines, (const char *const[]){"pkg.Grid.build", "pkg.Grid.sum", "pkg.Grid.scan"},
              (const int[]){12, 20, 30}, (const double[]){200, 250, 150}, 3);
    return p;
}

static void replica_places_accessed_count(void **state)
{
    (void)state;
    /* lines 12, 20 and 30: 600 of 1,000, Wilson 56.9-63.0%; θ 430 / 540 */
    expect(place_profile,
           "  1. pkg.Grid.build(Main.java:12): int[] objects created here are copies of each "
           "other: 79.6% of sampled fields equal the previous object's (95%: 76.0–82.8%, 540 comparisons), ~637.0 KiB "
           "replicated; 60.0% of CPU (56.9\xe2\x80\x93" "63.0%)\n",
           "replicated; CPU not measured\n");
    wasp_profile *p = place_profile(true);
    char *r = text(p);
    if (strstr(r, "pkg.Grid.scan") || !strstr(r, "pkg.Grid.sum"))
        fail_msg("the place is listed among the comparison contexts, or the comparison is not:\n%s", r);
    free(r);
    wasp_profile_free(p);
}

/* A class site (untracked objects of a class, their allocation unknown):
 * its lines are every access to any object of the class, so the finding
 * says its CPU is the class's. */
static wasp_profile *class_site_profile(bool with_lines)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "replicas");
    wasp_frame f = {WASP_FRAME_UNKNOWN, wasp_profile_intern_string(p, WASP_CLASS_SITE_FRAME), 0, -1};
    uint32_t frame = wasp_profile_intern_frame(p, &f);
    uint32_t s = wasp_profile_intern_site(p, wasp_profile_intern_context(p, &frame, 1, 0),
                                          wasp_profile_intern_string(p, "float[]"));
    wasp_profile_add_replica(p, s, context(p, "pkg.Matrix.init", 51, "mov %eax, 0x10(%rbx)"), 40, 10);
    wasp_profile_add_replica(p, s, context(p, "pkg.Render.scale", 80, "movss 0x14(%rbx), %xmm0"), 0, 0);
    cpu_lines(p, with_lines, (const char *const[]){"pkg.Matrix.init", "pkg.Render.scale"},
              (const int[]){51, 80}, (const double[]){100, 200}, 2);
    return p;
}

static void replica_class_site_cost_is_the_class(void **state)
{
    (void)state;
    expect(class_site_profile,
           "float[] objects (untracked, created elsewhere) compared here are copies of each "
           "other: 80.0% of sampled fields equal the previous object's (95%: 67.0–88.8%, 50 comparisons); its CPU: every line that "
           "accessed an untracked float[]" THIRTY,
           "equal the previous object's (95%: 67.0–88.8%, 50 comparisons); CPU not measured\n");
}

/* The class site's objects created at two places, one of them by two
 * paths: the summary names the place that creates most of them, its paths
 * summed (sunflow's Ray.transform: 17% by its heaviest path, 62% in all). */
static wasp_profile *created_by_paths_profile(bool with_lines)
{
    wasp_profile *p = class_site_profile(with_lines);
    wasp_profile_set_meta(p, "events", "replicas,alloc");
    uint32_t cls = wasp_profile_intern_string(p, "float[]");
    wasp_frame root = at_line(p, "pkg.Main.other", 9), leaf = at_line(p, "pkg.Matrix.init", 51);
    uint32_t f[] = {wasp_profile_intern_frame(p, &root), wasp_profile_intern_frame(p, &leaf)};
    wasp_alloc_entry e[] = {
        {cls, context(p, "pkg.Matrix.init", 51, "mov %eax, 0x8(%rbx)"), 30},
        {cls, wasp_profile_intern_context(p, f, 2, wasp_profile_intern_string(p, "mov %eax, 0x8(%rbx)")), 30},
        {cls, context(p, "pkg.Render.scale", 80, "mov %eax, 0x8(%rbx)"), 40},
    };
    for (int i = 0; i < 3; i++)
        assert_int_equal(wasp_profile_add_alloc(p, &e[i]), 0);
    return p;
}

static void class_site_created_where_most_are(void **state)
{
    (void)state;
    const char *line = "pkg.Matrix.init(Main.java:51): float[] objects (untracked; 60.0% of the "
                       "class's sampled allocations are here) are copies of each other";
    expect(created_by_paths_profile, line, line);
}

/* int[] created in java.util.Arrays.copyOf:3537, not inlined into the
 * place's line pkg.Main.fill:30 (10 samples): three quarters of the
 * creations sampled there pass through the place, so its cost is 0.75 of
 * the line's 300 samples, 225 of 1,000 (Wilson 20.0-25.2%), not the
 * place's 1.0%. */
static void alloc_in_a_callee_not_inlined(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "alloc");
    wasp_frame root = at_line(p, "pkg.Main.main", 5), fill = at_line(p, "pkg.Main.fill", 30),
               other = at_line(p, "pkg.Main.other", 50), copy = at_line(p, "java.util.Arrays.copyOf", 3537);
    uint32_t r = wasp_profile_intern_frame(p, &root), fl = wasp_profile_intern_frame(p, &fill),
             ot = wasp_profile_intern_frame(p, &other), cp = wasp_profile_intern_frame(p, &copy);
    uint32_t insn = wasp_profile_intern_string(p, "mov %eax, 0x8(%rbx)"),
             cls = wasp_profile_intern_string(p, "int[]");
    wasp_alloc_entry e[] = {{cls, wasp_profile_intern_context(p, (uint32_t[]){r, fl, cp}, 3, insn), 30},
                            {cls, wasp_profile_intern_context(p, (uint32_t[]){r, ot, cp}, 3, insn), 10}};
    for (int i = 0; i < 2; i++)
        assert_int_equal(wasp_profile_add_alloc(p, &e[i]), 0);
    wasp_profile_add_counter(p, "samples", 1000);
    assert_int_equal(wasp_profile_add_cpu_chain(p, (wasp_frame[]){copy}, 1, 300), 0);
    assert_int_equal(wasp_profile_add_cpu_chain(p, (wasp_frame[]){fill, root}, 2, 10), 0);
    assert_int_equal(wasp_profile_add_cpu_chain(p, (wasp_frame[]){at_line(p, "pkg.Main.rest", 9)}, 1, 690), 0);
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 1000);
    char *t = text(p);
    const char *line = "  1. pkg.Main.fill(Main.java:30), in java.util.Arrays.copyOf(Main.java:3537): "
                       "creates int[] objects";
    const char *cpu = "; 22.5% of CPU (20.0\xe2\x80\x93" "25.2%)";
    if (!strstr(t, line) || !strstr(strstr(t, line), cpu))
        fail_msg("no \"%s ...%s\" in:\n%s", line, cpu, t);
    free(t);
    wasp_profile_free(p);
}

/* A site of 100 MiB replicated on 1 comparison (θ's low end 20.7%) ranks
 * above Grid.build's 500 in the detail, but the summary lists it after. */
static void few_comparisons_come_last(void **state)
{
    (void)state;
    uint32_t grid;
    wasp_profile *p = grid_profile(&grid);
    uint32_t s = wasp_profile_intern_site(p, context(p, "pkg.Cache.fill", 40, NULL),
                                          wasp_profile_intern_string(p, "byte[]"));
    wasp_profile_add_site_allocs(p, s, 100, 100 << 20);
    wasp_profile_add_replica(p, s, context(p, "pkg.Cache.fill", 40, NULL), 1, 0);
    char *r = text(p);
    const char *first = strstr(r, "  1. pkg.Grid.build(Main.java:12)"),
               *second = strstr(r, "  2. pkg.Cache.fill(Main.java:40)"),
               *detail = strstr(r, "DETAIL"),
               *cache = detail ? strstr(detail, "pkg.Cache.fill") : NULL,
               *build = detail ? strstr(detail, "pkg.Grid.build") : NULL;
    if (!first || !second || !cache || !build || cache > build)
        fail_msg("the summary does not list the site of 1 comparison second, or the detail "
                 "does not rank it first:\n%s", r);
    assert_non_null(strstr(second, "(95%: 20.7\xe2\x80\x93" "100.0%, 1 comparison)"));
    free(r);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alloc_is_its_creating_line),
        cmocka_unit_test(one_line_two_classes),
        cmocka_unit_test(replica_is_the_lines_that_accessed_it),
        cmocka_unit_test(replica_share_is_of_the_samples_counted_by_line),
        cmocka_unit_test(replica_paths_at_one_place),
        cmocka_unit_test(replica_places_accessed_count),
        cmocka_unit_test(replica_class_site_cost_is_the_class),
        cmocka_unit_test(class_site_created_where_most_are),
        cmocka_unit_test(few_comparisons_come_last),
        cmocka_unit_test(alloc_in_a_callee_not_inlined),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
