/* The profile file: round trip, damaged and foreign files, unknown sections,
 * atomic replacement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "profile/profile.h"
#include "pairs_view.h"

static char dir[256];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/wasp-test-file-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[512];
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (remove(path) != 0)
            rmdir(path);
    }
    if (d)
        closedir(d);
    return rmdir(dir);
}

static const char *in_dir(const char *name)
{
    static char path[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

/* A profile using every part of the model. */
static wasp_profile *sample(void)
{
    wasp_profile *p = wasp_profile_new();
    uint32_t s_main = wasp_profile_intern_string(p, "pkg.Main.main");
    uint32_t s_work = wasp_profile_intern_string(p, "pkg.Main.work");
    uint32_t s_file = wasp_profile_intern_string(p, "Main.java");
    wasp_frame f[] = {
        {WASP_FRAME_JAVA, s_main, s_file, 10},
        {WASP_FRAME_JAVA, s_work, s_file, 42},
        {WASP_FRAME_NATIVE, wasp_profile_intern_string(p, "libc.so.6`memset"),
         wasp_profile_intern_string(p, "/lib/x86_64-linux-gnu/libc.so.6"), -1},
        {WASP_FRAME_STUB, wasp_profile_intern_string(p, "StubRoutines::arraycopy"), 0, -1},
        {WASP_FRAME_UNKNOWN, wasp_profile_intern_string(p, "[no Java frames: -2]"), 0, -1},
    };
    uint32_t id[5];
    for (int i = 0; i < 5; i++)
        id[i] = wasp_profile_intern_frame(p, &f[i]);
    uint32_t c1f[] = {id[0], id[1]}, c2f[] = {id[0], id[1], id[3], id[2]}, c3f[] = {id[4]};
    uint32_t c1 = wasp_profile_intern_context(
        p, c1f, 2, wasp_profile_intern_string(p, "0x7f3a2c10: movl %eax, 0x10(%rbx)"));
    uint32_t c2 = wasp_profile_intern_context(p, c2f, 4, 0);
    uint32_t c3 = wasp_profile_intern_context(p, c3f, 1, 0);
    uint32_t c4 = wasp_profile_intern_context(p, NULL, 0, 0);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c1, c2, 37000, 900);
    wasp_profile_add_pair(p, WASP_AN_SILENTSTORE, 0, c2, c3, 0.1, 1.0 / 3);
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, WASP_PAIR_APPROX, c3, c4, 1e300, 2);
    wasp_totals t[] = {{123456, 50000, 0, 3000}, {1, 0.5, 0.25, 2}, {3e300, 1e300, 0, 7}};
    for (int a = 0; a < WASP_AN_COUNT; a++)
        wasp_profile_add_totals(p, (wasp_analysis)a, &t[a]);
    wasp_profile_set_meta(p, "java_command", "java -cp x Main \"arg with spaces\"");
    wasp_profile_set_meta(p, "sampler", "soft");
    wasp_profile_set_meta(p, "empty", "");
    wasp_profile_add_counter(p, "samples", 12345);
    wasp_profile_add_counter(p, "dropped.gc", 3);
    wasp_profile_add_counter(p, "big", UINT64_MAX);
    p->merged = 7;
    return p;
}

static void assert_same(const wasp_profile *a, const wasp_profile *b)
{
    assert_int_equal(a->nstrings, b->nstrings);
    for (uint32_t i = 0; i < a->nstrings; i++)
        assert_string_equal(a->strings[i], b->strings[i]);
    assert_int_equal(a->nframes, b->nframes);
    assert_memory_equal(a->frames, b->frames, a->nframes * sizeof *a->frames);
    assert_int_equal(a->ncontexts, b->ncontexts);
    for (uint32_t i = 0; i < a->ncontexts; i++) {
        const wasp_context *x = &a->contexts[i], *y = &b->contexts[i];
        assert_int_equal(x->nframes, y->nframes);
        assert_int_equal(x->insn, y->insn);
        for (uint32_t j = 0; j < x->nframes; j++)
            assert_int_equal(a->frame_refs[x->first + j], b->frame_refs[y->first + j]);
    }
    assert_int_equal(pair_count(a), pair_count(b));
    assert_memory_equal(pairs_of(a), pairs_of(b), pair_count(a) * sizeof(wasp_pair)); /* doubles bit-exact */
    for (int k = 0; k < WASP_AN_COUNT; k++) {
        wasp_totals ta = totals_of(a, (wasp_analysis)k), tb = totals_of(b, (wasp_analysis)k);
        assert_memory_equal(&ta, &tb, sizeof ta);
    }
    assert_int_equal(a->nmeta, b->nmeta);
    for (uint32_t i = 0; i < a->nmeta; i++) {
        assert_string_equal(a->meta[i].key, b->meta[i].key);
        assert_string_equal(a->meta[i].value, b->meta[i].value);
    }
    assert_int_equal(a->ncounters, b->ncounters);
    for (uint32_t i = 0; i < a->ncounters; i++) {
        assert_string_equal(a->counters[i].name, b->counters[i].name);
        assert_true(a->counters[i].value == b->counters[i].value);
    }
    assert_int_equal(a->merged, b->merged);
}

