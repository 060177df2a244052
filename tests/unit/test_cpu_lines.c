/* The CPU samples by line (issue 40): the handler's PC histogram
 * (watch/pc_hist.h) counts by (method id, pc), tells a PC reused by another
 * method apart, counts samples outside compiled code and a full table's;
 * a PC maps to the Java frames of the first debug record after it
 * (watch/pc_frames.h), inlined ones included; an inline chain counts once
 * at each (method, line) (profile/cpu_lines.h); the section reads back,
 * merges, and is absent from a profile without lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pthread.h>

#include "profile/bytes.h"
#include "profile/codec.h"
#include "profile/cpu_lines.h"
#include "profile/profile.h"
#include "watch/pc_frames.h"
#include "watch/pc_hist.h"

typedef struct seen_pc {
    uint32_t id;
    uint64_t pc, count;
} seen_pc;

typedef struct visits {
    seen_pc v[64];
    int n;
} visits;

static void visit(void *ctx, uint32_t id, uint64_t pc, uint64_t count)
{
    visits *s = ctx;
    assert_true(s->n < 64);
    s->v[s->n++] = (seen_pc){id, pc, count};
}

/* For drains whose test counts no interpreter's sample: one fails it. */
static void no_interpreted(void *ctx, const void *method, int32_t bci, uint64_t count)
{
    (void)ctx;
    (void)method;
    (void)bci;
    (void)count;
    fail_msg("an interpreter's sample where none was counted");
}

static uint64_t count_of(const visits *s, uint32_t id, uint64_t pc)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i].id == id && s->v[i].pc == pc)
            return s->v[i].count;
    return 0;
}

static void histogram_counts_by_method_and_pc(void **state)
{
    (void)state;
    assert_int_equal(wasp_pc_hist_init(1024), 0);
    for (int i = 0; i < 5; i++)
        wasp_pc_hist_count(7, 0x7f0000001000ull);
    wasp_pc_hist_count(9, 0x7f0000001000ull); /* the same pc, a later method */
    wasp_pc_hist_count(0xffff, 0x7f0000001000ull); /* the highest id told apart */
    wasp_pc_hist_count(7, 0x7f0000001004ull);
    wasp_pc_hist_count(0, 0x7f0000002000ull); /* the interpreter, or a method not published yet */
    visits s = {0};
    wasp_pc_hist_totals t;
    wasp_pc_hist_drain(visit, no_interpreted, &s, &t);
    assert_int_equal(s.n, 5);
    assert_int_equal(count_of(&s, 0xffff, 0x7f0000001000ull), 1);
    assert_int_equal(count_of(&s, 0, 0x7f0000002000ull), 1); /* kept for the dump to look up */
    assert_int_equal(count_of(&s, 7, 0x7f0000001000ull), 5);
    assert_int_equal(count_of(&s, 9, 0x7f0000001000ull), 1);
    assert_int_equal(count_of(&s, 7, 0x7f0000001004ull), 1);
    assert_int_equal(t.total, 9);
    assert_int_equal(t.not_compiled, 1);
    assert_int_equal(t.dropped, 0);
    /* Drained: the next drain has only what came since. */
    wasp_pc_hist_count(7, 0x7f0000001004ull);
    s.n = 0;
    wasp_pc_hist_drain(visit, no_interpreted, &s, &t);
    assert_int_equal(s.n, 1);
    assert_int_equal(t.total, 1);
    assert_int_equal(count_of(&s, 7, 0x7f0000001004ull), 1);
}

/* One sample at each of base + 1 .. base + n in method id. */
static void count_pcs(uint32_t id, uint64_t base, uint64_t n)
{
    for (uint64_t pc = 1; pc <= n; pc++)
        wasp_pc_hist_count(id, base + pc);
}

static void full_table_counts_drops(void **state)
{
    (void)state;
    assert_int_equal(wasp_pc_hist_init(16), 0);
    count_pcs(1, 0x1000, 40);
    visits s = {0};
    wasp_pc_hist_totals t;
    wasp_pc_hist_drain(visit, no_interpreted, &s, &t);
    assert_int_equal(s.n, 16);
    assert_int_equal(t.total, 40);
    assert_int_equal(t.dropped, 24);
    assert_int_equal(wasp_pc_hist_init(12), -1); /* not a power of two */
}

