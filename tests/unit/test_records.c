/* Per-thread records: interning, summing, full tables; watch spans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "watch/records.h"
#include "watch/slots.h"

static void traces_are_interned(void **state)
{
    (void)state;
    wasp_records r;
    assert_int_equal(wasp_records_init(&r, 64, 0), 0);
    wasp_rframe a[3] = {{1, (void *)0x10}, {2, (void *)0x20}, {3, (void *)0x30}};
    wasp_rframe b[3] = {{1, (void *)0x10}, {2, (void *)0x20}, {4, (void *)0x30}};
    uint32_t ta = wasp_records_trace(&r, a, 3);
    uint32_t tb = wasp_records_trace(&r, b, 3);
    assert_true(ta && tb && ta != tb);
    assert_int_equal(wasp_records_trace(&r, a, 3), ta);
    assert_int_equal(wasp_records_trace(&r, a, 2) != ta, 1);
    /* failed walks are traces too, distinguished by their status */
    uint32_t e2 = wasp_records_trace(&r, a, -2), e5 = wasp_records_trace(&r, a, -5);
    assert_true(e2 && e5 && e2 != e5);
    assert_int_equal(r.traces[e2 - 1].status, -2);
    assert_int_equal(r.traces[e2 - 1].nframes, 0);
    assert_int_equal(r.ntraces, 5);
    wasp_records_free(&r);
}

/* The padding after bci is not part of a frame: two copies of one stack
 * whose padding differs are one trace (memcmp over the frames once split an
 * allocation site in two). */
static void padding_is_not_part_of_a_frame(void **state)
{
    (void)state;
    wasp_rframe a[2], b[2];
    memset(a, 0x00, sizeof a);
    memset(b, 0xa5, sizeof b);
    for (int i = 0; i < 2; i++) {
        a[i].bci = b[i].bci = 10 + i;
        a[i].method = b[i].method = (void *)(uintptr_t)(0x100 * (i + 1));
    }
    assert_true(memcmp(a, b, sizeof a) != 0); /* the test means something */
    assert_true(wasp_rframes_equal(a, b, 2));
    b[1].bci++;
    assert_false(wasp_rframes_equal(a, b, 2));
    b[1].bci--;

    wasp_records r;
    assert_int_equal(wasp_records_init(&r, 64, 0), 0);
    uint32_t ta = wasp_records_trace(&r, a, 2);
    assert_true(ta != 0);
    assert_int_equal(wasp_records_trace(&r, b, 2), ta);
    assert_int_equal(r.ntraces, 1);
    wasp_records_free(&r);
}

static void contexts_and_pairs(void **state)
{
    (void)state;
    wasp_records r;
    assert_int_equal(wasp_records_init(&r, 64, 0), 0);
    wasp_rframe f[1] = {{7, (void *)0x70}};
    uint32_t t = wasp_records_trace(&r, f, 1);
    uint8_t insn[3] = {0x89, 0x03, 0x90};
    uint32_t c1 = wasp_records_context(&r, t, 0x1000, insn, 2);
    uint32_t c2 = wasp_records_context(&r, t, 0x1010, insn, 2);
    assert_int_not_equal(c1, c2);
    assert_int_equal(wasp_records_context(&r, t, 0x1000, insn, 2), c1);
    assert_int_equal(r.contexts[c1 - 1].insn_len, 2);
    assert_memory_equal(r.contexts[c1 - 1].insn, insn, 2);

    assert_int_equal(wasp_records_pair(&r, WASP_AN_DEADSTORE, 0, c1, c2, 8, 1), 0);
    assert_int_equal(wasp_records_pair(&r, WASP_AN_DEADSTORE, 0, c1, c2, 16, 2), 0);
    assert_int_equal(wasp_records_pair(&r, WASP_AN_SILENTSTORE, 0, c1, c2, 4, 1), 0);
    assert_int_equal(wasp_records_pair(&r, WASP_AN_DEADSTORE, 0, c2, c1, 4, 1), 0);
    assert_int_equal(r.npairs, 3);
    double dead = 0;
    for (uint32_t i = 0; i < r.cap_pairs; i++)
        if (r.pairs[i].watch_ctx == c1 && r.pairs[i].analysis == WASP_AN_DEADSTORE)
            dead += r.pairs[i].bytes;
    assert_float_equal(dead, 24, 1e-9);
    /* a missing context is refused, not recorded */
    assert_int_equal(wasp_records_pair(&r, WASP_AN_DEADSTORE, 0, 0, c2, 4, 1), -1);
    wasp_records_free(&r);
}

