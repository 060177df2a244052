/* Object-centric data in the profile model: allocation sites and the
 * accesses to their objects; interning, ranking, the file's SITE and SACC
 * sections, merging and grouping by line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "analysis/objects/profile.h"
#include "profile/group.h"
#include "profile/profile.h"
#include "profile_bytes.h"
#include "pairs_view.h"

#define NOID UINT32_MAX

/* The objects analysis's accesses in p; writable, so that tests can plant
 * what a reader must refuse. */
static wasp_site_access *accesses(const wasp_profile *p)
{
    uint32_t n;
    return (wasp_site_access *)wasp_profile_site_accesses(p, &n);
}

static uint32_t naccesses(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_site_accesses(p, &n);
    return n;
}

static uint32_t jframe(wasp_profile *p, const char *m, const char *file, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, m),
                    file ? wasp_profile_intern_string(p, file) : 0, line};
    return wasp_profile_intern_frame(p, &f);
}

/* A two-frame context: pkg.Main.main(Main.java:root_line) -> leaf(File:line). */
static uint32_t ctx2(wasp_profile *p, int root_line, const char *leaf, const char *file, int line,
                     const char *insn)
{
    uint32_t f[] = {jframe(p, "pkg.Main.main", "Main.java", root_line), jframe(p, leaf, file, line)};
    return wasp_profile_intern_context(p, f, 2, insn ? wasp_profile_intern_string(p, insn) : 0);
}

static const char *leaf_name(const wasp_profile *p, uint32_t ctx)
{
    const wasp_context *c = &p->contexts[ctx];
    assert_true(c->nframes > 0);
    return wasp_profile_string(p, p->frames[p->frame_refs[c->first + c->nframes - 1]].name);
}

static const char *insn_of(const wasp_profile *p, uint32_t ctx)
{
    return wasp_profile_string(p, p->contexts[ctx].insn);
}

/* The site allocated at leaf method `alloc` with class `cls`; fails when absent. */
static const wasp_site *site_named(const wasp_profile *p, const char *alloc, const char *cls,
                                   uint32_t *id)
{
    for (uint32_t i = 0; i < p->nsites; i++) {
        const wasp_site *s = &p->sites[i];
        if (!strcmp(leaf_name(p, s->ctx), alloc) &&
            !strcmp(wasp_profile_string(p, s->class_name), cls)) {
            if (id)
                *id = i;
            return s;
        }
    }
    fail_msg("no site %s at %s", cls, alloc);
    return NULL;
}

/* The access of site from leaf method `from`; fails when absent. */
static const wasp_site_access *access_named(const wasp_profile *p, uint32_t site, const char *from)
{
    for (uint32_t i = 0; i < naccesses(p); i++)
        if (accesses(p)[i].site == site && !strcmp(leaf_name(p, accesses(p)[i].access_ctx), from))
            return &accesses(p)[i];
    fail_msg("no access of site %u from %s", site, from);
    return NULL;
}

/* Two sites: double[] at Grid.<init> (accessed from sum and scale) and
 * String at Names.make (accessed from hash). */
static wasp_profile *sample(void)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore+objects");
    wasp_profile_set_meta(p, "numa_nodes", "2");
    wasp_profile_add_counter(p, "objects.samples", 1000);
    uint32_t ga = ctx2(p, 5, "pkg.Grid.<init>", "Grid.java", 12, NULL);
    uint32_t na = ctx2(p, 6, "pkg.Names.make", "Names.java", 20, NULL);
    uint32_t sum = ctx2(p, 8, "pkg.Grid.sum", "Grid.java", 30, "vmovsd 0x10(%rax,%rcx,8), %xmm0");
    uint32_t scale = ctx2(p, 9, "pkg.Grid.scale", "Grid.java", 40, "vmulsd (%rax), %xmm1");
    uint32_t hash = ctx2(p, 10, "pkg.Names.hash", "Names.java", 50, "movzbl 0x10(%rdx), %eax");
    uint32_t g = wasp_profile_intern_site(p, ga, wasp_profile_intern_string(p, "double[]"));
    uint32_t s = wasp_profile_intern_site(p, na, wasp_profile_intern_string(p, "java.lang.String"));
    wasp_profile_add_site_allocs(p, g, 1204, 9.4e6);
    wasp_profile_add_site_allocs(p, s, 50, 4096);
    wasp_profile_add_site_access(p, g, sum, 600, 60);
    wasp_profile_add_site_access(p, g, scale, 200, 0);
    wasp_profile_add_site_access(p, s, hash, 200, 100);
    return p;
}

