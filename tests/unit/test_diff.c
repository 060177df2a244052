/* `wasp diff` (src/cli/diff*.c): entries of two profiles matched by what
 * their contexts say, never by ids; vanished, appeared, shrank, grew; the
 * F_prog change from the totals; the text and JSON say so; the HTML page
 * carries the JSON. */
#include "html_page_check.h" /* cmocka and the C library too */

#include "analysis/alloc/profile.h"
#include "catalog/names.h"
#include "analysis/fields/profile.h"
#include "analysis/locks/profile.h"
#include "analysis/objects/profile.h"
#include "cli/commands/diff.h"
#include "diff_string.h" /* render_diff */
#include "heap/heap_area.h"
#include "profile/group.h"
#include "pairs_view.h"

#include <unistd.h>

static uint32_t frame(wasp_profile *p, const char *m, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, m),
                    wasp_profile_intern_string(p, "D.java"), line};
    return wasp_profile_intern_frame(p, &f);
}

/* D.main:9 -> D.<m>:<line>, leaf instruction insn. */
static uint32_t ctx(wasp_profile *p, const char *m, int line, const char *insn)
{
    uint32_t fr[] = {frame(p, "D.main", 9), frame(p, m, line)};
    return wasp_profile_intern_context(p, fr, 2, wasp_profile_intern_string(p, insn));
}

static void totals(wasp_profile *p, wasp_analysis a, double bytes, double wasted)
{
    wasp_totals t = {bytes, wasted, 0, 10};
    wasp_profile_add_totals(p, a, &t);
}

/* Before: the planted pair damp:38 -> damp:41 (50 of 100 bytes) and a small
 * one at other:5 (10 bytes). */
static wasp_profile *before_profile(void)
{
    wasp_profile *p = wasp_profile_new();
    uint32_t w = ctx(p, "D.damp", 38, "movsd %xmm0, 0x10(%r11)");
    uint32_t t = ctx(p, "D.damp", 41, "movsd %xmm1, 0x10(%r11)");
    uint32_t o = ctx(p, "D.other", 5, "mov %eax, 0xc(%rbx)");
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, w, t, 50, 5);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, o, o, 10, 1);
    totals(p, WASP_AN_DEADSTORE, 100, 60);
    return p;
}

/* After, interned in another order (and with strings before has not), so
 * every id differs: other:5 (10 of 80 bytes) and a new one at fresh:7. */
static wasp_profile *after_profile(void)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_intern_string(p, "unrelated");
    uint32_t n = ctx(p, "D.fresh", 7, "mov %ecx, 0x8(%rdx)");
    uint32_t o = ctx(p, "D.other", 5, "mov %eax, 0xc(%rbx)");
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, n, n, 6, 1);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, o, o, 10, 1);
    totals(p, WASP_AN_DEADSTORE, 80, 16);
    return p;
}

/* The entry whose side s is pair/site index i, failing when none. */
static const wasp_diff_entry *entry_at(const wasp_diff *d, int s, uint32_t i)
{
    for (uint32_t k = 0; k < d->n; k++)
        if (d->entries[k].index[s] == i)
            return &d->entries[k];
    fail_msg("no entry for index %u of side %d", i, s);
    return NULL;
}

static void test_vanished_appeared_grew(void **state)
{
    (void)state;
    wasp_profile *b = before_profile(), *a = after_profile();
    wasp_diff d;
    assert_int_equal(wasp_diff_build(b, a, false, &d), 0);
    assert_int_equal(d.n, 3);

    const wasp_diff_entry *gone = entry_at(&d, 0, 0);
    assert_int_equal(wasp_diff_change_of(gone), WASP_DIFF_VANISHED);
    assert_int_equal(gone->index[1], UINT32_MAX);
    assert_int_equal(gone->rank[0], 1);
    assert_float_equal(gone->share[0], 0.5, 1e-12);

    const wasp_diff_entry *both = entry_at(&d, 0, 1);
    assert_int_equal(both->index[1], 1); /* matched across files */
    assert_int_equal(wasp_diff_change_of(both), WASP_DIFF_GREW);
    assert_float_equal(both->share[0], 0.1, 1e-12);
    assert_float_equal(both->share[1], 0.125, 1e-12);

    const wasp_diff_entry *fresh = entry_at(&d, 1, 0);
    assert_int_equal(wasp_diff_change_of(fresh), WASP_DIFF_APPEARED);
    assert_int_equal(fresh->index[0], UINT32_MAX);
    assert_int_equal(fresh->rank[1], 2);

    /* largest change of share first */
    assert_ptr_equal(&d.entries[0], gone);
    /* F_prog from the totals: 60/100 -> 16/80 */
    assert_true(d.an[WASP_ID_deadstore].shown[0] && d.an[WASP_ID_deadstore].shown[1]);
    assert_float_equal(d.an[WASP_ID_deadstore].fraction[0], 0.6, 1e-12);
    assert_float_equal(d.an[WASP_ID_deadstore].fraction[1], 0.2, 1e-12);
    assert_float_equal(d.an[WASP_ID_deadstore].total[1], 80, 1e-12);
    assert_false(d.an[WASP_ID_silentload].shown[0] || d.an[WASP_ID_silentload].shown[1]);
    wasp_diff_free(&d);
    wasp_profile_free(b);
    wasp_profile_free(a);
}

