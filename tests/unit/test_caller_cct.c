/* CallerChaining's calling-context tree (watch/caller_cct.h) and the debug
 * information lookup it expands frames with (watch/pc_frames.h): chaining
 * by depth, ambiguous nodes, termination, inlined frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "watch/caller_cct.h"
#include "watch/pc_frames.h"

enum { A = 1, B, C, D, E, F }; /* method keys */

static wasp_cct_edge edge(uint64_t caller, uint32_t caller_depth, uint64_t callee,
                          uint32_t callee_depth, uint64_t count)
{
    /* The call site: one per (caller, callee) pair here. */
    return (wasp_cct_edge){.caller = caller, .caller_depth = caller_depth, .callee = callee,
                           .callee_depth = callee_depth, .count = count,
                           .ret_pc = caller * 0x100 + callee, .caller_id = (uint32_t)caller};
}

/* The paper's Figure 6: D is reached by A-B-D (D at depth 90) and A-C-D
 * (D at depth 50); E is called by D and C. E at depth 100 is under A-B-D,
 * E at 60 under A-C-D: the depth tells the paths apart. */
static void figure6_paths_by_depth(void **state)
{
    (void)state;
    wasp_cct_edge e[] = {
        edge(A, 10, B, 20, 10), edge(A, 10, C, 30, 10), edge(B, 20, D, 90, 10),
        edge(C, 30, D, 50, 10), edge(D, 90, E, 100, 10), edge(D, 50, E, 60, 80),
        edge(C, 30, E, 40, 10), edge(0, 0, A, 10, 5),
    };
    wasp_cct *c = wasp_cct_build(e, sizeof e / sizeof e[0]);
    assert_non_null(c);
    const wasp_cct_edge *out[8];
    wasp_cct_end end;
    int amb = -1;
    int n = wasp_cct_callers(c, E, 100, out, 8, &end, &amb);
    assert_int_equal(n, 4); /* D, B, A, then A's caller (not compiled) */
    assert_int_equal(out[0]->caller, D);
    assert_int_equal(out[1]->caller, B);
    assert_int_equal(out[2]->caller, A);
    assert_int_equal(out[3]->caller, 0);
    assert_int_equal(end, WASP_CCT_END_NOT_COMPILED);
    assert_int_equal(amb, 0);
    n = wasp_cct_callers(c, E, 60, out, 8, &end, NULL);
    assert_int_equal(n, 4);
    assert_int_equal(out[0]->caller, D);
    assert_int_equal(out[1]->caller, C);
    assert_int_equal(out[2]->caller, A);
    /* Nodes: A10 B20 C30 D90 D50 E100 E60 E40. */
    assert_int_equal(wasp_cct_nodes(c), 8);
    assert_int_equal(wasp_cct_ambiguous(c), 0);
    wasp_cct_free(c);
}

/* Figure 7(A): B and F have the same frame size, so D at depth 50 is
 * reached from B and from F at the same depth: the node is ambiguous and
 * the hottest edge wins, whatever the input order. */
static void same_depth_is_ambiguous_hottest_wins(void **state)
{
    (void)state;
    wasp_cct_edge e[] = {
        edge(A, 10, B, 30, 10), edge(A, 10, F, 30, 10), edge(B, 30, D, 50, 3),
        edge(F, 30, D, 50, 7), edge(D, 50, E, 70, 20),
    };
    size_t n = sizeof e / sizeof e[0];
    for (int order = 0; order < 2; order++) {
        if (order) { /* reversed input: same answer */
            for (size_t i = 0; i < n / 2; i++) {
                wasp_cct_edge t = e[i];
                e[i] = e[n - 1 - i];
                e[n - 1 - i] = t;
            }
        }
        wasp_cct *c = wasp_cct_build(e, n);
        const wasp_cct_edge *out[8];
        wasp_cct_end end;
        int amb = 0;
        int k = wasp_cct_callers(c, E, 70, out, 8, &end, &amb);
        assert_int_equal(k, 3);
        assert_int_equal(out[1]->caller, F); /* 7 samples against 3 */
        assert_int_equal(amb, 1);
        assert_int_equal(end, WASP_CCT_END_UNSAMPLED); /* A has no caller edge */
        /* D50 has two edges; B30 and F30 one each (different methods). */
        assert_int_equal(wasp_cct_ambiguous(c), 1);
        wasp_cct_free(c);
    }
}