static void test_intern_and_sum(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t a = ctx2(p, 1, "A.alloc", "A.java", 2, NULL);
    uint32_t b = ctx2(p, 1, "B.alloc", "B.java", 3, NULL);
    uint32_t x = ctx2(p, 1, "A.read", "A.java", 9, "mov (%rax), %rbx");
    uint32_t arr = wasp_profile_intern_string(p, "int[]");
    uint32_t str = wasp_profile_intern_string(p, "java.lang.String");

    uint32_t s1 = wasp_profile_intern_site(p, a, arr);
    assert_int_equal(s1, 0);
    assert_int_equal(wasp_profile_intern_site(p, a, arr), s1); /* same key, same site */
    uint32_t s2 = wasp_profile_intern_site(p, a, str);       /* other class */
    uint32_t s3 = wasp_profile_intern_site(p, b, arr);       /* other context */
    assert_true(s2 != s1 && s3 != s1 && s3 != s2);
    assert_int_equal(p->nsites, 3);
    assert_int_equal(p->sites[s1].ctx, a);
    assert_int_equal(p->sites[s1].class_name, arr);
    assert_true(p->sites[s1].allocations == 0 && p->sites[s1].bytes == 0);

    wasp_profile_add_site_allocs(p, s1, 2, 2048);
    wasp_profile_add_site_allocs(p, s1, 1, 1024);
    assert_true(p->sites[s1].allocations == 3 && p->sites[s1].bytes == 3072);

    wasp_profile_add_site_access(p, s1, x, 5, 1);
    wasp_profile_add_site_access(p, s1, x, 2.5, 0.5); /* same key: summed */
    wasp_profile_add_site_access(p, s2, x, 1, 0);     /* other site: its own */
    assert_int_equal(naccesses(p), 2);
    assert_true(accesses(p)[0].samples == 7.5 && accesses(p)[0].remote == 1.5);
    double remote;
    assert_true(wasp_profile_site_samples(p, s1, &remote) == 7.5 && remote == 1.5);
    assert_true(wasp_profile_site_samples(p, s3, &remote) == 0 && remote == 0);
    assert_true(wasp_profile_site_samples(p, 99, NULL) == 0);

    /* bad ids are refused and change nothing */
    assert_int_equal(wasp_profile_intern_site(p, 999, arr), NOID);
    assert_int_equal(wasp_profile_intern_site(p, a, 999), NOID);
    wasp_profile_add_site_allocs(p, 99, 1, 1);
    wasp_profile_add_site_access(p, 99, x, 1, 0);
    wasp_profile_add_site_access(p, s1, 999, 1, 0);
    assert_int_equal(p->nsites, 3);
    assert_int_equal(naccesses(p), 2);

    /* many sites and accesses: the indices and chains hold */
    for (int i = 0; i < 3000; i++) {
        char m[32];
        snprintf(m, sizeof m, "C.m%d", i);
        uint32_t c = ctx2(p, 1, m, "C.java", i + 1, NULL);
        uint32_t s = wasp_profile_intern_site(p, c, arr);
        wasp_profile_add_site_access(p, s, x, 1, 0);
        wasp_profile_add_site_access(p, s1, c, 1, 0);
    }
    assert_int_equal(p->nsites, 3003);
    assert_int_equal(naccesses(p), 2 + 6000);
    assert_true(wasp_profile_site_samples(p, s1, NULL) == 7.5 + 3000);
    assert_true(wasp_profile_site_samples(p, 3002, NULL) == 1);
    wasp_profile_free(p);
}

