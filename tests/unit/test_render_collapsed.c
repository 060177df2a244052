/* --format collapsed (render_collapsed.c) and --format pprof
 * (render_pprof.c) on a constructed profile: one line (sample) per weighted
 * context of every analysis, sides apart, totals those of the profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analysis/objects/profile.h"
#include "analysis/replicas/profile.h"
#include "cli/pprof/profile.pb-c.h"
#include "cli/commands/report.h"
#include "render_string.h"
#include "profile/profile.h"
#include "pairs_view.h"

static uint32_t jframe(wasp_profile *p, const char *m, const char *file, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, m),
                    wasp_profile_intern_string(p, file), line};
    return wasp_profile_intern_frame(p, &f);
}

/* Dead stores: three pairs with fractional bytes (their sum is not an
 * integer); a frame whose name holds ';' and a space; objects: a site with
 * two access contexts; replicas: one comparison context. */
static wasp_profile *sample(void)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    uint32_t root = jframe(p, "pkg.Main.main", "Main.java", 10);
    uint32_t w42 = jframe(p, "pkg.Main.work", "Main.java", 42);
    uint32_t w43 = jframe(p, "pkg.Main.work", "Main.java", 43);
    uint32_t odd = jframe(p, "pkg.A.m;x y", "A.java", 7);
    uint32_t f1[] = {root, w42}, f2[] = {root, w43}, f3[] = {root, odd};
    uint32_t c1 = wasp_profile_intern_context(p, f1, 2, 0);
    uint32_t c2 = wasp_profile_intern_context(p, f2, 2, 0);
    uint32_t c3 = wasp_profile_intern_context(p, f3, 2, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c1, c2, 1000.4, 10);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c3, c2, 500.4, 5);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c1, c3, 0.4, 1);
    uint32_t site = wasp_profile_intern_site(p, c1, wasp_profile_intern_string(p, "double[]"));
    wasp_profile_add_site_allocs(p, site, 4, 4096);
    wasp_profile_add_site_access(p, site, c2, 200, 0);
    wasp_profile_add_site_access(p, site, c3, 600, 0);
    wasp_profile_add_replica(p, site, c2, 30, 10);
    return p;
}

static char *render(const wasp_profile *p, wasp_format fmt, size_t *len)
{
    return render_string(p, fmt, WASP_BY_INSTRUCTION, len);
}

/* --format collapsed with --analysis (id + 1; 0: not given) and --side. */
__attribute__((noinline)) static char *render_choice(const wasp_profile *p, int analysis,
                                                     wasp_report_side side)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    wasp_report_opts o = {.format = WASP_FORMAT_COLLAPSED, .by = WASP_BY_INSTRUCTION,
                         .side = side, .analysis = analysis};
    assert_int_equal(wasp_report_render(p, &o, f), 0);
    fclose(f);
    return buf;
}

/* The sum of the values of the lines starting with prefix. */
static long long total_of(const char *doc, const char *prefix, int *lines)
{
    long long sum = 0;
    *lines = 0;
    for (const char *l = doc; *l;) {
        const char *end = strchr(l, '\n');
        assert_non_null(end);
        if (strncmp(l, prefix, strlen(prefix)) == 0) {
            const char *space = end;
            while (space > l && space[-1] != ' ')
                space--;
            assert_true(space > l);
            sum += strtoll(space, NULL, 10);
            ++*lines;
        }
        l = end + 1;
    }
    return sum;
}

static int count_lines(const char *doc)
{
    int n = 0;
    for (; *doc; doc++)
        n += *doc == '\n';
    return n;
}

static void test_collapsed_totals(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char *doc = render_choice(p, WASP_ANALYSES + 1, WASP_SIDE_ALL);
    /* 3 pairs x 2 sides, 1 site + 2 accesses, 1 site + 1 comparison context */
    assert_int_equal(count_lines(doc), 11);
    double pair_bytes = 0;
    for (uint32_t i = 0; i < pair_count(p); i++)
        pair_bytes += pairs_of(p)[i].bytes;
    assert_true(pair_bytes != floor(pair_bytes)); /* rounding each line would drift */
    int n;
    assert_int_equal(total_of(doc, "deadstore;[watch];", &n), llround(pair_bytes));
    assert_int_equal(n, 3);
    assert_int_equal(total_of(doc, "deadstore;[trap];", &n), llround(pair_bytes));
    assert_int_equal(n, 3);
    double site_samples = wasp_profile_site_samples(p, 0, NULL);
    assert_true(site_samples == 800);
    assert_int_equal(total_of(doc, "objects;[allocation];", &n), 800);
    assert_int_equal(n, 1);
    assert_int_equal(total_of(doc, "objects;[access];", &n), 800);
    assert_int_equal(n, 2);
    assert_int_equal(total_of(doc, "replicas;[site];", &n), 30);
    assert_int_equal(total_of(doc, "replicas;[compare];", &n), 30);
    free(doc);
    wasp_profile_free(p);
}

