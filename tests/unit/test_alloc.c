/*
 * The alloc analysis's pure parts: the class-word store scan
 * (isa/class_store.h) on hand-assembled instructions, and the profile's
 * entries and rankings (analysis/alloc). Instruction bytes were produced with
 * GNU as + objdump -d; the comment next to each is objdump's text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/alloc/profile.h"
#include "analysis/alloc/ranking.h"
#include "render_string.h"
#include "isa/class_store.h"
#include "profile/bytes.h"
#include "profile/codec.h"
#include "profile/profile.h"

#define PC 0x7f0000001000ull
#define OBJ 0x7000010000ull /* rax: the new object */
enum { RAX, RCX, RDX, RBX };

static wasp_regs regs(void)
{
    wasp_regs r = {0};
    for (int i = 0; i < WASP_REG_COUNT; i++)
        r.gpr[i] = 0x10000ull * (uint64_t)(i + 1);
    r.gpr[RAX] = OBJ;
    r.gpr[RCX] = 0xc05678; /* a narrow class in a register */
    r.rip = PC;
    return r;
}

/* The caller's checks, recorded: every offer is seen; refuse rejects all. */
typedef struct offers {
    int n, refuse;
    uint64_t obj, word;
} offers;

static int accept(uint64_t obj, uint64_t word, void *arg)
{
    offers *o = arg;
    o->n++;
    o->obj = obj;
    o->word = word;
    return !o->refuse;
}

/* Scans code (at PC) and before (ending at PC) for a 4-byte class word at 8. */
static wasp_class_store_found scan(const uint8_t *before, size_t nb, const uint8_t *code,
                                   size_t n, offers *o, wasp_class_store *cs)
{
    wasp_regs r = regs();
    memset(cs, 0xa5, sizeof *cs);
    return wasp_isa_find_class_store(before, nb, code, n, PC, &r, 8, 4, 12, accept, o, cs);
}

#define MARK 0x48, 0xc7, 0x00, 0x01, 0x00, 0x00, 0x00     /* movq $0x1,(%rax) */
#define KLASS_IMM 0xc7, 0x40, 0x08, 0x34, 0x12, 0xc0, 0x00 /* movl $0xc01234,0x8(%rax) */
#define KLASS_REG 0x89, 0x48, 0x08                         /* mov %ecx,0x8(%rax) */
#define PREFETCH 0x0f, 0x0d, 0x88, 0xc0, 0x00, 0x00, 0x00  /* prefetchw 0xc0(%rax) */

/* C2's fast path: the mark word, then the narrow class as an immediate. */
static void compiled_store_ahead(void **state)
{
    (void)state;
    const uint8_t code[] = {PREFETCH, MARK, KLASS_IMM};
    offers o = {0};
    wasp_class_store cs;
    assert_int_equal(scan(NULL, 0, code, sizeof code, &o, &cs), WASP_CSTORE_FOUND);
    assert_int_equal(o.n, 1);
    assert_int_equal(cs.obj, OBJ);
    assert_int_equal(cs.word, 0xc01234);
    assert_int_equal(cs.at, PC + 14);
    assert_int_equal(cs.len, 7);
    assert_int_equal(cs.ahead, 1);
}

/* C1 and the interpreter store from a register. */
static void register_store_ahead(void **state)
{
    (void)state;
    const uint8_t code[] = {MARK, KLASS_REG};
    offers o = {0};
    wasp_class_store cs;
    assert_int_equal(scan(NULL, 0, code, sizeof code, &o, &cs), WASP_CSTORE_FOUND);
    assert_int_equal(cs.word, 0xc05678);
    assert_int_equal(cs.at, PC + 7);
}

/* The store that just ran, decoded backwards: its source is unchanged. */
static void store_that_ran(void **state)
{
    (void)state;
    const uint8_t before[] = {0x90, 0x90, 0x90, 0x90, 0x90, MARK, KLASS_REG};
    const uint8_t code[] = {0xc3}; /* ret */
    offers o = {0};
    wasp_class_store cs;
    assert_int_equal(scan(before, sizeof before, code, sizeof code, &o, &cs), WASP_CSTORE_FOUND);
    assert_int_equal(cs.ahead, 0);
    assert_int_equal(cs.at, PC - 3);
    assert_int_equal(cs.len, 3);
    assert_int_equal(cs.obj, OBJ);
    assert_int_equal(cs.word, 0xc05678);
}

