/* The in-memory profile: interning, pairs, totals, fractions, ranking, merge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/objects/profile.h"
#include "profile/format.h" /* the core's section tags, private to src/profile/ */
#include "profile/part.h"
#include "profile/profile.h"
#include "pairs_view.h"

static uint32_t java_frame(wasp_profile *p, const char *method, const char *file, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, method),
                    file ? wasp_profile_intern_string(p, file) : 0, line};
    return wasp_profile_intern_frame(p, &f);
}

/* A context from "method:line" leaf-last names, all in Main.java. */
static uint32_t ctx_of(wasp_profile *p, const char *insn, int n, const char *const *methods,
                       const int *lines)
{
    uint32_t ids[16];
    for (int i = 0; i < n; i++)
        ids[i] = java_frame(p, methods[i], "Main.java", lines[i]);
    return wasp_profile_intern_context(p, ids, (uint32_t)n,
                                       insn ? wasp_profile_intern_string(p, insn) : 0);
}

static void test_new_profile(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    assert_non_null(p);
    assert_int_equal(p->nstrings, 1);
    assert_string_equal(wasp_profile_string(p, 0), "");
    assert_int_equal(p->merged, 1);
    assert_int_equal(pair_count(p), 0);
    wasp_profile_free(p);
    wasp_profile_free(NULL);
}

static void test_intern_string_dedup(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t a = wasp_profile_intern_string(p, "pkg.A.run");
    uint32_t b = wasp_profile_intern_string(p, "pkg.B.run");
    char copy[] = "pkg.A.run"; /* equal content, different pointer */
    assert_int_not_equal(a, 0);
    assert_int_not_equal(a, b);
    assert_int_equal(wasp_profile_intern_string(p, copy), a);
    assert_int_equal(wasp_profile_intern_string(p, ""), 0);
    assert_int_equal(wasp_profile_intern_string(p, NULL), 0);
    assert_int_equal(p->nstrings, 3);
    assert_string_equal(wasp_profile_string(p, a), "pkg.A.run");
    assert_string_equal(wasp_profile_string(p, b), "pkg.B.run");
    assert_null(wasp_profile_string(p, 99));
    wasp_profile_free(p);
}

static void test_intern_frame_dedup(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t f1 = java_frame(p, "pkg.A.run", "A.java", 10);
    uint32_t f2 = java_frame(p, "pkg.A.run", "A.java", 11);
    uint32_t f3 = java_frame(p, "pkg.A.run", "A.java", 10);
    wasp_frame nat = {WASP_FRAME_NATIVE, wasp_profile_intern_string(p, "pkg.A.run"),
                      wasp_profile_intern_string(p, "A.java"), 10};
    uint32_t f4 = wasp_profile_intern_frame(p, &nat); /* same fields, other kind */
    assert_int_equal(f1, f3);
    assert_int_not_equal(f1, f2);
    assert_int_not_equal(f1, f4);
    assert_int_equal(p->nframes, 3);
    assert_int_equal(p->frames[f2].line, 11);
    wasp_frame bad = {WASP_FRAME_JAVA, 1234, 0, 1};
    assert_int_equal(wasp_profile_intern_frame(p, &bad), UINT32_MAX);
    assert_int_equal(p->nframes, 3);
    wasp_profile_free(p);
}