static void full_context_table_counts_a_drop(void **state)
{
    (void)state;
    wasp_records r;
    assert_int_equal(wasp_records_init(&r, 64, 0), 0);
    uint8_t insn[1] = {0x90};
    uint32_t stored = 0;
    for (uint64_t pc = 1; pc < 2ull * r.cap_contexts; pc++)
        stored += wasp_records_context(&r, 0, pc * 16, insn, 1) != 0;
    assert_true(stored < r.cap_contexts);
    assert_true(stored > r.cap_contexts / 2);
    assert_true(r.counters[WASP_C_DROP_TABLE_FULL] > 0);
    wasp_records_free(&r);
}

/* Each analysis that asked for a site table gets its own: sums per
 * (site, context), nothing for an analysis without one. */
static void site_tables_are_per_analysis(void **state)
{
    (void)state;
    wasp_records r;
    assert_int_equal(wasp_records_init(&r, 64, 1u << WASP_ID_objects | 1u << WASP_ID_replicas), 0);
    assert_null(r.sites[WASP_ID_deadstore]);
    assert_int_equal(wasp_records_site(&r, WASP_ID_deadstore, 1, 1, 1.0, 0.0, 0.0), -1);
    assert_int_equal(wasp_records_site(&r, WASP_ID_objects, 7, 3, 1.0, 0.0, 0.0), 0);
    assert_int_equal(wasp_records_site(&r, WASP_ID_objects, 7, 3, 1.0, 1.0, 0.0), 0);
    assert_int_equal(wasp_records_site(&r, WASP_ID_objects, 8, 3, 1.0, 0.0, 0.0), 0);
    assert_int_equal(wasp_records_site(&r, WASP_ID_replicas, 7, 3, 0.0, 1.0, 0.0), 0);
    assert_int_equal(r.nsites[WASP_ID_objects], 2);
    assert_int_equal(r.nsites[WASP_ID_replicas], 1);
    double a = 0, b = 0;
    for (uint32_t i = 0; i < r.cap_sites; i++) {
        const wasp_rsite *e = &r.sites[WASP_ID_objects][i];
        if (e->site == 7 + 1 && e->access_ctx == 3)
            a += e->a, b += e->b;
    }
    assert_true(a == 2.0 && b == 1.0);
    /* the third sum (replicas: equal comparisons of zero words) adds up too */
    assert_int_equal(wasp_records_site(&r, WASP_ID_replicas, 7, 3, 1.0, 0.0, 1.0), 0);
    assert_int_equal(wasp_records_site(&r, WASP_ID_replicas, 7, 3, 1.0, 0.0, 0.0), 0);
    double c = 0;
    for (uint32_t i = 0; i < r.cap_sites; i++) {
        const wasp_rsite *e = &r.sites[WASP_ID_replicas][i];
        if (e->site == 7 + 1 && e->access_ctx == 3)
            a = e->a, b = e->b, c = e->c;
    }
    assert_true(a == 2.0 && b == 1.0 && c == 1.0);
    assert_int_equal(wasp_records_site(&r, WASP_ID_objects, 7, 0, 1.0, 0.0, 0.0), -1); /* no context */
    wasp_records_free(&r);
}

static void watch_span_is_aligned_inside_access(void **state)
{
    (void)state;
    uint64_t a;
    int len;
    wasp_watch_span(0x1000, 8, &a, &len);
    assert_int_equal(len, 8);
    wasp_watch_span(0x1004, 8, &a, &len); /* misaligned 8-byte access */
    assert_int_equal(len, 4);
    assert_int_equal(a, 0x1004);
    wasp_watch_span(0x1000, 32, &a, &len); /* a vector store: an 8-byte part */
    assert_int_equal(len, 8);
    wasp_watch_span(0x1002, 4, &a, &len);
    assert_int_equal(len, 2);
    wasp_watch_span(0x1001, 4, &a, &len);
    assert_int_equal(len, 1);
    wasp_watch_span(0x1000, 2, &a, &len);
    assert_int_equal(len, 2);
    wasp_watch_span(0x1008, 1, &a, &len);
    assert_int_equal(len, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(traces_are_interned),
        cmocka_unit_test(padding_is_not_part_of_a_frame),
        cmocka_unit_test(contexts_and_pairs),
        cmocka_unit_test(full_context_table_counts_a_drop),
        cmocka_unit_test(site_tables_are_per_analysis),
        cmocka_unit_test(watch_span_is_aligned_inside_access),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