/* The matched pair really had different ids in the two files (or the test
 * above proves nothing about matching by content). */
static void test_ids_differ(void **state)
{
    (void)state;
    wasp_profile *b = before_profile(), *a = after_profile();
    assert_int_not_equal(pairs_of(b)[1].watch_ctx, pairs_of(a)[1].watch_ctx);
    const wasp_frame *fb = &b->frames[b->frame_refs[b->contexts[pairs_of(b)[1].watch_ctx].first]];
    const wasp_frame *fa = &a->frames[a->frame_refs[a->contexts[pairs_of(a)[1].watch_ctx].first]];
    assert_int_not_equal(fb->name, fa->name);
    wasp_profile_free(b);
    wasp_profile_free(a);
}

/* Same frames, another leaf instruction (a JIT copy): one entry by line,
 * two (vanished + appeared) by instruction. */
static void test_instruction_matters_only_by_instruction(void **state)
{
    (void)state;
    wasp_profile *b = wasp_profile_new(), *a = wasp_profile_new();
    uint32_t cb = ctx(b, "D.loop", 3, "mov %eax, 0x10(%rbx)");
    uint32_t ca = ctx(a, "D.loop", 3, "mov %eax, 0x14(%rbx)");
    wasp_profile_add_pair(b, WASP_AN_SILENTSTORE, 0, cb, cb, 40, 4);
    wasp_profile_add_pair(a, WASP_AN_SILENTSTORE, 0, ca, ca, 10, 1);
    totals(b, WASP_AN_SILENTSTORE, 100, 40);
    totals(a, WASP_AN_SILENTSTORE, 100, 10);
    wasp_diff d;
    assert_int_equal(wasp_diff_build(b, a, false, &d), 0);
    assert_int_equal(d.n, 1);
    assert_int_equal(wasp_diff_change_of(&d.entries[0]), WASP_DIFF_SHRANK);
    wasp_diff_free(&d);
    assert_int_equal(wasp_diff_build(b, a, true, &d), 0);
    assert_int_equal(d.n, 2);
    assert_int_equal(wasp_diff_change_of(&d.entries[0]), WASP_DIFF_VANISHED);
    assert_int_equal(wasp_diff_change_of(&d.entries[1]), WASP_DIFF_APPEARED);
    wasp_diff_free(&d);
    wasp_profile_free(b);
    wasp_profile_free(a);
}

/* D.main:9 -> via (a hidden class's frame, no line) -> D.<m>:<line>. */
static uint32_t ctx_via(wasp_profile *p, const char *via, const char *m, int line)
{
    wasp_frame h = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, via), 0, -1};
    uint32_t fr[] = {frame(p, "D.main", 9), wasp_profile_intern_frame(p, &h), frame(p, m, line)};
    return wasp_profile_intern_context(p, fr, 3, wasp_profile_intern_string(p, "mov %eax, (%rbx)"));
}

/* A hidden class's name carries the address its run loaded it at, and a
 * lambda's its number in the run's order (lucene's LuceneDriver$$Lambda$35
 * .0x00007f92600a8de8 in one run, ...0x00007f48040a8de8 in the next): the
 * same stacks through them match; other methods do not. */