static void test_sorted(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t cls = wasp_profile_intern_string(p, "byte[]");
    uint32_t c[6];
    for (int i = 0; i < 6; i++) {
        char m[16];
        snprintf(m, sizeof m, "S.m%d", i);
        c[i] = ctx2(p, 1, m, "S.java", i + 1, NULL);
    }
    uint32_t s[5];
    for (int i = 0; i < 5; i++)
        s[i] = wasp_profile_intern_site(p, c[i], cls);
    /* samples: s0 10, s1 30 (over two accesses), s2 10, s3 0 (more bytes), s4 0 */
    wasp_profile_add_site_access(p, s[0], c[5], 10, 0);
    wasp_profile_add_site_access(p, s[1], c[4], 12, 0);
    wasp_profile_add_site_access(p, s[1], c[5], 18, 0);
    wasp_profile_add_site_access(p, s[2], c[5], 10, 0);
    wasp_profile_add_site_allocs(p, s[3], 1, 500);
    wasp_profile_add_site_allocs(p, s[4], 1, 100);
    wasp_profile_add_site_allocs(p, s[2], 1, 50); /* ties with s0 on samples; more bytes */
    uint32_t n;
    uint32_t *o = wasp_profile_sorted_sites(p, &n);
    assert_non_null(o);
    assert_int_equal(n, 5);
    uint32_t want[] = {s[1], s[2], s[0], s[3], s[4]};
    for (int i = 0; i < 5; i++)
        assert_int_equal(o[i], want[i]);
    free(o);

    o = wasp_profile_sorted_site_accesses(p, s[1], &n);
    assert_non_null(o);
    assert_int_equal(n, 2);
    assert_true(accesses(p)[o[0]].samples == 18 && accesses(p)[o[1]].samples == 12);
    free(o);
    /* equal samples: lower access context first, whatever the insertion order */
    wasp_profile_add_site_access(p, s[4], c[3], 7, 0);
    wasp_profile_add_site_access(p, s[4], c[1], 7, 0);
    o = wasp_profile_sorted_site_accesses(p, s[4], &n);
    assert_int_equal(n, 2);
    assert_int_equal(accesses(p)[o[0]].access_ctx, c[1]);
    assert_int_equal(accesses(p)[o[1]].access_ctx, c[3]);
    free(o);
    /* none (and an unknown site): an empty, non-NULL list */
    o = wasp_profile_sorted_site_accesses(p, s[3], &n);
    assert_non_null(o);
    assert_int_equal(n, 0);
    free(o);
    o = wasp_profile_sorted_site_accesses(p, 77, &n);
    assert_non_null(o);
    assert_int_equal(n, 0);
    free(o);
    wasp_profile_free(p);

    p = wasp_profile_new();
    o = wasp_profile_sorted_sites(p, &n);
    assert_non_null(o);
    assert_int_equal(n, 0);
    free(o);
    wasp_profile_free(p);
}

