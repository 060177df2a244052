/* Object replicas (OJXPerf) in the profile model: records and checks, θ, ω
 * and γ, ranking, the file's REPL and RCHK sections, merging, grouping by
 * line, and both renderers' replica sections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "analysis/objects/profile.h"
#include "analysis/replicas/profile.h"
#include "cli/render/render.h" /* the renderers, private to src/cli/ */
#include "heap/class_site.h"
#include "profile/group.h"
#include "profile/profile.h"
#include "profile_bytes.h"

/* The replicas analysis's records and checks in p; writable, so that tests
 * can plant what a reader must refuse. */
static wasp_replica *records(const wasp_profile *p)
{
    uint32_t n;
    return (wasp_replica *)wasp_profile_replicas(p, &n);
}

static uint32_t nrecords(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_replicas(p, &n);
    return n;
}

static const wasp_replica_check *checks(const wasp_profile *p)
{
    uint32_t n;
    return wasp_profile_replica_checks(p, &n);
}

static uint32_t nchecks(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_replica_checks(p, &n);
    return n;
}

static uint32_t jframe(wasp_profile *p, const char *m, const char *file, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, m),
                    file ? wasp_profile_intern_string(p, file) : 0, line};
    return wasp_profile_intern_frame(p, &f);
}

/* pkg.Main.main(Main.java:root_line) -> leaf(file:line), root first. */
static uint32_t ctx2(wasp_profile *p, int root_line, const char *leaf, const char *file, int line,
                     const char *insn)
{
    uint32_t f[] = {jframe(p, "pkg.Main.main", "Main.java", root_line), jframe(p, leaf, file, line)};
    return wasp_profile_intern_context(p, f, 2, insn ? wasp_profile_intern_string(p, insn) : 0);
}

static uint32_t site(wasp_profile *p, const char *alloc, int line, const char *cls, double allocs,
                     double bytes)
{
    uint32_t s = wasp_profile_intern_site(p, ctx2(p, 5, alloc, "Grid.java", line, NULL),
                                          wasp_profile_intern_string(p, cls));
    assert_int_not_equal(s, UINT32_MAX);
    wasp_profile_add_site_allocs(p, s, allocs, bytes);
    return s;
}

static const char *leaf_name(const wasp_profile *p, uint32_t ctx)
{
    const wasp_context *c = &p->contexts[ctx];
    assert_true(c->nframes > 0);
    return wasp_profile_string(p, p->frames[p->frame_refs[c->first + c->nframes - 1]].name);
}

/* The site allocated at leaf method alloc with class cls. */
static uint32_t site_named(const wasp_profile *p, const char *alloc, const char *cls)
{
    for (uint32_t i = 0; i < p->nsites; i++)
        if (!strcmp(leaf_name(p, p->sites[i].ctx), alloc) &&
            !strcmp(wasp_profile_string(p, p->sites[i].class_name), cls))
            return i;
    fail_msg("no site %s %s", alloc, cls);
    return UINT32_MAX;
}

/* The replica record of site whose comparison context's leaf is method m. */
static const wasp_replica *replica_named(const wasp_profile *p, uint32_t s, const char *m)
{
    for (uint32_t i = 0; i < nrecords(p); i++)
        if (records(p)[i].site == s && !strcmp(leaf_name(p, records(p)[i].access_ctx), m))
            return &records(p)[i];
    fail_msg("no replica record of site %u at %s", s, m);
    return NULL;
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* Site 0: double[] at Grid.<init>, compared at Grid.copy (300 same of 400) and
 * Grid.sum (12 same of 12), verified (unless `verified` is false); site 1:
 * int[] at Grid.idx, compared at Grid.copy, unverified; site 2: long[] never
 * compared. */
static wasp_profile *sample_verified(bool verified)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "objects+replicas");
    uint32_t d = site(p, "pkg.Grid.<init>", 12, "double[]", 1204, 9.4e6);
    uint32_t i = site(p, "pkg.Grid.idx", 30, "int[]", 50, 2e5);
    site(p, "pkg.Grid.long", 40, "long[]", 10, 1e4);
    uint32_t copy = ctx2(p, 10, "pkg.Grid.copy", "Grid.java", 80, "vmovsd (%rsi,%rcx,8), %xmm0");
    uint32_t sum = ctx2(p, 11, "pkg.Grid.sum", "Grid.java", 90, "mov 0x10(%rax), %rdx");
    wasp_profile_add_replica(p, d, copy, 300, 100);
    wasp_profile_add_replica(p, d, sum, 12, 0);
    wasp_profile_add_replica(p, i, copy, 5, 15);
    wasp_profile_add_site_access(p, d, sum, 80, 0);
    wasp_profile_add_site_access(p, i, copy, 20, 0);
    wasp_replica_check c = {d, 1000, 610, 0.031, 0.04};
    if (verified)
        wasp_profile_set_replica_check(p, &c);
    return p;
}

static wasp_profile *sample(void)
{
    return sample_verified(true);
}

/* ---- model ---- */