static void test_hidden_classes_match(void **state)
{
    (void)state;
    static const char *const via[][2] = {
        {"D$$Lambda$35.0x00007f92600a8de8.run", "D$$Lambda$36.0x00007f48040a8de8.run"},
        {"D$$Lambda/0x0000020001003200.run", "D$$Lambda/0x0000020001004a00.run"},
        {"java.lang.invoke.LambdaForm$MH.0x0000000800c0c400.invoke",
         "java.lang.invoke.LambdaForm$MH.0x0000000800d01000.invoke"},
        {"D.lambda$main$0", "D.lambda$main$1"}, /* two lambdas' bodies: not one */
    };
    for (size_t i = 0; i < sizeof via / sizeof via[0]; i++) {
        wasp_profile *b = wasp_profile_new(), *a = wasp_profile_new();
        uint32_t cb = ctx_via(b, via[i][0], "D.work", 5), ca = ctx_via(a, via[i][1], "D.work", 5);
        wasp_profile_add_pair(b, WASP_AN_DEADSTORE, 0, cb, cb, 40, 4);
        wasp_profile_add_pair(a, WASP_AN_DEADSTORE, 0, ca, ca, 40, 4);
        totals(b, WASP_AN_DEADSTORE, 100, 40);
        totals(a, WASP_AN_DEADSTORE, 100, 40);
        wasp_diff d;
        assert_int_equal(wasp_diff_build(b, a, false, &d), 0);
        if (i < 3) {
            assert_int_equal(d.n, 1);
            assert_int_equal(wasp_diff_change_of(&d.entries[0]), WASP_DIFF_UNCHANGED);
        } else {
            assert_int_equal(d.n, 2);
        }
        wasp_diff_free(&d);
        wasp_profile_free(b);
        wasp_profile_free(a);
    }
}

/* A profile compared with itself: nothing changed. */
static void test_same_profile_unchanged(void **state)
{
    (void)state;
    wasp_profile *b = before_profile();
    wasp_diff d;
    assert_int_equal(wasp_diff_build(b, b, false, &d), 0);
    assert_int_equal(d.n, 2);
    for (uint32_t i = 0; i < d.n; i++)
        assert_int_equal(wasp_diff_change_of(&d.entries[i]), WASP_DIFF_UNCHANGED);
    wasp_diff_free(&d);
    wasp_profile_free(b);
}

/* Objects sites: matched by class and allocation frames. */
static void test_object_sites(void **state)
{
    (void)state;
    wasp_profile *b = wasp_profile_new(), *a = wasp_profile_new();
    uint32_t alloc_b = ctx(b, "D.make", 12, ""), acc_b = ctx(b, "D.read", 20, "mov (%rax), %rcx");
    uint32_t s_b = wasp_profile_intern_site(b, alloc_b, wasp_profile_intern_string(b, "long[]"));
    wasp_profile_add_site_access(b, s_b, acc_b, 30, 0);
    wasp_profile_intern_string(a, "padding");
    uint32_t alloc_a = ctx(a, "D.make", 12, ""), acc_a = ctx(a, "D.read", 20, "mov (%rax), %rcx");
    uint32_t s_a = wasp_profile_intern_site(a, alloc_a, wasp_profile_intern_string(a, "int[]"));
    wasp_profile_add_site_access(a, s_a, acc_a, 30, 0);
    wasp_diff d;
    assert_int_equal(wasp_diff_build(b, a, false, &d), 0);
    assert_int_equal(d.n, 2); /* another class at the same line: another site */
    assert_int_equal(d.entries[0].analysis, WASP_ID_objects);
    assert_float_equal(d.an[WASP_ID_objects].total[0], 30, 1e-12);
    wasp_diff_free(&d);
    wasp_profile_free(b);
    wasp_profile_free(a);
}

/* ---- analyses keyed by strings and contexts (fields, alloc, locks): their
 * ranked entries matched by key through their diff parts ---- */

static uint32_t str(wasp_profile *p, const char *s)
{
    return wasp_profile_intern_string(p, s);
}

static void add_alloc(wasp_profile *p, const char *cls, const char *m, int line, double samples)
{
    wasp_alloc_entry e = {str(p, cls), ctx(p, m, line, "movl $0x1, 0x8(%rax)"), samples};
    assert_int_equal(wasp_profile_add_alloc(p, &e), 0);
}