static unsigned char *load(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static unsigned char buf[1 << 16];
    *len = fread(buf, 1, sizeof buf, f);
    assert_true(*len < sizeof buf);
    fclose(f);
    return buf;
}

static void store(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void put_crc(unsigned char *data, size_t len)
{
    uint32_t c = (uint32_t)crc32(0, data, (uInt)(len - 4));
    for (int i = 0; i < 4; i++)
        data[len - 4 + i] = (unsigned char)(c >> (8 * i));
}

/* Reads path, expecting failure with a message containing want. */
static void expect_read_error(const char *path, const char *want)
{
    char err[256] = "";
    wasp_profile *p = wasp_profile_read(path, err, sizeof err);
    if (p || !strstr(err, want))
        fail_msg("reading %s: expected an error with \"%s\", got %s \"%s\"", path, want,
                 p ? "a profile" : "error", err);
}

static void test_roundtrip(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char err[256];
    const char *path = in_dir("rt.wprof");
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    assert_non_null(q);
    assert_same(p, q);
    /* the copy is fully usable: interning finds existing entries */
    assert_int_equal(wasp_profile_intern_string(q, "pkg.Main.work"),
                     wasp_profile_intern_string(p, "pkg.Main.work"));
    assert_int_equal(q->nstrings, p->nstrings);
    wasp_profile_free(p);
    wasp_profile_free(q);
}

static void test_roundtrip_empty(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    char err[256];
    const char *path = in_dir("empty.wprof");
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    assert_non_null(q);
    assert_same(p, q);
    wasp_profile_free(p);
    wasp_profile_free(q);
}

static void test_file_layout(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    char err[256];
    const char *path = in_dir("layout.wprof");
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    size_t len;
    unsigned char *d = load(path, &len);
    assert_memory_equal(d, "WASPPROF\x01\x00\x00\x00", 12);
    /* the last section before the CRC is END_, length 0 */
    assert_memory_equal(d + len - 16, "END_\0\0\0\0\0\0\0\0", 12);
    uint32_t crc = (uint32_t)crc32(0, d, (uInt)(len - 4));
    assert_int_equal(d[len - 4] | d[len - 3] << 8 | d[len - 2] << 16 | (uint32_t)d[len - 1] << 24,
                     crc);
    wasp_profile_free(p);
}

static void test_missing_file(void **state)
{
    (void)state;
    expect_read_error(in_dir("does-not-exist.wprof"), "No such file");
    expect_read_error(dir, "Is a directory");
}

static void test_foreign_file(void **state)
{
    (void)state;
    const char *path = in_dir("foreign.txt");
    store(path, "hello, I am a text file and not a profile\n", 42);
    expect_read_error(path, "not a wasp profile (bad magic)");
    store(path, "", 0);
    expect_read_error(path, "not a wasp profile");
    store(path, "WASPP", 5); /* a cut-off magic is a truncated profile */
    expect_read_error(path, "truncated");
}

static void test_truncated(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char err[256];
    const char *path = in_dir("full.wprof"), *cut = in_dir("cut.wprof");
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    size_t len;
    unsigned char *d = load(path, &len);
    size_t at[] = {1,   7,       8,        11,       12,      13,      23,     24,
                   100, len / 2, len - 17, len - 16, len - 5, len - 4, len - 1};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        store(cut, d, at[i]);
        char e[256] = "";
        wasp_profile *q = wasp_profile_read(cut, e, sizeof e);
        if (q || (!strstr(e, "truncated") && !strstr(e, "checksum")))
            fail_msg("cut at %zu of %zu: got \"%s\"", at[i], len, q ? "a profile" : e);
    }
    /* a cut in the middle of a section is recognised as such */
    store(cut, d, len / 2);
    expect_read_error(cut, "truncated");
    wasp_profile_free(p);
}