/* The same edge seen in several threads is merged: counts add up and can
 * change which edge is the hottest. */
static void duplicates_merge(void **state)
{
    (void)state;
    wasp_cct_edge e[] = {
        edge(B, 30, D, 50, 4), edge(F, 30, D, 50, 6), edge(B, 30, D, 50, 4),
    };
    wasp_cct *c = wasp_cct_build(e, 3);
    const wasp_cct_edge *out[4];
    wasp_cct_end end;
    assert_int_equal(wasp_cct_callers(c, D, 50, out, 4, &end, NULL), 1);
    assert_int_equal(out[0]->caller, B);
    assert_int_equal(out[0]->count, 8);
    assert_int_equal(wasp_cct_nodes(c), 3);
    wasp_cct_free(c);
}

/* A caller deeper than (or as deep as) its callee cannot be: such an edge
 * (a misread sample) is dropped, so a chain always ends; a cap ends it too. */
static void chains_terminate(void **state)
{
    (void)state;
    wasp_cct_edge e[] = {
        edge(A, 10, B, 20, 5), edge(B, 20, A, 10, 50), /* a cycle: the second is impossible */
        edge(C, 20, C, 20, 9),                         /* self at the same depth */
    };
    wasp_cct *c = wasp_cct_build(e, 3);
    const wasp_cct_edge *out[8];
    wasp_cct_end end;
    assert_int_equal(wasp_cct_callers(c, B, 20, out, 8, &end, NULL), 1);
    assert_int_equal(end, WASP_CCT_END_UNSAMPLED);
    assert_int_equal(wasp_cct_callers(c, A, 10, out, 8, &end, NULL), 0);
    assert_int_equal(wasp_cct_callers(c, C, 20, out, 8, &end, NULL), 0);
    wasp_cct_free(c);

    /* A deep recursion: R at depths 100, 200, ... 1000, capped at 4. */
    wasp_cct_edge r[9];
    for (int i = 0; i < 9; i++)
        r[i] = edge(A, 100u * (uint32_t)(i + 1), A, 100u * (uint32_t)(i + 2), 1);
    c = wasp_cct_build(r, 9);
    assert_int_equal(wasp_cct_callers(c, A, 1000, out, 4, &end, NULL), 4);
    assert_int_equal(end, WASP_CCT_END_TOO_DEEP);
    assert_int_equal(wasp_cct_callers(c, A, 1000, out, 8, &end, NULL), 8);
    assert_int_equal(wasp_cct_callers(c, A, 1000, out, 9, &end, NULL), 9);
    assert_int_equal(end, WASP_CCT_END_UNSAMPLED);
    wasp_cct_free(c);
}

/* A caller whose frame size is unknown ends the chain after its own frames. */
static void unknown_caller_frame(void **state)
{
    (void)state;
    wasp_cct_edge e[] = {edge(B, 0, E, 70, 3), edge(A, 10, B, 40, 3)};
    wasp_cct *c = wasp_cct_build(e, 2);
    const wasp_cct_edge *out[4];
    wasp_cct_end end;
    assert_int_equal(wasp_cct_callers(c, E, 70, out, 4, &end, NULL), 1);
    assert_int_equal(end, WASP_CCT_END_UNKNOWN_FRAME);
    wasp_cct_free(c);
}

/* Debug information of two compiled methods, by id: 1 is E with F inlined,
 * 2 is D (a call to E at its return address 0x2010). */