static void add_lock(wasp_profile *p, const char *cls, const char *m, double acquire, double slow)
{
    uint32_t fr[] = {frame(p, "D.main", 9), frame(p, m, 3)};
    wasp_lock_entry e = {str(p, cls), str(p, ""), wasp_profile_intern_context(p, fr, 2, str(p, "")),
                         acquire, 0, slow};
    assert_int_equal(wasp_profile_add_lock(p, &e), 0);
}

static void add_field(wasp_profile *p, const char *cls, const char *field, uint32_t offset,
                      double loads, double stores)
{
    wasp_field_entry e = {str(p, cls), str(p, field), offset, WASP_AREA_OLD,
                          ctx(p, "D.touch", 30, "mov 0x10(%rax), %ecx"), loads, stores};
    assert_int_equal(wasp_profile_add_field(p, &e), 0);
}

/* The entry of analysis id whose side s has rank r, failing when none. */
static const wasp_diff_entry *ranked(const wasp_diff *d, int id, int s, uint32_t r)
{
    for (uint32_t k = 0; k < d->n; k++)
        if (d->entries[k].analysis == id && d->entries[k].rank[s] == r)
            return &d->entries[k];
    fail_msg("no entry of analysis %d ranked %u on side %d", id, r, s);
    return NULL;
}

/* Before: Point 6 and Cell 2 sampled creations; after (other ids): Cell 6,
 * Node 2. Point went, Cell grew from 25% to 75%, Node came. */
static void keyed_profiles(wasp_profile **b, wasp_profile **a)
{
    *b = wasp_profile_new();
    add_alloc(*b, "Point", "D.make", 12, 6);
    add_alloc(*b, "Cell", "D.fill", 20, 2);
    add_lock(*b, "Lock1", "D.sync1", 3, 1);
    add_lock(*b, "Lock2", "D.sync2", 4, 0);
    add_field(*b, "Point", "x", 12, 3, 1);
    *a = wasp_profile_new();
    str(*a, "padding"); /* every id differs */
    add_field(*a, "Point", "y", 16, 3, 0);
    add_field(*a, "Point", "x", 12, 1, 0);
    add_lock(*a, "Lock2", "D.sync2", 3, 0);
    add_lock(*a, "Lock1", "D.sync1", 1, 0);
    add_alloc(*a, "Node", "D.grow", 40, 2);
    add_alloc(*a, "Cell", "D.fill", 20, 6);
}

/* An alloc site with its bytes: samples creations resting on catches. */
static void add_alloc_caught(wasp_profile *p, const char *cls, const char *m, double samples,
                             double catches)
{
    add_alloc(p, cls, m, 20, samples);
    wasp_alloc_bytes e = {str(p, cls), ctx(p, m, 20, "movl $0x1, 0x8(%rax)"), 1000 * samples,
                          catches, 1e6 * samples * samples / catches};
    assert_int_equal(wasp_profile_add_alloc_bytes(p, &e), 0);
}

/* An alloc site's share of the sampled creations moves with a few heavy
 * catches (xalan: 96 creations from 4 catches in one run, 1 from 1 in the
 * next): the noise test counts its catches, of all catches. The same move
 * resting on as many catches as creations is significant. */
static void test_alloc_noise_counts_catches(void **state)
{
    (void)state;
    for (int heavy = 1; heavy >= 0; heavy--) {
        wasp_profile *b = wasp_profile_new(), *a = wasp_profile_new();
        add_alloc_caught(b, "String", "D.format", 96, heavy ? 4 : 96);
        add_alloc_caught(b, "Node", "D.grow", 900, 900);
        add_alloc_caught(a, "String", "D.format", 1, 1);
        add_alloc_caught(a, "Node", "D.grow", 900, 900);
        wasp_diff d;
        assert_int_equal(wasp_diff_build(b, a, false, &d), 0);
        assert_int_equal(wasp_diff_test_noise(&d), 0);
        const int alloc = wasp_analysis_id_from_name("alloc");
        const wasp_diff_entry *e = ranked(&d, alloc, 0, 1);
        assert_string_equal(wasp_profile_string(b, wasp_profile_allocs(b, &(uint32_t){0})[e->index[0]].cls),
                            "Node");
        e = ranked(&d, alloc, 0, 2);
        assert_int_equal(wasp_diff_change_of(e), WASP_DIFF_SHRANK);
        assert_float_equal(e->samples[0], heavy ? 4 : 96, 1e-9);
        assert_true(e->significant == !heavy);
        wasp_diff_free(&d);
        wasp_profile_free(b);
        wasp_profile_free(a);
    }
}