static void test_add_and_sum(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t s = site(p, "pkg.A.<init>", 1, "byte[]", 1, 100);
    uint32_t c1 = ctx2(p, 2, "pkg.A.f", "A.java", 3, "mov (%rax), %al");
    uint32_t c2 = ctx2(p, 2, "pkg.A.g", "A.java", 4, NULL);
    wasp_profile_add_replica(p, s, c1, 3, 1);
    wasp_profile_add_replica(p, s, c1, 2, 4);
    wasp_profile_add_replica(p, s, c2, 1, 0);
    assert_int_equal(nrecords(p), 2);
    assert_true(records(p)[0].same == 5 && records(p)[0].different == 5);
    assert_true(records(p)[1].same == 1 && records(p)[1].different == 0);
    /* out-of-range ids change nothing */
    wasp_profile_add_replica(p, 7, c1, 1, 1);
    wasp_profile_add_replica(p, s, 999, 1, 1);
    assert_int_equal(nrecords(p), 2);

    assert_null(wasp_profile_replica_check(p, s));
    wasp_replica_check c = {s, 10, 4, 0.1, 0.2};
    wasp_profile_set_replica_check(p, &c);
    c.pairs = 20; /* set replaces */
    wasp_profile_set_replica_check(p, &c);
    assert_int_equal(nchecks(p), 1);
    assert_true(wasp_profile_replica_check(p, s)->pairs == 20);
    c.site = 5;
    wasp_profile_set_replica_check(p, &c);
    assert_int_equal(nchecks(p), 1);

    wasp_profile_free(p);

    /* has_replicas: records, checks, or "replicas" in events */
    p = wasp_profile_new();
    assert_false(wasp_profile_has_replicas(p));
    wasp_profile_set_meta(p, "events", "deadstore+objects");
    assert_false(wasp_profile_has_replicas(p));
    wasp_profile_set_meta(p, "events", "objects+replicas");
    assert_true(wasp_profile_has_replicas(p));
    wasp_profile_free(p);
}

static void test_theta(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    double n;
    /* (300 + 12) / (400 + 12) */
    NEAR(wasp_replica_theta(p, 0, &n), 312.0 / 412.0);
    assert_true(n == 412);
    NEAR(wasp_replica_theta(p, 1, &n), 0.25);
    assert_true(n == 20);
    assert_true(wasp_replica_theta(p, 2, &n) == 0 && n == 0); /* no records */
    assert_true(wasp_replica_theta(p, 99, NULL) == 0);
    wasp_profile_free(p);
}

static void test_theta_interval(void **state)
{
    (void)state;
    double lo, hi;
    /* Wilson, z = 1.959964 (worked independently in Python). */
    wasp_replica_theta_interval(313, 412, &lo, &hi);
    assert_true(fabs(lo - 0.7161741139) < 1e-9 && fabs(hi - 0.7984450887) < 1e-9);
    /* Four comparisons, all equal: θ 100% but the interval reaches down to 51%;
     * none equal: up to 49%. A site with little evidence cannot look certain. */
    wasp_replica_theta_interval(4, 4, &lo, &hi);
    assert_true(fabs(lo - 0.5101091596) < 1e-9 && hi > 1 - 1e-9);
    wasp_replica_theta_interval(0, 4, &lo, &hi);
    assert_true(lo == 0 && fabs(hi - 0.4898908404) < 1e-9);
    wasp_replica_theta_interval(0, 0, &lo, &hi);
    assert_true(lo == 0 && hi == 1);
}

static void test_omega_gamma(void **state)
{
    (void)state;
    /* θ 76.1%, α 3.1%, X 1204: ω = 0.730; t = 1/1203, A = 0.730/0.969,
     * γ = t/2 + sqrt(t²/4 + A) = 0.868375388... (worked by hand / bc) */
    NEAR(wasp_replica_omega(0.761, 0.031), 0.730);
    assert_true(fabs(wasp_replica_gamma(0.761, 0.031, 1204) - 0.8683753881) < 1e-9);
    /* θ 0.5, α 0, X 2: t = 1, γ = 0.5 + sqrt(0.25 + 0.5) */
    NEAR(wasp_replica_gamma(0.5, 0, 2), 0.5 + sqrt(0.75));
    /* θ 0.75, α 0.05, X 101: t = 0.01, A = 0.7/0.95; γ = 0.86341 */
    assert_true(fabs(wasp_replica_gamma(0.75, 0.05, 101) - 0.8634096372) < 1e-9);
    /* θ < α: ω negative (no bound); A taken as 0, so γ = t */
    NEAR(wasp_replica_omega(0.1, 0.3), -0.2);
    NEAR(wasp_replica_gamma(0.1, 0.3, 11), 0.1);
    /* no bound with one object or α = 1 */
    assert_true(isnan(wasp_replica_gamma(0.5, 0.1, 1)));
    assert_true(isnan(wasp_replica_gamma(0.5, 0.1, 0)));
    assert_true(isnan(wasp_replica_gamma(0.5, 1, 100)));
}