/* The source register written before the store (the interpreter pops the
 * class; C1 encodes it): its value is not known at the sample. */
static void overwritten_source_is_lost(void **state)
{
    (void)state;
    const uint8_t pop[] = {0x59, KLASS_REG};              /* pop %rcx */
    const uint8_t mov[] = {0x48, 0x89, 0xd1, KLASS_REG}; /* mov %rdx,%rcx */
    offers o = {0};
    wasp_class_store cs;
    assert_int_equal(scan(NULL, 0, pop, sizeof pop, &o, &cs), WASP_CSTORE_LOST);
    assert_int_equal(scan(NULL, 0, mov, sizeof mov, &o, &cs), WASP_CSTORE_LOST);
    assert_int_equal(o.n, 0);
}

/* Not a class-word store: another width, an index, a moved base, past a
 * jump; or one the caller refuses. */
static void other_stores_are_not_class_words(void **state)
{
    (void)state;
    const uint8_t wide[] = {0x48, 0x89, 0x48, 0x08};          /* mov %rcx,0x8(%rax) */
    const uint8_t indexed[] = {0x89, 0x4c, 0x10, 0x08};       /* mov %ecx,0x8(%rax,%rdx,1) */
    const uint8_t moved[] = {0x48, 0x89, 0xd8, KLASS_REG};    /* mov %rbx,%rax */
    const uint8_t jump[] = {0xeb, 0xfe, KLASS_IMM};           /* jmp . */
    const uint8_t garbage[] = {0x06}; /* push %es: not in 64-bit mode */
    offers o = {0};
    wasp_class_store cs;
    assert_int_equal(scan(NULL, 0, wide, sizeof wide, &o, &cs), WASP_CSTORE_NONE);
    assert_int_equal(scan(NULL, 0, indexed, sizeof indexed, &o, &cs), WASP_CSTORE_NONE);
    assert_int_equal(scan(NULL, 0, moved, sizeof moved, &o, &cs), WASP_CSTORE_NONE);
    assert_int_equal(scan(NULL, 0, jump, sizeof jump, &o, &cs), WASP_CSTORE_NONE);
    assert_int_equal(scan(NULL, 0, garbage, sizeof garbage, &o, &cs), WASP_CSTORE_UNDECODABLE);
    assert_int_equal(o.n, 0);
    const uint8_t code[] = {MARK, KLASS_IMM};
    o.refuse = 1;
    assert_int_equal(scan(NULL, 0, code, sizeof code, &o, &cs), WASP_CSTORE_REJECTED);
    assert_int_equal(o.n, 1);
    /* Uncompressed class pointers: 8 bytes. */
    wasp_regs r = regs();
    o = (offers){0};
    assert_int_equal(wasp_isa_find_class_store(NULL, 0, wide, sizeof wide, PC, &r, 8, 8, 12,
                                               accept, &o, &cs),
                     WASP_CSTORE_FOUND);
    assert_int_equal(cs.word, 0xc05678);
}

/* ---- the profile's entries and rankings ---- */

static uint32_t context(wasp_profile *p, const char *method, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, method),
                    wasp_profile_intern_string(p, "Main.java"), line};
    uint32_t id = wasp_profile_intern_frame(p, &f);
    return wasp_profile_intern_context(p, &id, 1, 0);
}

static void add(wasp_profile *p, const char *cls, uint32_t ctx, double samples)
{
    wasp_alloc_entry e = {wasp_profile_intern_string(p, cls), ctx, samples};
    assert_int_equal(wasp_profile_add_alloc(p, &e), 0);
}