/* Samples outside the published methods keep their pcs in an eighth of the
 * slots at most, the rest counted as not compiled without a pc, none as
 * dropped; compiled code keeps the other slots. */
static void outside_pcs_take_an_eighth(void **state)
{
    (void)state;
    assert_int_equal(wasp_pc_hist_init(16), 0);
    count_pcs(0, 0x2000, 5);
    count_pcs(1, 0x1000, 14);
    visits s = {0};
    wasp_pc_hist_totals t;
    wasp_pc_hist_drain(visit, no_interpreted, &s, &t);
    assert_int_equal(s.n, 16);
    assert_int_equal(count_of(&s, 0, 0x2001), 1);
    assert_int_equal(count_of(&s, 0, 0x2002), 1);
    assert_int_equal(count_of(&s, 0, 0x2003), 0);
    assert_int_equal(t.total, 19);
    assert_int_equal(t.not_compiled, 5);
    assert_int_equal(t.dropped, 0);
}

/* A drain frees every slot: the next interval's PCs find room although the
 * last one filled the table, and the outside PCs' eighth is theirs again
 * (a long-lived service samples more PCs over hours than a table holds). */
static void drain_frees_the_slots(void **state)
{
    (void)state;
    assert_int_equal(wasp_pc_hist_init(16), 0);
    visits s = {0};
    wasp_pc_hist_totals t;
    for (int round = 0; round < 3; round++) {
        count_pcs(0, 0x2000 + 0x100 * (uint64_t)round, 2);
        count_pcs(1, 0x1000 + 0x100 * (uint64_t)round, 14);
        s.n = 0;
        wasp_pc_hist_drain(visit, no_interpreted, &s, &t);
        assert_int_equal(s.n, 16);
        assert_int_equal(t.total, 16);
        assert_int_equal(t.dropped, 0);
        assert_int_equal(count_of(&s, 0, 0x2001 + 0x100 * (uint64_t)round), 1);
        assert_int_equal(count_of(&s, 1, 0x100e + 0x100 * (uint64_t)round), 1);
    }
}

typedef struct interp_seen {
    const void *method;
    int32_t bci;
    uint64_t count;
} interp_seen;

static void interp_visit(void *ctx, const void *method, int32_t bci, uint64_t count)
{
    interp_seen *s = ctx;
    for (; s->count; s++)
        ;
    *s = (interp_seen){method, bci, count};
}

static void pc_visit(void *ctx, uint32_t id, uint64_t pc, uint64_t count)
{
    (void)ctx;
    (void)id;
    (void)pc;
    (void)count;
}

/* The interpreter's samples come back as (method, bci), counted not compiled
 * and kept within the outside PCs' eighth; a method that cannot be keyed (not
 * 8-byte aligned, above 2^47) or a bci out of range counts, with no place. */
static void interpreted_by_method_and_bci(void **state)
{
    (void)state;
    assert_int_equal(wasp_pc_hist_init(64), 0);
    const void *m1 = (const void *)(uintptr_t)0x7f12345678a0ull,
               *m2 = (const void *)(uintptr_t)0x00005555aaaa0008ull;
    for (int i = 0; i < 3; i++)
        wasp_pc_hist_count_interpreted(m1, 65535);
    wasp_pc_hist_count_interpreted(m2, 0);
    wasp_pc_hist_count_interpreted(m1, 7);
    wasp_pc_hist_count_interpreted((const void *)(uintptr_t)0x7f1234567891ull, 1); /* unaligned */
    wasp_pc_hist_count_interpreted(m1, 70000);
    interp_seen seen[8] = {{0}};
    wasp_pc_hist_totals t;
    wasp_pc_hist_drain(pc_visit, interp_visit, seen, &t);
    assert_int_equal(t.total, 7);
    assert_int_equal(t.not_compiled, 7);
    uint64_t m1_last = 0, m2_first = 0, m1_7 = 0;
    int n = 0;
    for (; seen[n].count; n++) {
        if (seen[n].method == m1 && seen[n].bci == 65535)
            m1_last = seen[n].count;
        if (seen[n].method == m2 && seen[n].bci == 0)
            m2_first = seen[n].count;
        if (seen[n].method == m1 && seen[n].bci == 7)
            m1_7 = seen[n].count;
    }
    assert_int_equal(n, 3);
    assert_int_equal(m1_last, 3);
    assert_int_equal(m2_first, 1);
    assert_int_equal(m1_7, 1);
}