static void test_keyed_analyses(void **state)
{
    (void)state;
    wasp_profile *b, *a;
    keyed_profiles(&b, &a);
    wasp_diff d;
    assert_int_equal(wasp_diff_build(b, a, false, &d), 0);
    assert_int_equal(d.n, 7); /* alloc 3, locks 2, fields 2 */

    const int alloc = wasp_analysis_id_from_name("alloc");
    assert_true(d.an[alloc].shown[0] && d.an[alloc].shown[1]);
    assert_float_equal(d.an[alloc].total[0], 8, 1e-12);
    const wasp_diff_entry *point = ranked(&d, alloc, 0, 1);
    assert_int_equal(wasp_diff_change_of(point), WASP_DIFF_VANISHED);
    assert_float_equal(point->share[0], 0.75, 1e-12);
    const wasp_diff_entry *cell = ranked(&d, alloc, 0, 2);
    assert_int_equal(cell->rank[1], 1); /* matched across files */
    assert_int_equal(wasp_diff_change_of(cell), WASP_DIFF_GREW);
    assert_float_equal(cell->share[0], 0.25, 1e-12);
    assert_float_equal(cell->share[1], 0.75, 1e-12);
    assert_int_equal(wasp_diff_change_of(ranked(&d, alloc, 1, 2)), WASP_DIFF_APPEARED);

    const int locks = wasp_analysis_id_from_name("locks");
    assert_float_equal(d.an[locks].total[0], 8, 1e-12); /* acquiring and slow-path samples */
    const wasp_diff_entry *lock1 = ranked(&d, locks, 0, 1);
    assert_int_equal(lock1->rank[1], 2);
    assert_int_equal(wasp_diff_change_of(lock1), WASP_DIFF_SHRANK);
    assert_float_equal(lock1->share[1], 0.25, 1e-12);
    assert_int_equal(wasp_diff_change_of(ranked(&d, locks, 1, 1)), WASP_DIFF_GREW);

    const int fields = wasp_analysis_id_from_name("fields");
    const wasp_diff_entry *x = ranked(&d, fields, 0, 1);
    assert_int_equal(x->rank[1], 2);
    assert_float_equal(x->share[0], 1.0, 1e-12);
    assert_float_equal(x->share[1], 0.25, 1e-12);
    assert_int_equal(wasp_diff_change_of(ranked(&d, fields, 1, 1)), WASP_DIFF_APPEARED);

    /* entries by analysis in registry order, each analysis's largest change first */
    for (uint32_t k = 1; k < d.n; k++)
        assert_true(d.entries[k - 1].analysis <= d.entries[k].analysis);
    assert_ptr_equal(&d.entries[0], ranked(&d, fields, 0, 1)); /* -75 points before +75 */
    wasp_diff_free(&d);

    /* A profile against itself: nothing changed. */
    assert_int_equal(wasp_diff_build(a, a, false, &d), 0);
    for (uint32_t k = 0; k < d.n; k++)
        assert_int_equal(wasp_diff_change_of(&d.entries[k]), WASP_DIFF_UNCHANGED);
    wasp_diff_free(&d);
    wasp_profile_free(b);
    wasp_profile_free(a);
}

/* The text and JSON of a keyed analysis: its words, its entries' classes and
 * contexts, and the HTML page's columns. */
static void test_keyed_text_json(void **state)
{
    (void)state;
    wasp_profile *b, *a;
    keyed_profiles(&b, &a);
    char *text = render_diff(b, a, wasp_diff_render_text, 0);
    assert_non_null(strstr(text, "\nObject creation: 8 \xe2\x86\x92 8 creations\n"));
    assert_non_null(
        strstr(text, "VANISHED  Allocation site #1 before: 75.0% of sampled creations"));
    assert_non_null(strstr(text, "      class Point\n      stored by"));
    assert_non_null(strstr(text, "GREW      Locked class #2 before, #1 after: 50.0% \xe2\x86\x92 "
                                 "75.0% of lock samples"));
    assert_non_null(strstr(text, "APPEARED  Member #1 after"));
    assert_non_null(strstr(text, "      class Point, field y\n      hottest at:"));
    free(text);

    keyed_profiles(&b, &a);
    char *json = render_diff(b, a, wasp_diff_render_json, 0);
    assert_non_null(strstr(json, "\"alloc\": {\n      \"title\": \"Object creation\""));
    assert_non_null(strstr(json, "\"stored_by\": {"));
    assert_non_null(strstr(json, "\"field\": \"y\""));
    assert_non_null(
        strstr(json, "{\"title\": \"hottest at\", \"member\": \"hottest\", \"context\": true}"));
    free(json);
}