static void test_intern_context_dedup(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    const char *m[] = {"pkg.Main.main", "pkg.Main.work"};
    int l[] = {10, 42};
    uint32_t c1 = ctx_of(p, "movl %eax, (%rbx)", 2, m, l);
    uint32_t c2 = ctx_of(p, "movl %eax, (%rbx)", 2, m, l);
    uint32_t c3 = ctx_of(p, "movl %ecx, (%rbx)", 2, m, l); /* other instruction */
    uint32_t c4 = ctx_of(p, "movl %eax, (%rbx)", 1, m, l); /* a prefix */
    uint32_t c5 = ctx_of(p, NULL, 0, m, l);                /* empty */
    uint32_t c6 = ctx_of(p, NULL, 0, m, l);
    assert_int_equal(c1, c2);
    assert_int_not_equal(c1, c3);
    assert_int_not_equal(c1, c4);
    assert_int_equal(c5, c6);
    assert_int_equal(p->ncontexts, 4);
    const wasp_context *c = &p->contexts[c1];
    assert_int_equal(c->nframes, 2);
    assert_string_equal(wasp_profile_string(p, p->frames[p->frame_refs[c->first]].name),
                        "pkg.Main.main");
    assert_string_equal(wasp_profile_string(p, p->frames[p->frame_refs[c->first + 1]].name),
                        "pkg.Main.work");
    uint32_t bad[] = {0, 77};
    assert_int_equal(wasp_profile_intern_context(p, bad, 2, 0), UINT32_MAX);
    assert_int_equal(wasp_profile_intern_context(p, bad, 1, 999), UINT32_MAX);
    assert_int_equal(p->ncontexts, 4);
    wasp_profile_free(p);
}

static void test_add_pair_sums(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    const char *m[] = {"pkg.Main.main", "pkg.Main.work"};
    int l[] = {10, 42}, l2[] = {10, 43};
    uint32_t w = ctx_of(p, NULL, 2, m, l), t = ctx_of(p, NULL, 2, m, l2);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, w, t, 8, 1);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, w, t, 16, 2.5);
    assert_int_equal(pair_count(p), 1);
    assert_true(pairs_of(p)[0].bytes == 24);
    assert_true(pairs_of(p)[0].count == 3.5);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, WASP_PAIR_APPROX, w, t, 4, 1); /* other flags */
    wasp_profile_add_pair(p, WASP_AN_SILENTSTORE, 0, w, t, 4, 1);              /* other analysis */
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, t, w, 4, 1);                /* swapped */
    assert_int_equal(pair_count(p), 4);
    assert_true(pairs_of(p)[0].bytes == 24);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, w, 99, 4, 1); /* bad context: dropped */
    wasp_profile_add_pair(p, WASP_AN_COUNT, 0, w, t, 4, 1);      /* bad analysis: dropped */
    assert_int_equal(pair_count(p), 4);
    wasp_profile_free(p);
}

static void test_totals_and_fractions(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    /* zero denominators */
    assert_true(wasp_fraction_prog(p, WASP_AN_DEADSTORE) == 0);
    wasp_pair lone = {.analysis = WASP_AN_SILENTLOAD, .bytes = 5};
    assert_true(wasp_fraction_pair(p, &lone) == 0);

    wasp_totals a = {100, 30, 0, 10}, b = {100, 10, 10, 5};
    wasp_profile_add_totals(p, WASP_AN_SILENTSTORE, &a);
    wasp_profile_add_totals(p, WASP_AN_SILENTSTORE, &b);
    assert_true(totals_of(p, WASP_AN_SILENTSTORE).bytes == 200);
    assert_true(totals_of(p, WASP_AN_SILENTSTORE).wasted == 40);
    assert_true(totals_of(p, WASP_AN_SILENTSTORE).wasted_approx == 10);
    assert_true(totals_of(p, WASP_AN_SILENTSTORE).pairs == 15);
    /* F_prog = (40 + 10) / 200 */
    assert_true(wasp_fraction_prog(p, WASP_AN_SILENTSTORE) == 0.25);
    assert_true(wasp_fraction_prog(p, WASP_AN_DEADSTORE) == 0); /* other analysis untouched */
    assert_true(wasp_fraction_prog(p, WASP_AN_COUNT) == 0);
    wasp_pair q = {.analysis = WASP_AN_SILENTSTORE, .bytes = 50};
    assert_true(wasp_fraction_pair(p, &q) == 0.25);
    q.analysis = WASP_AN_DEADSTORE; /* its analysis has no bytes */
    assert_true(wasp_fraction_pair(p, &q) == 0);
    wasp_profile_free(p);
}