/* By default one series, whose total is true: the first analysis's watched
 * side; --side and --analysis choose others. */
static void test_collapsed_choice(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    size_t len;
    int n;
    char *doc = render(p, WASP_FORMAT_COLLAPSED, &len);
    assert_int_equal(count_lines(doc), 3);
    assert_int_equal(total_of(doc, "deadstore;[watch];", &n), 1501);
    assert_int_equal(n, 3);
    free(doc);
    doc = render_choice(p, 0, WASP_SIDE_TRAPPED);
    assert_int_equal(total_of(doc, "deadstore;[trap];", &n), 1501);
    assert_int_equal(count_lines(doc), 3);
    free(doc);
    doc = render_choice(p, WASP_ID_objects + 1, WASP_SIDE_TRAPPED);
    assert_int_equal(total_of(doc, "objects;[access];", &n), 800);
    assert_int_equal(count_lines(doc), 2);
    free(doc);
    doc = render_choice(p, WASP_ANALYSES + 1, WASP_SIDE_WATCHED); /* each analysis's first side */
    assert_int_equal(count_lines(doc), 3 + 1 + 1);
    assert_int_equal(total_of(doc, "objects;[allocation];", &n), 800);
    assert_int_equal(total_of(doc, "replicas;[site];", &n), 30);
    free(doc);
    doc = render_choice(p, WASP_ID_locks + 1, WASP_SIDE_WATCHED); /* none: empty */
    assert_int_equal(count_lines(doc), 0);
    free(doc);
    wasp_profile_free(p);
}

/* Measures beyond what a long long holds (finite, so a profile may carry
 * them; found by the fuzzer): the running total stops at 9e18 instead of
 * overflowing, and no line is negative. */
static void test_collapsed_huge(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    uint32_t f[] = {jframe(p, "pkg.Main.main", "Main.java", 10)};
    uint32_t c = wasp_profile_intern_context(p, f, 1, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 1e19, 1);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 90, 1);
    size_t len;
    char *doc = render(p, WASP_FORMAT_COLLAPSED, &len);
    int n;
    assert_int_equal(total_of(doc, "deadstore;[watch];", &n), 9000000000000000000LL);
    assert_null(strstr(doc, " -"));
    free(doc);
    wasp_profile_free(p);
}

static void test_collapsed_frames(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    size_t len;
    char *doc = render_choice(p, WASP_ANALYSES + 1, WASP_SIDE_ALL);
    (void)len;
    /* root first, frames named as in the text report, heaviest pair first */
    assert_non_null(strstr(doc, "deadstore;[watch];pkg.Main.main(Main.java:10);"
                                "pkg.Main.work(Main.java:42) 1000\n"));
    /* ';' in a name would split the frame: replaced; the space stays */
    assert_non_null(strstr(doc, "deadstore;[watch];pkg.Main.main(Main.java:10);"
                                "pkg.A.m,x y(A.java:7) 501\n"));
    assert_null(strstr(doc, "m;x"));
    /* the site's class is the leaf */
    assert_non_null(strstr(doc, "objects;[access];pkg.Main.main(Main.java:10);"
                                "pkg.A.m,x y(A.java:7);double[] 600\n"));
    free(doc);
    wasp_profile_free(p);
}

/* gunzip of buf[0..n) into a malloc'd buffer. */
static uint8_t *gunzip(const char *buf, size_t n, size_t *out_len)
{
    size_t cap = 1 << 20;
    uint8_t *out = malloc(cap);
    z_stream z = {0};
    assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = (Bytef *)buf;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = cap - z.avail_out;
    inflateEnd(&z);
    return out;
}

static const char *label_of(const Wasp__Pprof__Profile *pr, const Wasp__Pprof__Sample *s,
                            const char *key)
{
    for (size_t i = 0; i < s->n_label; i++)
        if (strcmp(pr->string_table[s->label[i]->key], key) == 0)
            return pr->string_table[s->label[i]->str];
    return NULL;
}