static void test_flipped_byte(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char err[256];
    const char *path = in_dir("good.wprof"), *bad = in_dir("flipped.wprof");
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    size_t len;
    unsigned char *orig = load(path, &len);
    unsigned char *d = malloc(len);
    /* Every single flipped byte is caught, whatever it hits. */
    for (size_t i = 0; i < len; i++) {
        memcpy(d, orig, len);
        d[i] ^= 0x20;
        store(bad, d, len);
        char e[256] = "";
        wasp_profile *q = wasp_profile_read(bad, e, sizeof e);
        if (q)
            fail_msg("flipping byte %zu of %zu went unnoticed", i, len);
    }
    /* a flip inside a string's bytes is a checksum failure */
    memcpy(d, orig, len);
    unsigned char *s = memmem(d, len, "pkg.Main.work", 13);
    assert_non_null(s);
    s[4] ^= 1;
    store(bad, d, len);
    expect_read_error(bad, "corrupt (checksum)");
    free(d);
    wasp_profile_free(p);
}

static void test_newer_version(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char err[256];
    const char *path = in_dir("v2.wprof");
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    size_t len;
    unsigned char *d = load(path, &len);
    d[8] = 2;
    put_crc(d, len);
    store(path, d, len);
    expect_read_error(path, "written by a newer wasp, format 2");
    wasp_profile_free(p);
}

static void test_unknown_section_skipped(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char err[256];
    const char *path = in_dir("extra.wprof");
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    size_t len;
    unsigned char *d = load(path, &len);
    /* Insert "OBJS" (7 payload bytes) before the END section, fix the CRC. */
    static const unsigned char extra[] = {'O', 'B', 'J', 'S', 7, 0, 0, 0, 0, 0,
                                          0,   0,   1,   2,   3, 4, 5, 6, 7};
    size_t end_at = len - 16, nlen = len + sizeof extra;
    unsigned char *n = malloc(nlen);
    memcpy(n, d, end_at);
    memcpy(n + end_at, extra, sizeof extra);
    memcpy(n + end_at + sizeof extra, d + end_at, 16);
    put_crc(n, nlen);
    store(path, n, nlen);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    if (!q)
        fail_msg("unknown section not skipped: %s", err);
    assert_same(p, q);
    wasp_profile_free(q);
    free(n);
    wasp_profile_free(p);
}

/* Little-endian helpers to hand-craft files the writer would never produce. */
struct craft {
    unsigned char b[512];
    size_t n;
};
static void c_u32(struct craft *c, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        c->b[c->n++] = (unsigned char)(v >> (8 * i));
}
static void c_u64(struct craft *c, uint64_t v)
{
    c_u32(c, (uint32_t)v);
    c_u32(c, (uint32_t)(v >> 32));
}
static void c_f64(struct craft *c, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    c_u64(c, u);
}
/* A PAIR entry of context 0 to context 0, one sample. */
static void c_pair(struct craft *c, uint32_t analysis, double bytes)
{
    c_u32(c, analysis);
    for (int i = 0; i < 3; i++)
        c_u32(c, 0); /* flags, watch, trap */
    c_f64(c, bytes);
    c_f64(c, 1);
}
static void c_tag(struct craft *c, const char *tag, uint64_t len)
{
    memcpy(c->b + c->n, tag, 4);
    c->n += 4;
    c_u64(c, len);
}
static void c_head(struct craft *c)
{
    memcpy(c->b, "WASPPROF", 8);
    c->n = 8;
    c_u32(c, 1);
    c_tag(c, "STRS", 13); /* two strings: "" and "x" */
    c_u32(c, 2);
    c_u32(c, 0);
    c_u32(c, 1);
    c->b[c->n++] = 'x';
}
static void c_finish(struct craft *c, const char *path)
{
    c_tag(c, "END_", 0);
    c_u32(c, 0);
    put_crc(c->b, c->n);
    store(path, c->b, c->n);
}