static void test_sorted_pairs(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t c[4];
    for (int i = 0; i < 4; i++) {
        const char *m[] = {"pkg.M.f"};
        int l[] = {i + 1};
        c[i] = ctx_of(p, NULL, 1, m, l);
    }
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c[0], c[0], 10, 1);  /* 0 */
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c[2], c[1], 30, 1);  /* 1 */
    wasp_profile_add_pair(p, WASP_AN_SILENTLOAD, 0, c[3], c[3], 99, 1); /* 2: other */
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c[1], c[3], 30, 1);  /* 3: tie, lower watch */
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c[1], c[2], 30, 1);  /* 4: tie, lower trap */
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c[3], c[0], 50, 1);  /* 5 */
    uint32_t n;
    uint32_t *o = wasp_profile_sorted_pairs(p, WASP_AN_DEADSTORE, &n);
    assert_non_null(o);
    assert_int_equal(n, 5);
    uint32_t want[] = {5, 4, 3, 1, 0};
    for (int i = 0; i < 5; i++)
        assert_int_equal(o[i], want[i]);
    free(o);
    o = wasp_profile_sorted_pairs(p, WASP_AN_SILENTSTORE, &n);
    assert_non_null(o); /* non-NULL even when empty: NULL means out of memory */
    assert_int_equal(n, 0);
    free(o);
    wasp_profile_free(p);
}

static void test_meta_and_counters(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    assert_null(wasp_profile_get_meta(p, "sampler"));
    wasp_profile_set_meta(p, "sampler", "soft");
    wasp_profile_set_meta(p, "period", "1ms");
    wasp_profile_set_meta(p, "sampler", "pmu");
    assert_string_equal(wasp_profile_get_meta(p, "sampler"), "pmu");
    assert_string_equal(wasp_profile_get_meta(p, "period"), "1ms");
    assert_int_equal(p->nmeta, 2);
    assert_int_equal(wasp_profile_get_counter(p, "samples"), 0);
    wasp_profile_add_counter(p, "samples", 5);
    wasp_profile_add_counter(p, "dropped.gc", 0);
    wasp_profile_add_counter(p, "samples", 7);
    assert_int_equal(wasp_profile_get_counter(p, "samples"), 12);
    assert_int_equal(wasp_profile_get_counter(p, "dropped.gc"), 0);
    assert_int_equal(p->ncounters, 2);
    wasp_profile_free(p);
}

/* The pair of analysis a whose contexts' leaf frames are (watch_line, trap_line), by names. */
static const wasp_pair *find_pair(const wasp_profile *p, wasp_analysis a, const char *watch_leaf,
                                  const char *trap_leaf)
{
    for (uint32_t i = 0; i < pair_count(p); i++) {
        const wasp_pair *q = &pairs_of(p)[i];
        const wasp_context *w = &p->contexts[q->watch_ctx], *t = &p->contexts[q->trap_ctx];
        if (q->analysis != (uint32_t)a || !w->nframes || !t->nframes)
            continue;
        const wasp_frame *wf = &p->frames[p->frame_refs[w->first + w->nframes - 1]];
        const wasp_frame *tf = &p->frames[p->frame_refs[t->first + t->nframes - 1]];
        char wn[128], tn[128];
        snprintf(wn, sizeof wn, "%s:%d", wasp_profile_string(p, wf->name), wf->line);
        snprintf(tn, sizeof tn, "%s:%d", wasp_profile_string(p, tf->name), tf->line);
        if (!strcmp(wn, watch_leaf) && !strcmp(tn, trap_leaf))
            return q;
    }
    return NULL;
}