static void test_has_objects_and_numa(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    assert_false(wasp_profile_has_objects(p));
    wasp_profile_set_meta(p, "events", "deadstore+silentload");
    assert_false(wasp_profile_has_objects(p));
    wasp_profile_set_meta(p, "events", "objectsx+deadstore");
    assert_false(wasp_profile_has_objects(p));
    wasp_profile_set_meta(p, "events", "deadstore+objects");
    assert_true(wasp_profile_has_objects(p));
    wasp_profile_set_meta(p, "events", "objects");
    assert_true(wasp_profile_has_objects(p));
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_add_counter(p, "objects.samples", 0);
    assert_false(wasp_profile_has_objects(p)); /* the run names its analyses: not objects */
    wasp_profile_free(p);
    p = wasp_profile_new(); /* a profile that names none (an older wasp's): its data decide */
    wasp_profile_add_counter(p, "objects.samples", 0);
    assert_true(wasp_profile_has_objects(p));
    wasp_profile_free(p);
    /* -e replicas tracks objects (sites, address samples) but records no
     * access of the objects analysis: no objects section */
    p = sample();
    wasp_profile_set_meta(p, "events", "replicas");
    assert_true(wasp_profile_has_objects(p)); /* sample() has accesses */
    wasp_profile_free(p);
    p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "replicas");
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, "pkg.A.make"), 0, 3};
    uint32_t fr = wasp_profile_intern_frame(p, &f);
    wasp_profile_intern_site(p, wasp_profile_intern_context(p, &fr, 1, 0),
                             wasp_profile_intern_string(p, "int[]"));
    wasp_profile_add_counter(p, "objects.samples", 10);
    assert_int_equal(p->nsites, 1);
    assert_false(wasp_profile_has_objects(p));
    wasp_profile_free(p);

    p = sample();
    assert_false(wasp_profile_objects_single_node(p)); /* numa_nodes 2 */
    wasp_profile_set_meta(p, "numa_nodes", "1");
    assert_false(wasp_profile_objects_single_node(p)); /* but remote samples recorded */
    for (uint32_t i = 0; i < naccesses(p); i++)
        accesses(p)[i].remote = 0;
    assert_true(wasp_profile_objects_single_node(p));
    wasp_profile_free(p);
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
    /* a file wasp wrote keeps its ids */
    assert_int_equal(q->nsites, p->nsites);
    assert_memory_equal(q->sites, p->sites, p->nsites * sizeof *p->sites);
    assert_int_equal(naccesses(q), naccesses(p));
    assert_memory_equal(accesses(q), accesses(p), naccesses(p) * sizeof *accesses(p));
    /* and by name */
    uint32_t g;
    const wasp_site *s = site_named(q, "pkg.Grid.<init>", "double[]", &g);
    assert_true(s->allocations == 1204 && s->bytes == 9.4e6);
    const wasp_site_access *a = access_named(q, g, "pkg.Grid.sum");
    assert_true(a->samples == 600 && a->remote == 60);
    assert_string_equal(insn_of(q, a->access_ctx), "vmovsd 0x10(%rax,%rcx,8), %xmm0");
    assert_int_equal(q->contexts[s->ctx].insn, 0);
    /* the chains work in the copy */
    assert_true(wasp_profile_site_samples(q, g, NULL) == 800);
    wasp_profile_free(q);

    /* the sections are there, named SITE and SACC */
    size_t len, size;
    unsigned char *d = slurp(&len);
    assert_true(find_section(d, len, "SITE", &size) > 0);
    assert_int_equal(size, 12 + 4 + 2 * 24);
    assert_true(find_section(d, len, "SACC", &size) > 0);
    assert_int_equal(size, 12 + 4 + 3 * 24);
    free(d);
    wasp_profile_free(p);

    /* without object data, no SITE or SACC: the file is what older wasps wrote */
    p = wasp_profile_new();
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    d = slurp(&len);
    assert_int_equal(find_section(d, len, "SITE", &size), 0);
    assert_int_equal(find_section(d, len, "SACC", &size), 0);
    assert_int_equal(len, 128); /* docs/profile-format.md: the empty profile */
    free(d);
    wasp_profile_free(p);

    /* sites but no accesses (a replicas-only run): SITE without SACC */
    p = wasp_profile_new();
    wasp_profile_intern_site(p, ctx2(p, 5, "pkg.Grid.<init>", "Grid.java", 12, NULL),
                             wasp_profile_intern_string(p, "int[]"));
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    d = slurp(&len);
    assert_true(find_section(d, len, "SITE", &size) > 0);
    assert_int_equal(find_section(d, len, "SACC", &size), 0);
    free(d);
    q = wasp_profile_read(path, err, sizeof err);
    assert_non_null(q);
    assert_int_equal(q->nsites, 1);
    assert_int_equal(naccesses(q), 0);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

/* A file from before the object sections (here: sample()'s file with them
 * cut out) reads, with everything else intact and no sites. */