#define M(k) ((void *)(uintptr_t)(k))
static const uint64_t pcs1[] = {0x1008, 0x1010, 0x1020};
static const uint32_t first1[] = {0, 1, 3};
static const uint16_t nframes1[] = {1, 2, 1};
static const wasp_rframe frames1[] = {
    {.bci = 1, .method = M(E)},                           /* 0x1008 */
    {.bci = 7, .method = M(F)}, {.bci = 4, .method = M(E)}, /* 0x1010: F inlined at E:4 */
    {.bci = 9, .method = M(E)},                           /* 0x1020 */
};
static const uint64_t pcs2[] = {0x2004, 0x2010};
static const uint32_t first2[] = {0, 1};
static const uint16_t nframes2[] = {1, 1};
static const wasp_rframe frames2[] = {{.bci = 2, .method = M(D)}, {.bci = 5, .method = M(D)}};

static int frames_of(void *ctx, uint32_t id, uint64_t after, wasp_rframe *out, int cap)
{
    (void)ctx;
    wasp_pc_frames d1 = {.npcs = 3, .pcs = pcs1, .first = first1, .nframes = nframes1,
                         .frames = frames1};
    wasp_pc_frames d2 = {.npcs = 2, .pcs = pcs2, .first = first2, .nframes = nframes2,
                         .frames = frames2};
    return wasp_pc_frames_at(id == 1 ? &d1 : &d2, after, out, cap);
}

static void inlined_frames(void **state)
{
    (void)state;
    wasp_rframe out[8];
    wasp_pc_frames d1 = {.npcs = 3, .pcs = pcs1, .first = first1, .nframes = nframes1,
                         .frames = frames1};
    /* A sampled instruction at 0x100c: the first record above it. */
    assert_int_equal(wasp_pc_frames_at(&d1, 0x100c, out, 8), 2);
    assert_ptr_equal(out[0].method, M(F));
    assert_int_equal(out[1].bci, 4);
    /* At a record's own PC: the next one (it describes the state after). */
    assert_int_equal(wasp_pc_frames_at(&d1, 0x1010, out, 8), 1);
    assert_int_equal(out[0].bci, 9);
    assert_int_equal(wasp_pc_frames_at(&d1, 0x1020, out, 8), 0);
    assert_int_equal(wasp_pc_frames_at(&d1, 0x100c, out, 1), 1); /* cap */

    /* E (id 1) at depth 70 called by D (id 2) at its call site 0x2010,
     * D called from the interpreter at 0x7777. */
    wasp_cct_edge e[] = {
        {.callee = E, .callee_depth = 70, .caller = D, .caller_depth = 40, .caller_id = 2,
         .ret_pc = 0x2010, .count = 5},
        {.callee = D, .callee_depth = 40, .caller = 0, .ret_pc = 0x7777, .count = 2},
    };
    wasp_cct *c = wasp_cct_build(e, 2);
    wasp_cct_end end;
    uint64_t ret;
    int n = wasp_cct_expand(c, E, 1, 0x100c, 70, frames_of, NULL, out, 8, &end, &ret);
    assert_int_equal(n, 3); /* F (inlined), E:4, D:5 at the call site */
    assert_ptr_equal(out[0].method, M(F));
    assert_ptr_equal(out[1].method, M(E));
    assert_ptr_equal(out[2].method, M(D));
    assert_int_equal(out[2].bci, 5); /* the record at the return address, not before it */
    assert_int_equal(end, WASP_CCT_END_NOT_COMPILED);
    assert_int_equal(ret, 0x7777);
    /* Out of room: the chain is cut and says so. */
    n = wasp_cct_expand(c, E, 1, 0x100c, 70, frames_of, NULL, out, 2, &end, &ret);
    assert_int_equal(n, 2);
    assert_int_equal(end, WASP_CCT_END_TOO_DEEP);
    wasp_cct_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(figure6_paths_by_depth),
        cmocka_unit_test(same_depth_is_ambiguous_hottest_wins),
        cmocka_unit_test(duplicates_merge),
        cmocka_unit_test(chains_terminate),
        cmocka_unit_test(unknown_caller_frame),
        cmocka_unit_test(inlined_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