static void entries_sum_and_rank(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t a = context(p, "pkg.Main.a", 10), b = context(p, "pkg.Main.b", 20);
    add(p, "pkg.Small", a, 30);
    add(p, "pkg.Medium", b, 25);
    add(p, "pkg.Small", b, 20);
    add(p, "int[]", a, 5);
    add(p, "pkg.Small", a, 10); /* same key: summed */
    uint32_t n;
    wasp_profile_allocs(p, &n);
    assert_int_equal(n, 4);
    wasp_alloc_entry bad = {wasp_profile_intern_string(p, "x"), 999, 1};
    assert_int_equal(wasp_profile_add_alloc(p, &bad), -1);

    wasp_alloc_ranking r;
    assert_int_equal(wasp_alloc_rank(p, &r), 0);
    assert_true(r.samples == 90);
    assert_int_equal(r.nclasses, 3);
    assert_string_equal(p->strings[r.classes[0].cls], "pkg.Small");
    assert_true(r.classes[0].samples == 60);
    assert_int_equal(r.classes[0].nsites, 2);
    assert_string_equal(p->strings[r.classes[1].cls], "pkg.Medium");
    assert_string_equal(p->strings[r.classes[2].cls], "int[]");
    assert_int_equal(r.nsites, 4);
    const wasp_alloc_entry *e = wasp_profile_allocs(p, &n);
    assert_true(e[r.sites[0]].samples == 40 && e[r.sites[0]].ctx == a);
    assert_true(e[r.sites[1]].samples == 25);
    assert_true(e[r.sites[2]].samples == 20);
    assert_true(e[r.sites[3]].samples == 5);
    assert_true(wasp_profile_has_allocs(p));
    wasp_alloc_ranking_free(&r);
    wasp_profile_free(p);

    wasp_profile *empty = wasp_profile_new();
    assert_false(wasp_profile_has_allocs(empty));
    assert_int_equal(wasp_alloc_rank(empty, &r), 0);
    assert_int_equal(r.nclasses, 0);
    assert_int_equal(r.nsites, 0);
    wasp_alloc_ranking_free(&r);
    wasp_profile_free(empty);
}

/* p's text report (free it). */
static char *text_of(const wasp_profile *p)
{
    return render_string(p, WASP_FORMAT_TEXT, WASP_BY_INSTRUCTION, NULL);
}

static void add_bytes(wasp_profile *p, const char *cls, uint32_t ctx, double bytes, double catches)
{
    wasp_alloc_bytes b = {wasp_profile_intern_string(p, cls), ctx, bytes, catches, 0};
    assert_int_equal(wasp_profile_add_alloc_bytes(p, &b), 0);
}

/* p written and read back (free it). */
static wasp_profile *reread(const wasp_profile *p)
{
    char err[256];
    wasp_wbuf b = {0};
    assert_int_equal(wasp_profile_encode(p, &b, err, sizeof err), 0);
    wasp_profile *q = wasp_profile_decode(b.data, b.len, err, sizeof err);
    wasp_wbuf_free(&b);
    assert_non_null(q);
    return q;
}

/* Estimated bytes: ranked by them unless --alloc-rank count, read back
 * from a file, scaled to the windows' measured bytes; a profile without
 * them ranks by count and says so. */
static void bytes_rank_and_read_back(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "alloc");
    uint32_t a = context(p, "pkg.Main.a", 10), b = context(p, "pkg.Main.b", 20);
    add(p, "pkg.Small", a, 60);
    add(p, "long[]", b, 5);
    add(p, "pkg.Medium", a, 35);
    wasp_alloc_ranking r;
    assert_int_equal(wasp_alloc_rank(p, &r), 0);
    assert_false(r.has_bytes);
    assert_false(r.by_bytes);
    assert_string_equal(p->strings[r.classes[0].cls], "pkg.Small");
    wasp_alloc_ranking_free(&r);
    char *text = text_of(p);
    assert_non_null(strstr(text, "bytes not recorded"));
    assert_non_null(strstr(text, "classes by sampled creations"));
    free(text);

    add_bytes(p, "pkg.Small", a, 1000, 10);
    add_bytes(p, "long[]", b, 6000, 60);
    add_bytes(p, "pkg.Medium", a, 3000, 30);
    wasp_profile *q = reread(p);
    assert_int_equal(wasp_alloc_rank(q, &r), 0);
    assert_true(r.has_bytes && r.by_bytes);
    assert_true(r.bytes == 10000 && r.catches == 100);
    assert_string_equal(q->strings[r.classes[0].cls], "long[]");
    assert_true(r.classes[0].bytes == 6000 && r.classes[0].catches == 60);
    assert_string_equal(q->strings[r.classes[2].cls], "pkg.Small");
    uint32_t n;
    const wasp_alloc_entry *e = wasp_profile_allocs(q, &n);
    assert_string_equal(q->strings[e[r.sites[0]].cls], "long[]");
    assert_true(r.site_bytes[r.sites[0]] == 6000);
    wasp_alloc_ranking_free(&r);
    text = text_of(q);
    assert_non_null(strstr(text, "classes by estimated bytes"));
    assert_non_null(strstr(text, "60.0%  long[]"));
    free(text);

    /* --alloc-rank count: the creations' order again; a bad value named. */
    char err[256];
    assert_int_equal(wasp_alloc_rank_parse("--alloc-rank", "size", err, sizeof err), -1);
    assert_non_null(strstr(err, "bad option '--alloc-rank size': expected bytes or count"));
    assert_int_equal(wasp_alloc_rank_parse("--alloc-rank", "count", err, sizeof err), 0);
    assert_int_equal(wasp_alloc_rank(q, &r), 0);
    assert_true(r.has_bytes && !r.by_bytes);
    assert_string_equal(q->strings[r.classes[0].cls], "pkg.Small");
    wasp_alloc_ranking_free(&r);
    assert_int_equal(wasp_alloc_rank_parse("--alloc-rank", "bytes", err, sizeof err), 0);

    /* A creation without bytes (merged from an older profile): bytes not known. */
    wasp_profile *older = reread(q);
    add(older, "pkg.Old", a, 3);
    assert_int_equal(wasp_alloc_rank(older, &r), 0);
    assert_false(r.has_bytes);
    wasp_alloc_ranking_free(&r);
    wasp_profile_free(older);

    /* The windows' measured TLAB bytes give the total; shares stay. */
    wasp_profile_add_counter(q, "alloc.window_bytes", 20000);
    assert_int_equal(wasp_alloc_rank(q, &r), 0);
    assert_true(r.bytes == 20000);
    assert_true(r.site_bytes[r.sites[0]] > 12000 - 1e-6 && r.site_bytes[r.sites[0]] < 12000 + 1e-6);
    wasp_alloc_ranking_free(&r);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