static void test_file_without_sections(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char err[256];
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    size_t len, size;
    unsigned char *d = slurp(&len);
    const char *tags[] = {"SACC", "SITE"};
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
    assert_int_equal(q->nsites, 0);
    assert_int_equal(naccesses(q), 0);
    assert_int_equal(q->ncontexts, p->ncontexts);
    assert_string_equal(wasp_profile_get_meta(q, "events"), "deadstore+objects");
    assert_int_equal(wasp_profile_get_counter(q, "objects.samples"), 1000);
    uint32_t n;
    uint32_t *o = wasp_profile_sorted_sites(q, &n);
    assert_int_equal(n, 0);
    free(o);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

/* Overwrites the u32 at offset off of section tag's payload, fixes the CRC,
 * and expects the read to fail naming want. */
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
    /* payload: u32 count, then entries of {u32, u32, f64, f64} */
    corrupt_u32("SITE", 4, 999, "corrupt (site 0: context id 999 out of range");
    corrupt_u32("SITE", 8, 999, "corrupt (site 0: string id 999 out of range");
    corrupt_u32("SACC", 4 + 24, 7, "corrupt (site access 1: site id 7 out of range, 2 sites)");
    corrupt_u32("SACC", 8, 999, "corrupt (site access 0: context id 999 out of range");
    corrupt_u32("SITE", 0, 1000, "corrupt (bad entry count in SITE)");
    corrupt_u32("SACC", 0, 2, "unexpected bytes at the end of section SACC");

    /* the writer refuses what the reader would */
    wasp_profile *p = sample();
    char err[256];
    accesses(p)[0].site = 42;
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "site access 0"));
    accesses(p)[0].site = 0;
    p->sites[1].ctx = 4242;
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "site 1"));
    wasp_profile_free(p);
}

/* ---- merge ---- */

static void test_merge(void **state)
{
    (void)state;
    wasp_profile *a = sample();
    /* b interns in another order, shares the double[] site and its sum access,
     * adds a new access (fill) to it and a site of its own */
    wasp_profile *b = wasp_profile_new();
    uint32_t cls_new = wasp_profile_intern_string(b, "long[]");
    uint32_t fill = ctx2(b, 11, "pkg.Grid.fill", "Grid.java", 60, "movq %rax, (%rdx)");
    uint32_t sum = ctx2(b, 8, "pkg.Grid.sum", "Grid.java", 30, "vmovsd 0x10(%rax,%rcx,8), %xmm0");
    uint32_t la = ctx2(b, 7, "pkg.Cache.<init>", "Cache.java", 3, NULL);
    uint32_t ga = ctx2(b, 5, "pkg.Grid.<init>", "Grid.java", 12, NULL);
    uint32_t l = wasp_profile_intern_site(b, la, cls_new);
    uint32_t g = wasp_profile_intern_site(b, ga, wasp_profile_intern_string(b, "double[]"));
    wasp_profile_add_site_allocs(b, g, 96, 0.6e6);
    wasp_profile_add_site_allocs(b, l, 1, 8000);
    wasp_profile_add_site_access(b, g, sum, 400, 40);
    wasp_profile_add_site_access(b, g, fill, 100, 0);
    wasp_profile_add_site_access(b, l, fill, 5, 5);
    /* same frames, other class: a different site */
    wasp_profile_intern_site(b, ga, wasp_profile_intern_string(b, "float[]"));

    assert_int_equal(wasp_profile_merge(a, b), 0);
    assert_int_equal(a->nsites, 4);
    uint32_t gid, lid, sid;
    const wasp_site *gs = site_named(a, "pkg.Grid.<init>", "double[]", &gid);
    assert_true(gs->allocations == 1300 && gs->bytes == 10e6);
    site_named(a, "pkg.Grid.<init>", "float[]", NULL);
    const wasp_site *ls = site_named(a, "pkg.Cache.<init>", "long[]", &lid);
    assert_true(ls->allocations == 1 && ls->bytes == 8000);
    const wasp_site *ss = site_named(a, "pkg.Names.make", "java.lang.String", &sid);
    assert_true(ss->allocations == 50 && ss->bytes == 4096);

    const wasp_site_access *x = access_named(a, gid, "pkg.Grid.sum");
    assert_true(x->samples == 1000 && x->remote == 100);
    x = access_named(a, gid, "pkg.Grid.fill");
    assert_true(x->samples == 100 && x->remote == 0);
    x = access_named(a, gid, "pkg.Grid.scale");
    assert_true(x->samples == 200);
    x = access_named(a, lid, "pkg.Grid.fill");
    assert_true(x->samples == 5 && x->remote == 5);
    assert_int_equal(naccesses(a), 5);
    assert_true(wasp_profile_site_samples(a, gid, NULL) == 1300);

    /* ranking after the merge: double[] (1300), String (200), long[] (5), float[] (0) */
    uint32_t n;
    uint32_t *o = wasp_profile_sorted_sites(a, &n);
    assert_int_equal(n, 4);
    assert_int_equal(o[0], gid);
    assert_int_equal(o[1], sid);
    assert_int_equal(o[2], lid);
    free(o);
    wasp_profile_free(b);
    wasp_profile_free(a);

    /* merging a profile with no objects leaves them as they were */
    a = sample();
    b = wasp_profile_new();
    assert_int_equal(wasp_profile_merge(a, b), 0);
    assert_int_equal(a->nsites, 2);
    assert_int_equal(naccesses(a), 3);
    wasp_profile_free(b);
    wasp_profile_free(a);
}