static void test_out_of_range_ids(void **state)
{
    (void)state;
    const char *path = in_dir("ids.wprof");
    struct craft c;

    c_head(&c); /* a frame naming string 5 of 2 */
    c_tag(&c, "FRMS", 20);
    c_u32(&c, 1);
    c_u32(&c, WASP_FRAME_JAVA);
    c_u32(&c, 5);
    c_u32(&c, 0);
    c_u32(&c, 1);
    c_finish(&c, path);
    expect_read_error(path, "out of range");

    c_head(&c); /* a context with frame 3 of 0 */
    c_tag(&c, "CTXS", 16);
    c_u32(&c, 1);
    c_u32(&c, 0);
    c_u32(&c, 1);
    c_u32(&c, 3);
    c_finish(&c, path);
    expect_read_error(path, "out of range");

    c_head(&c); /* a pair of context 0 when there are none */
    c_tag(&c, "PAIR", 36);
    c_u32(&c, 1);
    for (int i = 0; i < 4; i++)
        c_u32(&c, 0);
    c_u64(&c, 0);
    c_u64(&c, 0);
    c_finish(&c, path);
    expect_read_error(path, "out of range");

    c_head(&c); /* a count far beyond what the section holds */
    c_tag(&c, "FRMS", 4);
    c_u32(&c, 0x10000000);
    c_finish(&c, path);
    expect_read_error(path, "corrupt");

    c_head(&c); /* and the minimal valid file reads */
    c_finish(&c, path);
    char err[256];
    wasp_profile *p = wasp_profile_read(path, err, sizeof err);
    if (!p)
        fail_msg("minimal file rejected: %s", err);
    assert_int_equal(p->nstrings, 2);
    assert_string_equal(p->strings[1], "x");
    assert_int_equal(p->merged, 1);
    wasp_profile_free(p);
}

/* A pair or totals entry of an analysis a newer wasp knows (id 3 and up) is
 * skipped; the known ones beside it are read. */
static void test_unknown_analysis_skipped(void **state)
{
    (void)state;
    const char *path = in_dir("newer.wprof");
    struct craft c;
    c_head(&c);
    c_tag(&c, "CTXS", 12); /* one context: no frames, instruction "x" */
    c_u32(&c, 1);
    c_u32(&c, 1);
    c_u32(&c, 0);
    c_tag(&c, "PAIR", 4 + 2 * 32);
    c_u32(&c, 2);
    c_pair(&c, 7, 99);
    c_pair(&c, WASP_AN_SILENTSTORE, 8);
    c_tag(&c, "TOTL", 4 + 36);
    c_u32(&c, 1);
    c_u32(&c, 5);
    for (int i = 0; i < 4; i++)
        c_f64(&c, 100);
    c_finish(&c, path);
    char err[256];
    wasp_profile *p = wasp_profile_read(path, err, sizeof err);
    if (!p)
        fail_msg("a newer analysis's pair not skipped: %s", err);
    assert_int_equal(pair_count(p), 1);
    assert_int_equal(pairs_of(p)[0].analysis, WASP_AN_SILENTSTORE);
    assert_true(pairs_of(p)[0].bytes == 8);
    for (int a = 0; a < WASP_AN_COUNT; a++)
        assert_true(totals_of(p, (wasp_analysis)a).bytes == 0);
    wasp_profile_free(p);
}

/* Every id of a profile that was read must be in range (renderers index with them). */
static void assert_consistent(const wasp_profile *p)
{
    for (uint32_t i = 0; i < p->nframes; i++)
        assert_true(p->frames[i].name < p->nstrings && p->frames[i].file < p->nstrings);
    for (uint32_t i = 0; i < p->ncontexts; i++) {
        const wasp_context *c = &p->contexts[i];
        assert_true(c->insn < p->nstrings);
        assert_true(c->first <= p->nframe_refs && c->nframes <= p->nframe_refs - c->first);
        for (uint32_t j = 0; j < c->nframes; j++)
            assert_true(p->frame_refs[c->first + j] < p->nframes);
    }
    for (uint32_t i = 0; i < pair_count(p); i++) {
        assert_true(pairs_of(p)[i].analysis < WASP_AN_COUNT);
        assert_true(pairs_of(p)[i].watch_ctx < p->ncontexts && pairs_of(p)[i].trap_ctx < p->ncontexts);
    }
    assert_true(p->merged >= 1);
}

/* Damage that keeps the checksum valid (a buggy writer, not a bad disk): every
 * byte changed in turn, CRC recomputed. The reader must refuse or return a
 * consistent profile, never crash. */