/* The summary ranks allocation sites by the lower end of their bytes'
 * interval: one catch that weighs most of a site's bytes (h2: 52 MiB of
 * TransactionMaps from one catch) leaves it the widest interval, so a site
 * with fewer bytes from many even catches leads; the line gives the
 * interval, and its few-samples count is the effective catches. */
static void summary_by_lower_end(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "alloc");
    uint32_t h = context(p, "pkg.Main.heavy", 10), s = context(p, "pkg.Main.steady", 20);
    add(p, "pkg.Heavy", h, 3);
    add(p, "pkg.Steady", s, 60);
    wasp_alloc_bytes heavy = {wasp_profile_intern_string(p, "pkg.Heavy"), h, 5000, 3,
                              4900.0 * 4900 + 2 * 50.0 * 50},
                     steady = {wasp_profile_intern_string(p, "pkg.Steady"), s, 3000, 60,
                               60 * 50.0 * 50};
    assert_int_equal(wasp_profile_add_alloc_bytes(p, &heavy), 0);
    assert_int_equal(wasp_profile_add_alloc_bytes(p, &steady), 0);
    char *text = text_of(p);
    char *detail = strstr(text, "\nDETAIL\n");
    assert_non_null(detail);
    *detail = 0;
    char *first = strstr(text, "  1. pkg.Main.steady("), *second = strstr(text, "  2. pkg.Main.heavy(");
    assert_non_null(first);
    assert_non_null(second);
    assert_non_null(strstr(first, "allocates 2.9 KiB (2.2 KiB\xe2\x80\x93" "3.8 KiB) in pkg.Steady"));
    assert_non_null(strstr(second, "allocates 4.9 KiB ("));
    assert_non_null(strstr(second, "few catches: 1\n"));
    free(text);
    wasp_profile_free(p);
}

/* The bytes' interval: a Poisson interval on the catches, scaled (the
 * exact 95% intervals: 5 -> [1.62, 11.67], 100 -> [81.4, 121.6]). */
static void bytes_interval(void **state)
{
    (void)state;
    double lo, hi;
    wasp_alloc_bytes_interval(500, 5, &lo, &hi);
    assert_true(lo > 160 && lo < 163 && hi > 1160 && hi < 1175);
    wasp_alloc_bytes_interval(100, 100, &lo, &hi);
    assert_true(lo > 81 && lo < 82 && hi > 121 && hi < 122.5);
    wasp_alloc_bytes_interval(1, 1, &lo, &hi);
    assert_true(lo >= 0 && lo < 0.05 && hi > 5 && hi < 6);
    wasp_alloc_bytes_interval(0, 0, &lo, &hi);
    assert_true(lo == 0 && hi == 0);
    /* Unequal catches count for fewer: 100 of 1 byte and one of 100. */
    double eff = wasp_alloc_effective_catches(200, 101, 100 * 1 + 100 * 100);
    assert_true(eff > 3.9 && eff < 4.0);
    assert_true(wasp_alloc_effective_catches(100, 100, 100) == 100); /* equal: all count */
    assert_true(wasp_alloc_effective_catches(100, 7, 0) == 7);       /* spread unknown */
}