static char *render(bool json, int top)
{
    return render_diff(before_profile(), after_profile(),
                       json ? wasp_diff_render_json : wasp_diff_render_text, top);
}

static void test_text(void **state)
{
    (void)state;
    char *s = render(false, 0);
    assert_non_null(strstr(s, "Dead stores: F_prog 60.0% \xe2\x86\x92 20.0% (-40.0 points)"));
    assert_non_null(strstr(s, "VANISHED  Dead store pair #1 before: 50.0% of stored bytes "
                              "\xe2\x86\x92 0"));
    assert_non_null(strstr(s, "APPEARED  Dead store pair #2 after: 0 \xe2\x86\x92 7.5%"));
    assert_non_null(strstr(s, "GREW      Dead store pair #2 before, #1 after: 10.0% "
                              "\xe2\x86\x92 12.5% of stored bytes (+2.5 points"));
    assert_non_null(strstr(s, "at D.damp(D.java:38)"));
    /* the vanished pair comes first */
    assert_true(strstr(s, "VANISHED") < strstr(s, "GREW"));
    free(s);
    s = render(false, 1);
    assert_null(strstr(s, "APPEARED"));
    assert_non_null(strstr(s, "... 2 more changed pairs (--top N shows more)"));
    free(s);
}

/* Without --verbose a change within noise is its line and its places: no
 * frames, no instruction. The same diff with it has them. */
static void test_text_brief_within_noise(void **state)
{
    (void)state;
    char *s = render_diff_verbose(before_profile(), after_profile(), wasp_diff_render_text, 0,
                                  false);
    const char *v = strstr(s, "VANISHED  Dead store pair #1 before: 50.0% of stored bytes");
    assert_non_null(v);
    assert_non_null(strstr(v, "[within noise]\n      watched D.damp(D.java:38); trapped at "
                              "D.damp(D.java:41)\n"));
    assert_null(strstr(s, "watched:"));
    assert_null(strstr(s, "at D.main(D.java:9)"));
    free(s);
    s = render_diff_verbose(before_profile(), after_profile(), wasp_diff_render_text, 0, true);
    assert_non_null(strstr(s, "watched:"));
    assert_non_null(strstr(s, "at D.main(D.java:9)"));
    free(s);
}

static void test_json(void **state)
{
    (void)state;
    char *s = render(true, 0);
    assert_non_null(strstr(s, "\"format\": \"wasp-diff\""));
    assert_non_null(strstr(s, "\"change\": \"vanished\""));
    assert_non_null(strstr(s, "\"change\": \"appeared\""));
    const char *f = strstr(s, "\"fraction_change\": ");
    assert_non_null(f);
    assert_float_equal(strtod(f + strlen("\"fraction_change\": "), NULL), -0.4, 1e-9);
    assert_non_null(strstr(s, "\"rank_after\": null"));
    free(s);
}

/* A side whose watch budget armed too few samples says so under the files,
 * naming the side (its changes are mostly noise); the other side, with
 * enough, says nothing. */
static void test_thin_side_warned(void **state)
{
    (void)state;
    wasp_profile *b = before_profile(), *a = after_profile();
    wasp_profile_set_meta(a, "watch", "page");
    wasp_profile_add_counter(a, "armed", 3);
    wasp_profile_add_counter(a, "dropped.budget", 40);
    wasp_profile_add_counter(b, "armed", 300);
    wasp_profile_add_counter(b, "dropped.budget", 40);
    char *s = render_diff(b, a, wasp_diff_render_text, 0);
    const char *w = strstr(s, "\n  warning after: only 3 samples armed: each fraction below rests "
                              "on that few watched pages");
    assert_non_null(w);
    assert_true(w < strstr(s, "\n  matched "));
    assert_null(strstr(s, "warning before"));
    free(s);
    b = before_profile(), a = after_profile();
    wasp_profile_set_meta(a, "watch", "page");
    wasp_profile_add_counter(a, "armed", 3);
    wasp_profile_add_counter(a, "dropped.budget", 40);
    s = render_diff(b, a, wasp_diff_render_json, 0);
    assert_non_null(strstr(s, "\"warnings\": []"));
    assert_non_null(strstr(s, "\"warnings\": [\"only 3 samples armed: "));
    free(s);
}