/* The site with the given comparisons, allocated bytes (none: a class site,
 * named by its header, heap/class_site.h) and access samples. */
static uint32_t ranked_site(wasp_profile *p, const char *name, double same, double all,
                            double bytes, double samples)
{
    uint32_t s;
    if (bytes > 0) {
        s = site(p, name, 1, "A[]", 1, bytes);
    } else {
        wasp_frame f = {WASP_FRAME_UNKNOWN, wasp_profile_intern_string(p, WASP_CLASS_SITE_FRAME), 0,
                        -1};
        uint32_t frame = wasp_profile_intern_frame(p, &f);
        s = wasp_profile_intern_site(p, wasp_profile_intern_context(p, &frame, 1, 0),
                                     wasp_profile_intern_string(p, name));
    }
    uint32_t x = ctx2(p, 9, "pkg.X.x", "X.java", 1, NULL);
    wasp_profile_add_replica(p, s, x, same, all - same);
    if (samples > 0)
        wasp_profile_add_site_access(p, s, x, samples, 0);
    return s;
}

static void expect_order(const wasp_profile *p, const uint32_t *want, uint32_t nwant)
{
    uint32_t n;
    uint32_t *o = wasp_profile_sorted_replica_sites(p, &n);
    assert_non_null(o);
    assert_int_equal(n, nwant);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(o[i], want[i]);
    free(o);
}

/* Two sites, a then b, each {same, comparisons, bytes, access samples}: b ranks first. */
static void expect_second_first(const double a[4], const double b[4])
{
    wasp_profile *p = wasp_profile_new();
    uint32_t sa = ranked_site(p, "pkg.A", a[0], a[1], a[2], a[3]);
    uint32_t sb = ranked_site(p, "pkg.B", b[0], b[1], b[2], b[3]);
    expect_order(p, (uint32_t[]){sb, sa}, 2);
    wasp_profile_free(p);
}

/* Sites rank by replicated bytes as far as the evidence supports them. Each
 * case below ranked the other way by θ × access samples (the old ranking). */
static void test_ranking(void **state)
{
    (void)state;
    /* θ near 0 never above a replicated site: θ 2% over 1,000 comparisons
     * (θ_low 1.3%) with 100x the bytes and 1,000x the accesses of θ 90%
     * (θ_low 88%): θ_low × bytes alone would put it first (1.3 MB vs 0.88 MB). */
    expect_second_first((const double[]){20, 1000, 1e8, 10000},
                        (const double[]){900, 1000, 1e6, 10});
    /* Two replicated sites by θ_low × bytes: θ 95% over 1,000 (θ_low 93.5%)
     * × 520 kB = 486 kB before θ 50% (θ_low 46.9%) × 1 MB = 469 kB, though
     * θ × bytes (494 vs 500 kB) and the accesses (10 vs 100) say otherwise. */
    expect_second_first((const double[]){500, 1000, 1e6, 100},
                        (const double[]){950, 1000, 5.2e5, 10});
    /* Evidence: equal bytes, θ 100% over 3 comparisons (θ_low 43.9%) after
     * θ 90% over 200 (θ_low 85.1%), though it has 100x the accesses. */
    expect_second_first((const double[]){3, 3, 1e6, 1000},
                        (const double[]){180, 200, 1e6, 10});

    /* Class sites (no allocated bytes) after allocation sites of their tier,
     * by θ_low × accesses (or comparisons without them); a replicated class
     * site above an allocation site that is not shown to replicate (θ 0 over
     * 4, a GB allocated); one with θ 0 last. */
    wasp_profile *p = wasp_profile_new();
    uint32_t none = ranked_site(p, "pkg.None", 0, 4, 1e9, 1e6);
    uint32_t cls_zero = ranked_site(p, "pkg.ClassZero", 0, 100, 0, 1e6);
    uint32_t cls_few = ranked_site(p, "pkg.ClassFew", 900, 1000, 0, 10);
    uint32_t cls_hot = ranked_site(p, "pkg.ClassHot", 500, 1000, 0, 1e6);
    /* no access samples: weighed by its 1,000 comparisons */
    uint32_t cls_cmp = ranked_site(p, "pkg.ClassCompared", 900, 1000, 0, 0);
    uint32_t small = ranked_site(p, "pkg.Small", 500, 1000, 100, 0);
    expect_order(p, (uint32_t[]){small, cls_hot, cls_cmp, cls_few, none, cls_zero}, 6);
    wasp_profile_free(p);

    /* ties: θ 0 (both weights 0) -> more comparisons first, then site order;
     * a site without a comparison (0 + 0) or without a record is left out */
    p = wasp_profile_new();
    uint32_t s1 = ranked_site(p, "pkg.S1", 0, 10, 1, 0);
    uint32_t s2 = ranked_site(p, "pkg.S2", 0, 50, 1, 0);
    uint32_t s3 = ranked_site(p, "pkg.S3", 0, 10, 1, 0);
    ranked_site(p, "pkg.S4", 0, 0, 1, 0);
    site(p, "pkg.S5", 1, "A[]", 1, 1);
    expect_order(p, (uint32_t[]){s2, s1, s3}, 3);
    wasp_profile_free(p);

    uint32_t n, *o;
    /* none: non-NULL, empty */
    wasp_profile *r = wasp_profile_new();
    o = wasp_profile_sorted_replica_sites(r, &n);
    assert_non_null(o);
    assert_int_equal(n, 0);
    free(o);

    /* a site's records by comparisons */
    wasp_profile *s = sample();
    o = wasp_profile_sorted_site_replicas(s, 0, &n);
    assert_int_equal(n, 2);
    assert_string_equal(leaf_name(s, records(s)[o[0]].access_ctx), "pkg.Grid.copy");
    assert_string_equal(leaf_name(s, records(s)[o[1]].access_ctx), "pkg.Grid.sum");
    free(o);
    wasp_profile_free(r);
    wasp_profile_free(s);
}