enum { COUNTERS = 2, COUNTS = 200000, MIN_DRAINS = 20 };
static int counters_done, drains_done;
static uint64_t counted[COUNTERS];

/* Counts at least COUNTS samples, and goes on until MIN_DRAINS drains have
 * run, so that drains overlap the counting however the threads are
 * scheduled. */
static void *counter(void *arg)
{
    int me = (int)(uintptr_t)arg;
    uint64_t base = 0x10000 * (uint64_t)(me + 1), i = 0;
    for (; i < COUNTS || __atomic_load_n(&drains_done, __ATOMIC_ACQUIRE) < MIN_DRAINS; i++) {
        if (i % 3 == 0)
            wasp_pc_hist_count_caller(5, base + i % 64);
        else
            wasp_pc_hist_count(5, base + i % 64);
    }
    counted[me] = i;
    __atomic_add_fetch(&counters_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void sum_visit(void *ctx, uint32_t id, uint64_t pc, uint64_t count)
{
    (void)id;
    (void)pc;
    *(uint64_t *)ctx += count;
}

/* Drains while threads count: every sample is in exactly one drain, its pc
 * and its totals in the same one. */
static void drains_lose_nothing(void **state)
{
    (void)state;
    assert_int_equal(wasp_pc_hist_init(1024), 0);
    pthread_t th[COUNTERS];
    for (int i = 0; i < COUNTERS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, counter, (void *)(uintptr_t)i), 0);
    uint64_t visited = 0, total = 0, via = 0;
    while (__atomic_load_n(&counters_done, __ATOMIC_ACQUIRE) < COUNTERS) {
        uint64_t v = 0;
        wasp_pc_hist_totals t;
        wasp_pc_hist_drain(sum_visit, no_interpreted, &v, &t);
        assert_int_equal(v, t.total); /* a drain's pcs and totals agree */
        visited += v;
        total += t.total;
        via += t.via_caller;
        __atomic_add_fetch(&drains_done, 1, __ATOMIC_RELEASE);
    }
    uint64_t want = 0, want_via = 0;
    for (int i = 0; i < COUNTERS; i++) {
        pthread_join(th[i], NULL);
        want += counted[i];
        want_via += (counted[i] + 2) / 3;
    }
    uint64_t v = 0;
    wasp_pc_hist_totals t;
    wasp_pc_hist_drain(sum_visit, no_interpreted, &v, &t);
    visited += v;
    total += t.total;
    via += t.via_caller;
    assert_int_equal(total, want);
    assert_int_equal(visited, want);
    assert_int_equal(via, want_via);
}

/* The debug records of one compiled method: at 0x110 line A's bci inlined
 * into B; at 0x120 B alone. A sample's pc maps to the first record after. */
static void pc_maps_to_the_next_record(void **state)
{
    (void)state;
    static int ma, mb;
    const uint64_t pcs[] = {0x110, 0x120};
    const uint32_t first[] = {0, 2};
    const uint16_t nframes[] = {2, 1};
    const wasp_rframe frames[] = {{.bci = 3, .method = &ma}, {.bci = 8, .method = &mb},
                                  {.bci = 12, .method = &mb}};
    wasp_pc_frames d = {.npcs = 2, .pcs = pcs, .first = first, .nframes = nframes,
                        .frames = frames};
    wasp_rframe out[4];
    assert_int_equal(wasp_pc_frames_at(&d, 0x100, out, 4), 2);
    assert_ptr_equal(out[0].method, &ma); /* the inlined leaf first */
    assert_int_equal(out[1].bci, 8);
    assert_int_equal(wasp_pc_frames_at(&d, 0x110, out, 4), 1); /* past 0x110: the next */
    assert_int_equal(out[0].bci, 12);
    assert_int_equal(wasp_pc_frames_at(&d, 0x120, out, 4), 0); /* after the last */
}

static wasp_frame java(wasp_profile *p, const char *method, int32_t line)
{
    return (wasp_frame){.kind = WASP_FRAME_JAVA, .name = wasp_profile_intern_string(p, method),
                        .file = wasp_profile_intern_string(p, "Main.java"), .line = line};
}

static wasp_profile *round_trip(const wasp_profile *p)
{
    wasp_wbuf b = {0};
    char err[256];
    assert_int_equal(wasp_profile_encode(p, &b, err, sizeof err), 0);
    wasp_profile *q = wasp_profile_decode(b.data, b.len, err, sizeof err);
    assert_non_null(q);
    wasp_wbuf_free(&b);
    return q;
}

static void chain_counts_once_per_line(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    assert_false(wasp_profile_has_cpu_lines(p));
    /* get() inlined into loop() at line 10; loop() recursive at line 10. */
    wasp_frame chain[] = {java(p, "Main.get", 3), java(p, "Main.loop", 10),
                          java(p, "Main.loop", 10), java(p, "Main.main", 20)};
    assert_int_equal(wasp_profile_add_cpu_chain(p, chain, 4, 6), 0);
    assert_int_equal(wasp_profile_add_cpu_chain(p, chain + 1, 3, 4), 0);
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 12);
    uint32_t loop = wasp_profile_intern_string(p, "Main.loop");
    assert_true(wasp_profile_cpu_at(p, loop, 10) == 10);
    assert_true(wasp_profile_cpu_at(p, wasp_profile_intern_string(p, "Main.get"), 3) == 6);
    assert_true(wasp_profile_cpu_at(p, loop, 11) == 0);
    /* by the method's name, as another profile's place looks it up */
    assert_true(wasp_profile_cpu_named(p, "Main.loop", 10) == 10);
    assert_true(wasp_profile_cpu_named(p, "Main.loop", 11) == 0);
    assert_true(wasp_profile_cpu_named(p, "Main.nowhere", 10) == 0);

    /* The innermost lines: get() for the first 6, loop() for the other 4. */
    assert_false(wasp_profile_has_cpu_leaves(p));
    assert_int_equal(wasp_profile_add_cpu_leaf(p, chain[0].name, chain[0].file, 3, 6), 0);
    assert_int_equal(wasp_profile_add_cpu_leaf(p, chain[1].name, chain[1].file, 10, 4), 0);
    assert_true(wasp_profile_cpu_leaf_at(p, loop, 10) == 4);

    wasp_profile *q = round_trip(p);
    assert_true(wasp_profile_has_cpu_lines(q));
    assert_true(wasp_profile_has_cpu_leaves(q));
    assert_true(wasp_profile_cpu_at(q, wasp_profile_intern_string(q, "Main.loop"), 10) == 10);
    assert_true(wasp_profile_cpu_leaf_at(q, wasp_profile_intern_string(q, "Main.loop"), 10) == 4);
    assert_true(wasp_profile_cpu_leaf_at(q, wasp_profile_intern_string(q, "Main.get"), 3) == 6);
    assert_true(wasp_profile_merge(q, p) == 0);
    assert_true(wasp_profile_cpu_at(q, wasp_profile_intern_string(q, "Main.main"), 20) == 20);
    assert_true(wasp_profile_cpu_leaf_at(q, wasp_profile_intern_string(q, "Main.get"), 3) == 12);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

/* A profile without lines has no section: older wasps' files read as
 * before, and a new one without samples is what they wrote. */
static void no_lines_no_section(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_wbuf b = {0};
    char err[256];
    assert_int_equal(wasp_profile_encode(p, &b, err, sizeof err), 0);
    assert_null(memmem(b.data, b.len, "CPUL", 4));
    assert_null(memmem(b.data, b.len, "CPUI", 4));
    wasp_wbuf_free(&b);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(histogram_counts_by_method_and_pc),
        cmocka_unit_test(full_table_counts_drops),
        cmocka_unit_test(outside_pcs_take_an_eighth),
        cmocka_unit_test(drain_frees_the_slots),
        cmocka_unit_test(drains_lose_nothing),
        cmocka_unit_test(interpreted_by_method_and_bci),
        cmocka_unit_test(pc_maps_to_the_next_record),
        cmocka_unit_test(chain_counts_once_per_line),
        cmocka_unit_test(no_lines_no_section),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