static void test_damage_behind_valid_crc(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char err[256];
    const char *path = in_dir("base.wprof"), *bad = in_dir("mutant.wprof");
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    size_t len;
    unsigned char *orig = load(path, &len);
    unsigned char *d = malloc(len);
    static const unsigned char deltas[] = {0x01, 0x80, 0xff};
    int accepted = 0, refused = 0;
    for (size_t i = 12; i < len - 4; i++) {
        for (size_t k = 0; k < sizeof deltas; k++) {
            memcpy(d, orig, len);
            d[i] ^= deltas[k];
            put_crc(d, len);
            store(bad, d, len);
            wasp_profile *q = wasp_profile_read(bad, err, sizeof err);
            if (q) {
                assert_consistent(q);
                wasp_profile_free(q);
                accepted++;
            } else {
                refused++;
            }
        }
    }
    /* both outcomes happen: values change silently, structure does not */
    assert_true(accepted > 0 && refused > 0);
    free(d);
    wasp_profile_free(p);
}

static int count_entries(const char *d)
{
    DIR *dd = opendir(d);
    int n = 0;
    struct dirent *e;
    while (dd && (e = readdir(dd)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (dd)
        closedir(dd);
    return n;
}

static void test_write_leaves_no_temp(void **state)
{
    (void)state;
    char sub[512];
    snprintf(sub, sizeof sub, "%s/clean", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/p.wprof", sub);
    wasp_profile *p = sample();
    char err[256];
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0); /* replaces */
    assert_int_equal(count_entries(sub), 1);
    unlink(path);
    rmdir(sub);
    wasp_profile_free(p);
}

static void test_write_nonexistent_dir(void **state)
{
    (void)state;
    wasp_profile *p = sample();
    char err[256] = "", path[600];
    snprintf(path, sizeof path, "%s/no/such/dir/p.wprof", dir);
    int before = count_entries(dir);
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "No such file or directory"));
    assert_int_equal(count_entries(dir), before);
    wasp_profile_free(p);
}

/* Writes good, then a different profile that fails to write; good survives. */
static void check_old_survives(const char *path, wasp_profile *good)
{
    char err[256];
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    if (!q)
        fail_msg("old profile unreadable after a failed write: %s", err);
    assert_same(good, q);
    wasp_profile_free(q);
}

static void test_write_failure_keeps_old_file(void **state)
{
    (void)state;
    wasp_profile *good = sample(), *other = wasp_profile_new();
    wasp_profile_set_meta(other, "sampler", "other");
    char err[256], tmp[600];
    const char *path = in_dir("keep.wprof");
    assert_int_equal(wasp_profile_write(good, path, err, sizeof err), 0);

    /* 1. The temporary's name is taken by a directory: creating it fails. */
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    assert_int_equal(mkdir(tmp, 0755), 0);
    err[0] = 0;
    assert_int_equal(wasp_profile_write(other, path, err, sizeof err), -1);
    assert_true(err[0] != 0);
    check_old_survives(path, good);
    rmdir(tmp);

    /* 2. The write itself fails half-way (file size limit): the temporary goes. */
    struct rlimit old, small = {.rlim_cur = 64, .rlim_max = RLIM_INFINITY};
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small.rlim_max = old.rlim_max;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rc = wasp_profile_write(good, path, err, sizeof err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, prev);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "cannot write"));
    assert_int_equal(access(tmp, F_OK), -1);
    check_old_survives(path, good);

    wasp_profile_free(good);
    wasp_profile_free(other);
}

static void test_readonly_dir_unprivileged(void **state)
{
    (void)state;
    if (geteuid() == 0)
        skip(); /* root writes anywhere; covered by the temp-name and size-limit cases */
    wasp_profile *p = sample();
    char err[256];
    const char *path = in_dir("ro.wprof");
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    wasp_profile *other = wasp_profile_new();
    assert_int_equal(chmod(dir, 0555), 0);
    int rc = wasp_profile_write(other, path, err, sizeof err);
    chmod(dir, 0755);
    wasp_profile_free(other);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "Permission denied"));
    check_old_survives(path, p);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_roundtrip_empty),
        cmocka_unit_test(test_file_layout),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_foreign_file),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_flipped_byte),
        cmocka_unit_test(test_newer_version),
        cmocka_unit_test(test_unknown_section_skipped),
        cmocka_unit_test(test_out_of_range_ids),
        cmocka_unit_test(test_unknown_analysis_skipped),
        cmocka_unit_test(test_damage_behind_valid_crc),
        cmocka_unit_test(test_write_leaves_no_temp),
        cmocka_unit_test(test_write_nonexistent_dir),
        cmocka_unit_test(test_write_failure_keeps_old_file),
        cmocka_unit_test(test_readonly_dir_unprivileged),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