/* ---- the file ---- */

static void test_file_roundtrip(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char err[256];
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    if (!q)
        fail_msg("read: %s", err);
    assert_int_equal(nrecords(q), nrecords(p));
    assert_memory_equal(records(q), records(p), nrecords(p) * sizeof *records(p));
    assert_int_equal(nchecks(q), 1);
    assert_int_equal(checks(q)[0].site, checks(p)[0].site); /* ids kept */
    uint32_t d = site_named(q, "pkg.Grid.<init>", "double[]");
    const wasp_replica *r = replica_named(q, d, "pkg.Grid.copy");
    assert_true(r->same == 300 && r->different == 100);
    const wasp_replica_check *c = wasp_profile_replica_check(q, d);
    assert_non_null(c);
    assert_true(c->pairs == 1000 && c->identical == 610 && c->alpha == 0.031 &&
                c->false_positive == 0.04);
    /* the index works in the copy: adding sums into the existing record */
    wasp_profile_add_replica(q, d, r->access_ctx, 1, 0);
    assert_int_equal(nrecords(q), nrecords(p));
    wasp_profile_free(q);

    size_t len, size;
    unsigned char *b = slurp(&len);
    assert_true(find_section(b, len, "REPL", &size) > 0);
    assert_int_equal(size, 12 + 4 + 3 * 24);
    assert_true(find_section(b, len, "RCHK", &size) > 0);
    assert_int_equal(size, 12 + 4 + 1 * 36);
    free(b);

    /* records but no check: no RCHK */
    wasp_profile_free(p);
    p = sample_verified(false);
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    b = slurp(&len);
    assert_true(find_section(b, len, "REPL", &size) > 0);
    assert_int_equal(find_section(b, len, "RCHK", &size), 0);
    free(b);

    /* the writer refuses what the reader would */
    records(p)[1].site = 77;
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "replica record 1"));
    wasp_profile_free(p);

    /* no replica data: no sections; the empty profile stays 128 bytes */
    p = wasp_profile_new();
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    b = slurp(&len);
    assert_int_equal(find_section(b, len, "REPL", &size), 0);
    assert_int_equal(find_section(b, len, "RCHK", &size), 0);
    assert_int_equal(len, 128);
    free(b);
    wasp_profile_free(p);
}