static void test_merge(void **state)
{
    (void)state;
    wasp_profile *a = wasp_profile_new(), *b = wasp_profile_new();
    const char *m[] = {"pkg.Main.main", "pkg.Main.work"};
    int l42[] = {10, 42}, l43[] = {10, 43}, l50[] = {10, 50};

    uint32_t a42 = ctx_of(a, "insnA", 2, m, l42), a43 = ctx_of(a, NULL, 2, m, l43);
    wasp_profile_add_pair(a, WASP_AN_DEADSTORE, 0, a42, a43, 100, 10);
    wasp_profile_set_meta(a, "sampler", "soft");
    wasp_profile_add_counter(a, "samples", 1000);
    wasp_totals ta = {400, 100, 0, 20};
    wasp_profile_add_totals(a, WASP_AN_DEADSTORE, &ta);

    /* b interns in another order (and extra strings first) so its ids differ. */
    wasp_profile_intern_string(b, "padding-1");
    wasp_profile_intern_string(b, "padding-2");
    uint32_t b50 = ctx_of(b, NULL, 2, m, l50);
    uint32_t b43 = ctx_of(b, NULL, 2, m, l43), b42 = ctx_of(b, "insnA", 2, m, l42);
    wasp_profile_add_pair(b, WASP_AN_DEADSTORE, 0, b42, b43, 50, 5); /* overlaps a's pair */
    wasp_profile_add_pair(b, WASP_AN_DEADSTORE, 0, b50, b42, 7, 1);  /* new in a */
    wasp_profile_add_pair(b, WASP_AN_SILENTLOAD, WASP_PAIR_APPROX, b43, b50, 3, 1);
    wasp_profile_set_meta(b, "sampler", "pmu");
    wasp_profile_set_meta(b, "host", "b-host");
    wasp_profile_add_counter(b, "samples", 500);
    wasp_profile_add_counter(b, "dropped.gc", 2);
    wasp_totals tb = {100, 50, 0, 10};
    wasp_profile_add_totals(b, WASP_AN_DEADSTORE, &tb);
    b->merged = 3;

    assert_int_equal(wasp_profile_merge(a, b), 0);
    assert_int_equal(pair_count(a), 3);
    const wasp_pair *q = find_pair(a, WASP_AN_DEADSTORE, "pkg.Main.work:42", "pkg.Main.work:43");
    assert_non_null(q);
    assert_true(q->bytes == 150 && q->count == 15);
    assert_string_equal(wasp_profile_string(a, a->contexts[q->watch_ctx].insn), "insnA");
    q = find_pair(a, WASP_AN_DEADSTORE, "pkg.Main.work:50", "pkg.Main.work:42");
    assert_non_null(q);
    assert_true(q->bytes == 7 && q->count == 1);
    q = find_pair(a, WASP_AN_SILENTLOAD, "pkg.Main.work:43", "pkg.Main.work:50");
    assert_non_null(q);
    assert_int_equal(q->flags, WASP_PAIR_APPROX);
    /* shared names and contexts were not duplicated */
    assert_int_equal(a->ncontexts, 3);
    assert_int_equal(a->nframes, 4);
    assert_true(totals_of(a, WASP_AN_DEADSTORE).bytes == 500);
    assert_true(totals_of(a, WASP_AN_DEADSTORE).wasted == 150);
    assert_true(totals_of(a, WASP_AN_DEADSTORE).pairs == 30);
    assert_int_equal(wasp_profile_get_counter(a, "samples"), 1500);
    assert_int_equal(wasp_profile_get_counter(a, "dropped.gc"), 2);
    assert_string_equal(wasp_profile_get_meta(a, "sampler"), "soft"); /* dst wins */
    assert_string_equal(wasp_profile_get_meta(a, "host"), "b-host");  /* src-only copied */
    assert_int_equal(a->merged, 4);
    assert_int_equal(wasp_profile_merge(a, a), -1);
    wasp_profile_free(a);
    wasp_profile_free(b);
}

/* Many entries: the hash indices must keep finding everything as they grow,
 * and merging two large profiles must stay fast (linear). */