/* ---- grouping by line ---- */

static void test_group_by_line(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t arr = wasp_profile_intern_string(p, "double[]");
    uint32_t alloc = ctx2(p, 5, "pkg.Grid.<init>", "Grid.java", 12, NULL);
    /* two loads of one line (an unrolled loop), and another line */
    uint32_t l1 = ctx2(p, 8, "pkg.Grid.sum", "Grid.java", 30, "vmovsd 0x10(%rax), %xmm0");
    uint32_t l2 = ctx2(p, 8, "pkg.Grid.sum", "Grid.java", 30, "vmovsd 0x18(%rax), %xmm1");
    uint32_t other = ctx2(p, 8, "pkg.Grid.sum", "Grid.java", 31, "vaddsd (%rbx), %xmm0");
    /* the same frames as l1 used by a dead-store pair: grouped apart */
    uint32_t st = ctx2(p, 8, "pkg.Grid.sum", "Grid.java", 30, "movsd %xmm0, (%rcx)");
    uint32_t s = wasp_profile_intern_site(p, alloc, arr);
    wasp_profile_add_site_allocs(p, s, 10, 80000);
    wasp_profile_add_site_access(p, s, l1, 30, 3);
    wasp_profile_add_site_access(p, s, l2, 70, 7);
    wasp_profile_add_site_access(p, s, other, 5, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, st, st, 64, 1);

    wasp_profile *q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_int_equal(q->nsites, 1);
    assert_true(q->sites[0].allocations == 10 && q->sites[0].bytes == 80000);
    assert_int_equal(q->contexts[q->sites[0].ctx].insn, 0); /* allocation: no instruction */
    assert_string_equal(leaf_name(q, q->sites[0].ctx), "pkg.Grid.<init>");
    assert_int_equal(naccesses(q), 2);
    uint32_t n;
    uint32_t *o = wasp_profile_sorted_site_accesses(q, 0, &n);
    assert_int_equal(n, 2);
    const wasp_site_access *a = &accesses(q)[o[0]];
    assert_true(a->samples == 100 && a->remote == 10);
    /* the heavier instruction shows, with the count of the others */
    assert_string_equal(insn_of(q, a->access_ctx),
                        "vmovsd 0x18(%rax), %xmm1 (+1 more instruction)");
    assert_true(accesses(q)[o[1]].samples == 5);
    assert_string_equal(insn_of(q, accesses(q)[o[1]].access_ctx), "vaddsd (%rbx), %xmm0");
    free(o);
    /* the dead-store pair keeps its store instruction */
    assert_int_equal(pair_count(q), 1);
    assert_string_equal(insn_of(q, pairs_of(q)[0].watch_ctx), "movsd %xmm0, (%rcx)");
    wasp_profile_free(q);

    /* sites whose allocation contexts differ only in an instruction merge too */
    uint32_t alloc2 = ctx2(p, 5, "pkg.Grid.<init>", "Grid.java", 12, "call 0x1234");
    uint32_t s2 = wasp_profile_intern_site(p, alloc2, arr);
    wasp_profile_add_site_allocs(p, s2, 1, 8000);
    wasp_profile_add_site_access(p, s2, l1, 1, 0);
    q = wasp_profile_group_by_line(p);
    assert_non_null(q);
    assert_int_equal(q->nsites, 1);
    assert_true(q->sites[0].allocations == 11 && q->sites[0].bytes == 88000);
    assert_true(wasp_profile_site_samples(q, 0, NULL) == 106);
    wasp_profile_free(q);

    /* an inconsistent site is refused */
    p->sites[0].ctx = 9999;
    assert_null(wasp_profile_group_by_line(p));
    wasp_profile_free(p);
}