/* A file from before the replica sections (cut out here) reads, with its sites intact. */
static void test_file_without_sections(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char err[256];
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    size_t len, size;
    unsigned char *d = slurp(&len);
    const char *tags[] = {"RCHK", "REPL"};
    for (int t = 0; t < 2; t++) {
        size_t off = find_section(d, len, tags[t], &size);
        assert_true(off > 0);
        memmove(d + off, d + off + size, len - off - size);
        len -= size;
    }
    fix_crc(d, len);
    spill(d, len);
    free(d);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    if (!q)
        fail_msg("old-layout file rejected: %s", err);
    assert_int_equal(nrecords(q), 0);
    assert_int_equal(nchecks(q), 0);
    assert_int_equal(q->nsites, 3);
    uint32_t n;
    wasp_profile_site_accesses(q, &n);
    assert_int_equal(n, 2);
    uint32_t *o = wasp_profile_sorted_replica_sites(q, &n);
    assert_int_equal(n, 0);
    free(o);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

static void corrupt_u32(const char *tag, size_t off, uint32_t v, const char *want)
{
    wasp_profile *p = sample();
    char err[256];
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    wasp_profile_free(p);
    size_t len, size;
    unsigned char *d = slurp(&len);
    size_t at = find_section(d, len, tag, &size);
    assert_true(at > 0);
    for (int i = 0; i < 4; i++)
        d[at + 12 + off + i] = (unsigned char)(v >> (8 * i));
    fix_crc(d, len);
    spill(d, len);
    free(d);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    if (q || !strstr(err, want))
        fail_msg("%s+%zu = %u: expected \"%s\", got %s \"%s\"", tag, off, v, want,
                 q ? "a profile" : "error", err);
}

static void test_file_bad_ids(void **state)
{
    (void)state;
    corrupt_u32("REPL", 4 + 24, 9, "corrupt (replica record 1: site id 9 out of range, 3 sites)");
    corrupt_u32("REPL", 8, 999, "corrupt (replica record 0: context id 999 out of range");
    corrupt_u32("RCHK", 4, 3, "corrupt (replica check 0: site id 3 out of range, 3 sites)");
    corrupt_u32("REPL", 0, 1000, "corrupt (bad entry count in REPL)");
    corrupt_u32("RCHK", 0, 0, "unexpected bytes at the end of section RCHK");
}

/* ---- merge ---- */

static void test_merge(void **state)
{
    (void)state;
    wasp_profile *a = sample();
    /* b interns in another order: a new comparison context first, then the
     * shared double[] site and its copy context */
    wasp_profile *b = wasp_profile_new();
    uint32_t fill = ctx2(b, 12, "pkg.Grid.fill", "Grid.java", 70, "movq %rax, (%rdx)");
    uint32_t bl = site(b, "pkg.Grid.long", 40, "long[]", 5, 5e3);
    uint32_t bd = site(b, "pkg.Grid.<init>", 12, "double[]", 100, 8e5);
    uint32_t copy = ctx2(b, 10, "pkg.Grid.copy", "Grid.java", 80, "vmovsd (%rsi,%rcx,8), %xmm0");
    wasp_profile_add_replica(b, bd, copy, 50, 50);
    wasp_profile_add_replica(b, bd, fill, 7, 3);
    wasp_profile_add_replica(b, bl, fill, 1, 1);
    wasp_replica_check c = {bd, 3000, 2000, 0.041, 0};
    wasp_profile_set_replica_check(b, &c);
    wasp_replica_check cl = {bl, 10, 1, 0.5, 0.25};
    wasp_profile_set_replica_check(b, &cl);

    assert_int_equal(wasp_profile_merge(a, b), 0);
    uint32_t d = site_named(a, "pkg.Grid.<init>", "double[]");
    const wasp_replica *r = replica_named(a, d, "pkg.Grid.copy");
    assert_true(r->same == 350 && r->different == 150);
    r = replica_named(a, d, "pkg.Grid.fill");
    assert_true(r->same == 7 && r->different == 3);
    r = replica_named(a, d, "pkg.Grid.sum");
    assert_true(r->same == 12 && r->different == 0);
    uint32_t l = site_named(a, "pkg.Grid.long", "long[]");
    r = replica_named(a, l, "pkg.Grid.fill");
    assert_true(r->same == 1 && r->different == 1);
    assert_int_equal(nrecords(a), 5);
    /* checks: pairs and identical sum; α and false positives pair-weighted */
    const wasp_replica_check *k = wasp_profile_replica_check(a, d);
    assert_true(k->pairs == 4000 && k->identical == 2610);
    NEAR(k->alpha, (0.031 * 1000 + 0.041 * 3000) / 4000); /* 0.0385 */
    NEAR(k->false_positive, 0.04 * 1000 / 4000);           /* 0.01 */
    k = wasp_profile_replica_check(a, l); /* new in a: copied */
    assert_true(k->pairs == 10 && k->alpha == 0.5 && k->false_positive == 0.25);
    assert_int_equal(nchecks(a), 2);
    NEAR(wasp_replica_theta(a, d, NULL), (350.0 + 7 + 12) / (500 + 10 + 12));
    wasp_profile_free(a);
    wasp_profile_free(b);
}

/* ---- grouping by line ---- */

static void test_group_by_line(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    /* two allocation contexts on the same line (differ by nothing but are
     * the same context) -> one site; comparisons at one line from two
     * instructions -> one record */
    uint32_t s = site(p, "pkg.Grid.<init>", 12, "double[]", 10, 100);
    uint32_t c1 = ctx2(p, 10, "pkg.Grid.copy", "Grid.java", 80, "vmovsd (%rsi), %xmm0");
    uint32_t c2 = ctx2(p, 10, "pkg.Grid.copy", "Grid.java", 80, "vmovsd 0x8(%rsi), %xmm1");
    uint32_t c3 = ctx2(p, 10, "pkg.Grid.copy", "Grid.java", 81, "mov (%rdi), %eax");
    wasp_profile_add_replica(p, s, c1, 10, 10);
    wasp_profile_add_replica(p, s, c2, 30, 0);
    wasp_profile_add_replica(p, s, c3, 1, 1);
    /* the same context used for object accesses is grouped apart */
    wasp_profile_add_site_access(p, s, c1, 5, 0);
    wasp_replica_check c = {s, 100, 40, 0.02, 0.03};
    wasp_profile_set_replica_check(p, &c);

    wasp_profile *q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_int_equal(q->nsites, 1);
    assert_int_equal(nrecords(q), 2);
    const wasp_replica *r = NULL;
    for (uint32_t i = 0; i < nrecords(q); i++)
        if (q->frames[q->frame_refs[q->contexts[records(q)[i].access_ctx].first + 1]].line == 80)
            r = &records(q)[i];
    assert_non_null(r);
    assert_true(r->same == 40 && r->different == 10);
    /* the heaviest instruction (30 comparisons) shows, with the other counted */
    assert_string_equal(wasp_profile_string(q, q->contexts[r->access_ctx].insn),
                        "vmovsd 0x8(%rsi), %xmm1 (+1 more instruction)");
    /* the access context shows its own instruction (c1, the only access) */
    uint32_t nacc;
    const wasp_site_access *acc = wasp_profile_site_accesses(q, &nacc);
    assert_int_equal(nacc, 1);
    assert_string_equal(wasp_profile_string(q, q->contexts[acc[0].access_ctx].insn),
                        "vmovsd (%rsi), %xmm0");
    const wasp_replica_check *k = wasp_profile_replica_check(q, 0);
    assert_non_null(k);
    assert_true(k->pairs == 100 && k->identical == 40 && k->alpha == 0.02 &&
                k->false_positive == 0.03);
    wasp_profile_free(q);

    /* two sites that become one merge their checks */
    wasp_profile *m = wasp_profile_new();
    uint32_t a1[] = {jframe(m, "pkg.Main.main", "Main.java", 5), jframe(m, "pkg.G.<init>", "G.java", 3)};
    uint32_t x1 = wasp_profile_intern_context(m, a1, 2, wasp_profile_intern_string(m, "call A"));
    uint32_t x2 = wasp_profile_intern_context(m, a1, 2, wasp_profile_intern_string(m, "call B"));
    uint32_t cls = wasp_profile_intern_string(m, "G");
    uint32_t m1 = wasp_profile_intern_site(m, x1, cls), m2 = wasp_profile_intern_site(m, x2, cls);
    wasp_profile_add_replica(m, m1, x1, 1, 0);
    wasp_replica_check k1 = {m1, 100, 10, 0.1, 0.2}, k2 = {m2, 300, 30, 0.3, 0};
    wasp_profile_set_replica_check(m, &k1);
    wasp_profile_set_replica_check(m, &k2);
    q = wasp_profile_group_by_line(m);
    assert_non_null(q);
    assert_int_equal(q->nsites, 1);
    assert_int_equal(nchecks(q), 1);
    k = &checks(q)[0];
    assert_true(k->pairs == 400 && k->identical == 40);
    NEAR(k->alpha, 0.25);
    NEAR(k->false_positive, 0.05);
    wasp_profile_free(q);
    wasp_profile_free(m);
    wasp_profile_free(p);
}

/* ---- renderers ---- */

static char *render(const wasp_profile *p, bool json, int top)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(json ? wasp_render_json(p, top, f) : wasp_render_text(p, top, f), 0);
    fclose(f);
    return buf;
}