/* ---- HTML (src/cli/diff/diff_html.c): the page carries the diff JSON intact,
 * no name in either profile can end its data element or open a comment, and
 * the page is whole, with the diff's script (not the report's). What the
 * script draws is tested in a browser: tests/integration/diff.py. */

static const char hostile[] = "pkg.A.</script><!--<script>x";

/* One dead-store pair at method:line in file, of 100 stored bytes. */
static wasp_profile *one_pair(const char *method, const char *file, int line, double bytes)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "java_command", "java </SCRIPT > <!-- -->");
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, method),
                    wasp_profile_intern_string(p, file), line};
    uint32_t fr = wasp_profile_intern_frame(p, &f);
    uint32_t c = wasp_profile_intern_context(p, &fr, 1, wasp_profile_intern_string(p, "movl <x>"));
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, bytes, 2);
    totals(p, WASP_AN_DEADSTORE, 100, bytes);
    return p;
}

/* A pair at the hostile method (vanished) against one in a hostile file
 * (appeared), through r. */
static char *render_hostile(diff_renderer r)
{
    return render_diff(one_pair(hostile, "A.java", 7, 50),
                       one_pair("pkg.B.run", "<!--B.java", 9, 5), r, 0);
}

static void test_html_data_intact_and_inert(void **state)
{
    (void)state;
    char *html = render_hostile(wasp_diff_render_html);
    char *json = render_hostile(wasp_diff_render_json);
    /* The JSON has what the page must keep inert, and the changes to show. */
    assert_non_null(strstr(json, hostile));
    assert_non_null(strstr(json, "\"change\": \"vanished\""));
    assert_non_null(strstr(json, "\"change\": \"appeared\""));
    check_data_intact_and_inert(html, json);
    free(json);
    free(html);
}

static void test_html_page_whole(void **state)
{
    (void)state;
    char *html = render_hostile(wasp_diff_render_html);
    check_page_whole(html, wasp_html_diff_js);
    assert_null(strstr(html, wasp_html_js)); /* the report's script draws another JSON */
    assert_non_null(strstr(html, "<title>wasp diff</title>"));
    free(html);
}

/* wasp diff's stderr for argv (exit status in *rc). */
static char *diff_stderr(int *rc, int argc, char **argv)
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    *rc = wasp_cmd_diff(argc, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *s = calloc(1, 1024);
    rewind(tmp);
    size_t n = fread(s, 1, 1023, tmp);
    s[n] = 0;
    fclose(tmp);
    return s;
}

/* The report options go through the parsers `wasp report` uses (one
 * message each); diff accepts only the formats it writes. */
static void test_usage_errors(void **state)
{
    (void)state;
    static const struct {
        char *argv[4];
        const char *says;
    } cases[] = {
        {{"diff", "--format", "pprof", "a"}, "wasp diff: bad option '--format pprof': expected "
                                             "text, json or html\n"},
        {{"diff", "--top", "0", "a"}, "wasp diff: bad option '--top 0': expected a number from "
                                      "1 to 1000000\n"},
        {{"diff", "--by=file", "a", "b"}, "wasp diff: bad option '--by file': expected line or "
                                          "instruction\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc;
        char *e = diff_stderr(&rc, 4, (char **)cases[i].argv);
        assert_int_equal(rc, 2);
        assert_non_null(strstr(e, cases[i].says));
        free(e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vanished_appeared_grew),
        cmocka_unit_test(test_ids_differ),
        cmocka_unit_test(test_instruction_matters_only_by_instruction),
        cmocka_unit_test(test_same_profile_unchanged),
        cmocka_unit_test(test_hidden_classes_match),
        cmocka_unit_test(test_object_sites),
        cmocka_unit_test(test_keyed_analyses),
        cmocka_unit_test(test_alloc_noise_counts_catches),
        cmocka_unit_test(test_keyed_text_json),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_text_brief_within_noise),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_thin_side_warned),
        cmocka_unit_test(test_html_data_intact_and_inert),
        cmocka_unit_test(test_html_page_whole),
        cmocka_unit_test(test_usage_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