/* Many entries: the index grows and every key stays found. */
static void many_entries(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    enum { N = 2000 };
    uint32_t cls = wasp_profile_intern_string(p, "pkg.C");
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < N; i++) {
            wasp_alloc_entry e = {cls, context(p, "pkg.Main.m", i + 1), 1};
            assert_int_equal(wasp_profile_add_alloc(p, &e), 0);
        }
    uint32_t n;
    const wasp_alloc_entry *e = wasp_profile_allocs(p, &n);
    assert_int_equal(n, N);
    for (uint32_t i = 0; i < n; i++)
        assert_true(e[i].samples == 2);
    wasp_profile_free(p);
}

/* The text report: classes with their shares, then the sites with their
 * contexts, and the causes of samples not counted. */
static void text_report(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "alloc");
    add(p, "pkg.Small", context(p, "pkg.Main.make", 21), 75);
    add(p, "int[]", context(p, "pkg.Main.fill", 40), 25);
    wasp_profile_add_counter(p, "alloc.value_lost", 7);
    char *text = text_of(p);
    const char *section = strstr(text, "Object creation (Inoue & Nakatani's creation profile)");
    assert_non_null(section);
    /* No boundary watched: a PMU's sampled stores. */
    assert_non_null(strstr(section, "100 sampled creations of 2 classes: sampled stores of a class word"));
    const char *classes = strstr(section, "classes by sampled creations");
    assert_non_null(classes);
    const char *small = strstr(classes, "75.0%  pkg.Small"), *ints = strstr(classes, "25.0%  int[]");
    assert_true(small && ints && small < ints);
    assert_non_null(strstr(section, "pkg.Main.make(Main.java:21)"));
    assert_non_null(strstr(section, "7  a class-word store whose value"));
    free(text);
    /* Watched boundaries: said so, with how the objects were named. */
    wasp_profile_add_counter(p, "alloc.armed", 120);
    wasp_profile_add_counter(p, "alloc.store_ahead", 60);
    wasp_profile_add_counter(p, "alloc.named_later", 40);
    wasp_profile_add_counter(p, "alloc.unnamed_object", 3);
    wasp_profile_add_counter(p, "alloc.passed_not_counted", 5);
    text = text_of(p);
    assert_non_null(strstr(text, "5  a boundary already allocated, in an object after the one caught"));
    assert_non_null(strstr(text, "objects holding watched TLAB page boundaries"));
    assert_non_null(strstr(text, "(named 60 at their class-word store, 40 once built)\n"
                                 "  and by the share of the allocation the watches covered (not known"));
    free(text);
    /* The share the chains covered, from the windows' bytes. */
    wasp_profile_add_counter(p, "alloc.window_bytes", 4000);
    wasp_profile_add_counter(p, "alloc.covered_bytes", 1000);
    text = text_of(p);
    assert_non_null(strstr(text, "the watches covered (25% of the bytes)"));
    assert_non_null(strstr(text, "3  a caught creation whose object could not be named"));
    assert_null(strstr(text, "no TLAB page boundary could be watched"));
    free(text);
    wasp_profile_free(p);
    /* Boundaries tried, none watched (no TLABs): said so, not "stores". */
    p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "alloc");
    wasp_profile_set_meta(p, "sampler", "timer");
    wasp_profile_add_counter(p, "alloc.chain_ended", 40);
    text = text_of(p);
    assert_non_null(strstr(text, "0 sampled creations of 0 classes: objects holding watched TLAB"));
    assert_non_null(strstr(text, "no TLAB page boundary could be watched"));
    free(text);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compiled_store_ahead),
        cmocka_unit_test(register_store_ahead),
        cmocka_unit_test(store_that_ran),
        cmocka_unit_test(bytes_rank_and_read_back),
        cmocka_unit_test(bytes_interval),
        cmocka_unit_test(summary_by_lower_end),
        cmocka_unit_test(overwritten_source_is_lost),
        cmocka_unit_test(other_stores_are_not_class_words),
        cmocka_unit_test(entries_sum_and_rank),
        cmocka_unit_test(many_entries),
        cmocka_unit_test(text_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