static void expect(const char *text, const char *want)
{
    if (!strstr(text, want)) {
        fprintf(stderr, "---- rendered:\n%s\n---- missing:\n%s\n----\n", text, want);
        fail_msg("missing text (above)");
    }
}

static size_t count(const char *text, const char *want)
{
    size_t n = 0;
    for (const char *s = text; (s = strstr(s, want)); s += strlen(want))
        n++;
    return n;
}

/* ---- equal comparisons of zero words ---- */

/* The int[] site's equal comparisons were all of zeros, the double[]'s
 * none: the file keeps them (RZER, only when there are some), a merge sums
 * them, and the report says the int[] objects hold mostly zeros, not
 * copies, where the double[] ones stay copies. */
static void test_zeros(void **state)
{
    (void)state;
    wasp_profile *p = sample_verified(false);
    char err[256];
    size_t len, size;
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    unsigned char *b = slurp(&len);
    assert_int_equal(find_section(b, len, "RZER", &size), 0); /* none: none written */
    free(b);

    uint32_t i = site_named(p, "pkg.Grid.idx", "int[]");
    uint32_t copy = replica_named(p, i, "pkg.Grid.copy")->access_ctx;
    /* int[]: 60 of 80 comparisons equal, all zero words */
    wasp_profile_add_replica(p, i, copy, 55, 5);
    wasp_profile_add_replica_zeros(p, i, copy, 60);
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    b = slurp(&len);
    assert_true(find_section(b, len, "RZER", &size) > 0);
    assert_int_equal(size, 12 + 4 + 1 * 24);
    free(b);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    if (!q)
        fail_msg("read: %s", err);
    uint32_t qi = site_named(q, "pkg.Grid.idx", "int[]");
    NEAR(wasp_replica_site_zero(q, qi), 60);
    NEAR(wasp_replica_site_zero(q, site_named(q, "pkg.Grid.<init>", "double[]")), 0);
    assert_int_equal(wasp_profile_merge(q, p), 0); /* the same run twice: sums */
    NEAR(wasp_replica_site_zero(q, qi), 120);
    wasp_profile_free(q);

    char *t = render(p, false, 10);
    expect(t, "over 80 comparisons   int[]   50 allocations (195.3 KiB)\n"
              "      100.0% of the equal comparisons compared zero words (space not yet "
              "written, or zeros written)\n");
    assert_int_equal(count(t, "compared zero words"), 1); /* not the double[] site's */
    expect(t, "int[] objects created here hold mostly zeros: 75.0% of sampled fields equal the "
              "previous object's (95%: 64.5–83.2%, 80 comparisons), 100.0% of those zero (space not yet written, or zeros: "
              "allocate less, later, or reuse one)");
    expect(t, "double[] objects created here are copies of each other");
    free(t);

    /* an instance's zero fields are values (null, 0), not space unwritten */
    uint32_t cell = site(p, "pkg.Grid.cell", 60, "pkg.Cell", 40, 4e4);
    wasp_profile_add_replica(p, cell, copy, 30, 0);
    wasp_profile_add_replica_zeros(p, cell, copy, 30);
    t = render(p, false, 10);
    expect(t, "pkg.Cell objects created here are copies of each other: 100.0% of sampled fields "
              "equal the previous object's (95%: 88.6–100.0%, 30 comparisons), 100.0% of those zero "
              "or null");
    expect(t, "      100.0% of the equal comparisons compared zero or null fields (their default "
              "values)\n");
    assert_int_equal(count(t, "hold mostly zeros"), 1); /* the int[] site's alone */
    free(t);
    t = render(p, true, 0);
    expect(t, "\"zero_equal\": 60");
    free(t);
    wasp_profile_free(p);
}