/* ---- where untracked objects' classes are allocated ---- */

/* The (class, leaf method) entry of q's untracked allocations; fails when absent. */
static const wasp_untracked_alloc *untracked_named(const wasp_profile *q, const char *cls,
                                                   const char *leaf)
{
    uint32_t n;
    const wasp_untracked_alloc *u = wasp_profile_untracked_allocs(q, &n);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(wasp_profile_string(q, u[i].cls), cls) == 0 &&
            strcmp(leaf_name(q, u[i].ctx), leaf) == 0)
            return &u[i];
    fail_msg("no untracked allocation of %s at %s", cls, leaf);
    return NULL;
}

static void test_untracked_allocs(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    uint32_t cell = wasp_profile_intern_string(p, "pkg.Cell");
    uint32_t mk = ctx2(p, 9, "pkg.Grid.cell", "Grid.java", 40, NULL);
    uint32_t other = ctx2(p, 9, "pkg.Grid.spare", "Grid.java", 41, NULL);
    assert_int_equal(wasp_profile_add_untracked_alloc(p, cell, mk, 30, 30 * 56), 0);
    assert_int_equal(wasp_profile_add_untracked_alloc(p, cell, mk, 10, 10 * 56), 0);
    assert_int_equal(wasp_profile_add_untracked_alloc(p, cell, other, 2, 112), 0);
    assert_int_equal(wasp_profile_add_untracked_alloc(p, cell, 99999, 1, 1), -1); /* bad ctx */
    uint32_t n;
    wasp_profile_untracked_allocs(p, &n);
    assert_int_equal(n, 2);
    const wasp_untracked_alloc *u = untracked_named(p, "pkg.Cell", "pkg.Grid.cell");
    assert_true(u->allocations == 40 && u->bytes == 40 * 56);

    /* through a file: section SUNT, the entries as they were */
    char err[256];
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    size_t len, size;
    unsigned char *d = slurp(&len);
    assert_true(find_section(d, len, "SUNT", &size) > 0);
    free(d);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    if (!q)
        fail_msg("read: %s", err);
    u = untracked_named(q, "pkg.Cell", "pkg.Grid.spare");
    assert_true(u->allocations == 2 && u->bytes == 112);

    /* a merge sums equal (class, context) entries */
    assert_int_equal(wasp_profile_merge(q, p), 0);
    u = untracked_named(q, "pkg.Cell", "pkg.Grid.cell");
    assert_true(u->allocations == 80 && u->bytes == 80 * 56);

    /* pruning counts the allocation contexts as a kind of their own (two
     * here, within their share of 6): they stay as they are */
    uint32_t pruned = 0;
    wasp_profile *r = wasp_profile_prune(q, 6, &pruned);
    assert_non_null(r);
    wasp_profile_untracked_allocs(r, &n);
    assert_int_equal(n, 2);
    u = untracked_named(r, "pkg.Cell", "pkg.Grid.cell");
    assert_true(u->allocations == 80);
    assert_true(pruned >= 1); /* the sites' and accesses' 5 contexts, 4 kept */
    wasp_profile_free(r);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intern_and_sum),
        cmocka_unit_test(test_sorted),
        cmocka_unit_test(test_has_objects_and_numa),
        cmocka_unit_test_setup_teardown(test_file_roundtrip, make_file, remove_file),
        cmocka_unit_test_setup_teardown(test_file_without_sections, make_file, remove_file),
        cmocka_unit_test_setup_teardown(test_file_bad_ids, make_file, remove_file),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_group_by_line),
        cmocka_unit_test_setup_teardown(test_untracked_allocs, make_file, remove_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