static void test_pprof(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    size_t len, raw_len;
    char *doc = render(p, WASP_FORMAT_PPROF, &len);
    uint8_t *raw = gunzip(doc, len, &raw_len);
    Wasp__Pprof__Profile *pr = wasp__pprof__profile__unpack(NULL, raw_len, raw);
    assert_non_null(pr);
    assert_string_equal(pr->string_table[0], "");
    /* a type per analysis, side and measure; the default the first */
    static const char *const types[][2] = {
        {"deadstore_bytes_watched", "bytes"},   {"deadstore_samples_watched", "count"},
        {"deadstore_bytes_trapped", "bytes"},   {"deadstore_samples_trapped", "count"},
        {"objects_samples_allocation", "count"}, {"objects_samples_access", "count"},
        {"replicas_samples_site", "count"},     {"replicas_samples_compare", "count"}};
    enum { NTYPES = sizeof types / sizeof *types };
    assert_int_equal(pr->n_sample_type, NTYPES);
    for (size_t t = 0; t < NTYPES; t++) {
        assert_string_equal(pr->string_table[pr->sample_type[t]->type], types[t][0]);
        assert_string_equal(pr->string_table[pr->sample_type[t]->unit], types[t][1]);
    }
    assert_string_equal(pr->string_table[pr->default_sample_type], types[0][0]);
    assert_int_equal(pr->n_sample, 11);
    int64_t sums[NTYPES] = {0};
    int64_t watch_bytes = 0, access_samples = 0;
    for (size_t i = 0; i < pr->n_sample; i++) {
        const Wasp__Pprof__Sample *s = pr->sample[i];
        const char *an = label_of(pr, s, "analysis"), *side = label_of(pr, s, "side");
        assert_non_null(an);
        assert_non_null(side);
        assert_int_equal(s->n_value, NTYPES);
        int nonzero = 0;
        for (size_t t = 0; t < NTYPES; t++) {
            sums[t] += s->value[t];
            nonzero += s->value[t] != 0;
        }
        assert_true(nonzero <= 2); /* its own series' types only */
        if (!strcmp(an, "deadstore") && !strcmp(side, "watch"))
            watch_bytes += s->value[0];
        if (!strcmp(an, "objects") && !strcmp(side, "access"))
            access_samples += s->value[5];
        /* root: the analysis, then the side's marker */
        const Wasp__Pprof__Location *root = pr->location[s->location_id[s->n_location_id - 1] - 1];
        const Wasp__Pprof__Location *marker =
            pr->location[s->location_id[s->n_location_id - 2] - 1];
        char want[64];
        snprintf(want, sizeof want, "[%s]", side);
        assert_string_equal(pr->string_table[pr->function[root->line[0]->function_id - 1]->name], an);
        assert_string_equal(pr->string_table[pr->function[marker->line[0]->function_id - 1]->name],
                            want);
    }
    assert_int_equal(watch_bytes, 1501); /* the rounded total, not 1000 + 500 + 0 */
    assert_int_equal(access_samples, 800);
    static const int64_t want[NTYPES] = {1501, 16, 1501, 16, 800, 800, 30, 30};
    for (size_t t = 0; t < NTYPES; t++)
        assert_int_equal(sums[t], want[t]);
    /* deduplicated: pkg.Main.work is one function at two lines (locations) */
    int work = 0, work_locs = 0;
    for (size_t i = 0; i < pr->n_function; i++)
        work += !strcmp(pr->string_table[pr->function[i]->name], "pkg.Main.work");
    for (size_t i = 0; i < pr->n_location; i++) {
        const Wasp__Pprof__Function *f = pr->function[pr->location[i]->line[0]->function_id - 1];
        if (!strcmp(pr->string_table[f->name], "pkg.Main.work")) {
            work_locs++;
            assert_string_equal(pr->string_table[f->filename], "Main.java");
        }
    }
    assert_int_equal(work, 1);
    assert_int_equal(work_locs, 2);
    wasp__pprof__profile__free_unpacked(pr, NULL);
    free(raw);
    free(doc);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collapsed_totals),
        cmocka_unit_test(test_collapsed_choice),
        cmocka_unit_test(test_collapsed_frames),
        cmocka_unit_test(test_collapsed_huge),
        cmocka_unit_test(test_pprof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