static void test_render_text(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    /* a second unverified site: still one "need α" line */
    uint32_t f = site(p, "pkg.Grid.flt", 50, "float[]", 1, 64);
    wasp_profile_add_replica(p, f, ctx2(p, 10, "pkg.Grid.copy", "Grid.java", 80, NULL), 1, 1);
    char *t = render(p, false, 10);
    expect(t, "\nObject replicas (OJXPerf)\n"
              "  ranked by replicated bytes (\xce\xb8 \xc3\x97 allocated bytes) at the low end of "
              "\xce\xb8's 95% interval;\n"
              "  sites whose interval reaches below 10% after those that replicate, and class sites\n"
              "  (bytes unknown) after allocation sites, by that low end \xc3\x97 sampled accesses\n"
              "  \xcf\x89 and \xce\xb3 need \xce\xb1: run with --verify-top N\n");
    assert_int_equal(count(t, "need \xce\xb1"), 1);
    /* the double[] site ranks first: θ_low 0.714 × 9.4 MB vs int[] 0.112 × 200 kB;
     * float[] (θ_low 9.5% over 2 comparisons) is not shown to replicate.
     * Each with its replicated bytes (θ × bytes: 312/412 × 9.4e6 = 7,118,447 B,
     * 0.25 × 2e5 = 50,000 B, 0.5 × 64 = 32 B) and θ with its 95% interval
     * (Wilson, worked independently). */
    expect(t, "  #1  replicated 6.8 MiB   \xce\xb8 75.7% (95%: 71.4%-79.6%) over 412 comparisons   double[]   1,204 allocations (9.0 MiB)\n"
              "      \xce\xb1 3.1%  \xcf\x89 = \xce\xb8\xe2\x88\x92\xce\xb1 72.6%  \xce\xb3 86.6%  "
              "(verified: 1,000 object pairs, 61.0% identical; sampled-field false positives 4.0%)\n"
              "      allocated at:\n"
              "        at pkg.Grid.<init>(Grid.java:12)\n"
              "        at pkg.Main.main(Main.java:5)\n"
              "      compared at:\n"
              "        400 comparisons, \xce\xb8 75.0%   vmovsd (%rsi,%rcx,8), %xmm0\n"
              "          at pkg.Grid.copy(Grid.java:80)\n"
              "          at pkg.Main.main(Main.java:10)\n"
              "        12 comparisons, \xce\xb8 100.0%   mov 0x10(%rax), %rdx\n");
    expect(t, "  #2  replicated 48.8 KiB   \xce\xb8 25.0% (95%: 11.2%-46.9%) over 20 comparisons   int[]   50 allocations (195.3 KiB)\n"
              "      allocated at:\n");
    expect(t, "  #3  replicated 32 B   \xce\xb8 50.0% (95%: 9.5%-90.5%) over 2 comparisons   float[]   1 allocation (64 B)\n");
    assert_null(strstr(strstr(t, "Object replicas"), "long[]")); /* never compared */
    free(t);

    /* --top 1: the verified site only -> no "need α" line */
    t = render(p, false, 1);
    assert_null(strstr(t, "need \xce\xb1"));
    expect(t, "... 2 more sites (--top N shows more)");
    free(t);
    wasp_profile_free(p);

    /* events names replicas but nothing recorded */
    p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "replicas");
    t = render(p, false, 10);
    expect(t, "\nObject replicas (OJXPerf)\n  no replica comparisons recorded\n");
    free(t);
    wasp_profile_free(p);

    /* no replicas: no section */
    p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    t = render(p, false, 10);
    assert_null(strstr(t, "Object replicas"));
    free(t);
    t = render(p, true, 0);
    assert_null(strstr(t, "\"replicas\""));
    free(t);
    wasp_profile_free(p);
}