static void test_large_merge(void **state)
{
    (void)state;
    enum { N = 100000 };
    wasp_profile *a = wasp_profile_new(), *b = wasp_profile_new();
    for (int which = 0; which < 2; which++) {
        wasp_profile *p = which ? b : a;
        for (int i = 0; i < N; i++) {
            char name[32];
            snprintf(name, sizeof name, "pkg.C%d.m", (which ? N / 2 : 0) + i);
            uint32_t f = java_frame(p, name, "C.java", i % 1000);
            uint32_t c = wasp_profile_intern_context(p, &f, 1, 0);
            wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 1, 1);
        }
    }
    assert_int_equal(pair_count(a), N);
    /* after all the growth, old entries are still found, not re-added */
    uint32_t nstr = a->nstrings;
    const wasp_frame *f777 = &a->frames[a->frame_refs[a->contexts[777].first]];
    assert_string_equal(wasp_profile_string(a, f777->name), "pkg.C777.m");
    assert_int_equal(wasp_profile_intern_string(a, "pkg.C777.m"), f777->name);
    assert_int_equal(a->nstrings, nstr);
    assert_int_equal(wasp_profile_merge(a, b), 0);
    assert_int_equal(pair_count(a), N + N / 2); /* half of b's pairs overlap a's */
    double sum = 0;
    for (uint32_t i = 0; i < pair_count(a); i++)
        sum += pairs_of(a)[i].bytes;
    assert_true(sum == 2.0 * N);
    uint32_t n;
    uint32_t *o = wasp_profile_sorted_pairs(a, WASP_AN_DEADSTORE, &n);
    assert_int_equal(n, N + N / 2);
    assert_true(pairs_of(a)[o[0]].bytes == 2 && pairs_of(a)[o[n - 1]].bytes == 1);
    free(o);
    wasp_profile_free(a);
    wasp_profile_free(b);
}

/* The profile parts' registry: one part per analysis, no section tag used
 * twice (the reader would not know whose it is), and grouping's slots laid
 * out one after the other. */
static void test_parts_registry(void **state)
{
    (void)state;
    uint32_t tags[64] = {WASP_SEC_END,    WASP_SEC_META,     WASP_SEC_STRINGS,
                         WASP_SEC_FRAMES, WASP_SEC_CONTEXTS, WASP_SEC_COUNTERS,
                         WASP_SEC_MERGED, WASP_SEC_SITES};
    uint32_t ntags = 8;
    assert_null(wasp_profile_part_of(-1));
    assert_null(wasp_profile_part_of(WASP_ANALYSES));
    assert_int_equal(wasp_profile_part_slot(0), WASP_CORE_SLOTS);
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_profile_part *part = wasp_profile_part_of(id);
        assert_non_null(part);
        assert_int_equal(wasp_profile_part_slot(id + 1),
                         wasp_profile_part_slot(id) + part->context_roles);
        /* data needs a way out; contexts need weighing for grouping */
        if (part->encode || part->decode || part->merge)
            assert_non_null(part->free);
        if (part->context_roles)
            assert_true(part->weigh && part->merge && part->check);
        for (int k = 0; k < WASP_PART_SECTIONS && part->sections[k]; k++) {
            for (uint32_t i = 0; i < ntags; i++)
                if (tags[i] == part->sections[k])
                    fail_msg("analysis %d: section tag %.4s used twice", id,
                             (const char *)&part->sections[k]);
            assert_true(ntags < sizeof tags / sizeof *tags);
            tags[ntags++] = part->sections[k];
        }
    }
    assert_int_equal(wasp_profile_slots(), wasp_profile_part_slot(WASP_ANALYSES));

    /* a part's data is there once it records something, and only then */
    wasp_profile *p = wasp_profile_new();
    for (int id = 0; id < WASP_ANALYSES; id++)
        assert_null(p->parts[id]);
    uint32_t ctx = wasp_profile_intern_context(p, NULL, 0, 0);
    uint32_t site = wasp_profile_intern_site(p, ctx, 0);
    wasp_profile_add_site_access(p, site, ctx, 1, 0);
    void *objects = p->parts[WASP_ID_objects];
    assert_non_null(objects);
    assert_ptr_equal(wasp_profile_part_data(p, WASP_ID_objects, 1), objects);
    for (int id = 0; id < WASP_ANALYSES; id++)
        if (id != WASP_ID_objects)
            assert_null(p->parts[id]);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_profile),
        cmocka_unit_test(test_intern_string_dedup),  cmocka_unit_test(test_intern_frame_dedup),
        cmocka_unit_test(test_intern_context_dedup), cmocka_unit_test(test_add_pair_sums),
        cmocka_unit_test(test_totals_and_fractions), cmocka_unit_test(test_sorted_pairs),
        cmocka_unit_test(test_meta_and_counters),    cmocka_unit_test(test_merge),
        cmocka_unit_test(test_large_merge),          cmocka_unit_test(test_parts_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