static void test_render_json(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char *t = render(p, true, 0);
    expect(t, "\"replicas\": {");
    /* replicated bytes: θ × bytes, first in the site */
    const char *rb = strstr(t, "\"replicated_bytes\": ");
    assert_non_null(rb);
    assert_true(fabs(strtod(rb + strlen("\"replicated_bytes\": "), NULL) - 312.0 / 412.0 * 9.4e6) <
                1e-3);
    expect(t, "\"theta\": 0.75728155339805");
    expect(t, "\"comparisons\": 412");
    expect(t, "\"same\": 312");
    expect(t, "\"different\": 100");
    expect(t, "\"class\": \"double[]\"");
    expect(t, "\"alpha\": 0.031");
    expect(t, "\"verified\": {\"pairs\": 1000");
    expect(t, "\"identical\": 610");
    expect(t, "\"false_positive\": 0.04}");
    /* the int[] site: no check -> nulls */
    expect(t, "\"alpha\": null");
    expect(t, "\"omega\": null");
    expect(t, "\"gamma\": null");
    expect(t, "\"verified\": null");
    /* frames root first: main before the allocating method */
    const char *alloc = strstr(strstr(t, "\"replicas\""), "\"allocation\"");
    assert_non_null(alloc);
    const char *m = strstr(alloc, "pkg.Main.main"), *g = strstr(alloc, "pkg.Grid.<init>");
    assert_true(m && g && m < g);
    expect(t, "\"instruction\": \"vmovsd (%rsi,%rcx,8), %xmm0\"");
    free(t);
    wasp_profile_free(p);
}

/* A class site (untracked objects, heap/class_site.h): its allocated bytes
 * are unknown, so its replicated bytes are too ("n/a", null), and it ranks
 * after the allocation sites shown to replicate, before those that are not. */
static void test_render_class_site(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "replicas");
    ranked_site(p, "java.lang.Integer", 90, 100, 0, 1000); /* a class site */
    uint32_t arr = site(p, "pkg.Grid.<init>", 12, "double[]", 10, 1024);
    uint32_t zero = site(p, "pkg.Grid.rnd", 13, "long[]", 10, 1e9);
    uint32_t x = ctx2(p, 10, "pkg.Grid.copy", "Grid.java", 80, NULL);
    wasp_profile_add_replica(p, arr, x, 50, 50);
    wasp_profile_add_replica(p, zero, x, 0, 100);
    char *t = render(p, false, 10);
    expect(t, "  #1  replicated 512 B   \xce\xb8 50.0% (95%: 40.4%-59.6%) over 100 comparisons   "
              "double[]   10 allocations (1.0 KiB)\n");
    expect(t, "  #2  replicated n/a   \xce\xb8 90.0% (95%: 82.6%-94.5%) over 100 comparisons   "
              "java.lang.Integer   untracked objects, grouped by class\n");
    expect(t, "  #3  replicated 0 B   \xce\xb8 0.0% (95%: 0.0%-3.7%) over 100 comparisons   long[]");
    free(t);
    t = render(p, true, 0);
    /* sites in rank order: double[], the class site, long[] */
    const char *a = strstr(t, "\"replicated_bytes\": 512.0,");
    const char *b = strstr(t, "\"replicated_bytes\": null,");
    const char *z = strstr(t, "\"replicated_bytes\": 0.0,");
    assert_true(a && b && z && a < b && b < z);
    const char *c = strstr(b, "\"class\": \"java.lang.Integer\"");
    assert_true(c && c < z);
    free(t);
    wasp_profile_free(p);
}

/* The ω and γ JSON numbers match the formulas for the verified site. */
static void test_render_json_bounds(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char *t = render(p, true, 1);
    double theta = 312.0 / 412.0;
    const char *o = strstr(t, "\"omega\": ");
    const char *g = strstr(t, "\"gamma\": ");
    assert_true(o && g);
    NEAR(strtod(o + 9, NULL), theta - 0.031);
    double want = wasp_replica_gamma(theta, 0.031, 1204);
    assert_true(fabs(strtod(g + 9, NULL) - want) < 1e-9 && fabs(want - 0.86616) < 1e-5);
    assert_int_equal(count(t, "\"theta\": "), 2); /* one site, one access shown with --top 1 */
    free(t);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_and_sum),
        cmocka_unit_test(test_theta),
        cmocka_unit_test(test_theta_interval),
        cmocka_unit_test(test_omega_gamma),
        cmocka_unit_test(test_ranking),
        cmocka_unit_test_setup_teardown(test_file_roundtrip, make_file, remove_file),
        cmocka_unit_test_setup_teardown(test_file_without_sections, make_file, remove_file),
        cmocka_unit_test_setup_teardown(test_file_bad_ids, make_file, remove_file),
        cmocka_unit_test(test_merge),
        cmocka_unit_test_setup_teardown(test_zeros, make_file, remove_file),
        cmocka_unit_test(test_group_by_line),
        cmocka_unit_test(test_render_text),
        cmocka_unit_test(test_render_json),
        cmocka_unit_test(test_render_json_bounds),
        cmocka_unit_test(test_render_class_site),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
