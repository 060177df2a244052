/* The code past a compiled method's last debug record (issue 40): C2 puts
 * its out-of-line stubs there (G1's write-barrier slow paths, the safepoint
 * poll's, the handlers), and samples there had no record after them
 * (cpu.unmapped). The tail splits into ranges at each jump back to the body
 * or out of the method (watch/pc_frames.h); a sample in a range that jumps
 * back maps as the code just before its target, one that does not (and
 * code past the last range, and a method without records) to the root
 * method at no line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "watch/pc_frames.h"

enum { BASE = 0x1000, LAST = 0x1040 }; /* the last record's pc */

typedef struct code {
    uint8_t b[128];
    uint64_t pc; /* the next instruction's address */
} code;

static void put(code *c, const uint8_t *bytes, int n)
{
    for (int i = 0; i < n; i++)
        c->b[c->pc - BASE + (uint64_t)i] = bytes[i];
    c->pc += (uint64_t)n;
}

static void rel32(code *c, uint8_t op0, int op1, uint64_t target)
{
    uint8_t b[6];
    int k = 0;
    b[k++] = op0;
    if (op1 >= 0)
        b[k++] = (uint8_t)op1;
    uint32_t rel = (uint32_t)(target - (c->pc + (uint64_t)k + 4));
    for (int i = 0; i < 4; i++)
        b[k++] = (uint8_t)(rel >> (8 * i));
    put(c, b, k);
}

static void rel8(code *c, uint8_t op, uint64_t target)
{
    uint8_t b[2] = {op, (uint8_t)(int8_t)(int64_t)(target - (c->pc + 2))};
    put(c, b, 2);
}

/* A tail like JDK 25's C2 code for a reference store (AllocBytes.churn):
 * the barrier's slow path leaves the body at a conditional branch and
 * comes back to 0x1020. */
static uint64_t build(code *c)
{
    static const uint8_t fence[] = {0xf0, 0x83, 0x44, 0x24, 0xc0, 0x00}; /* lock addl */
    static const uint8_t cmpb[] = {0x41, 0x80, 0x3a, 0x00};
    static const uint8_t movb[] = {0x41, 0xc6, 0x02, 0x00};
    static const uint8_t hlt[] = {0xf4, 0xf4};
    c->pc = LAST;
    put(c, fence, 6);               /* 0x1040 */
    put(c, cmpb, 4);                /* 0x1046 */
    rel8(c, 0x74, 0x1058);          /* 0x104a je within the tail: no end */
    rel32(c, 0x0f, 0x85, 0x2000);   /* 0x104c jne out of the method: no end */
    rel32(c, 0x0f, 0x84, 0x1020);   /* 0x1052 je back: the first range ends */
    put(c, movb, 4);                /* 0x1058 */
    rel32(c, 0xe9, -1, 0x1020);     /* 0x105c jmp back: the second */
    rel32(c, 0xe9, -1, 0x100000);   /* 0x1061 jmp out (the poll's stub): the third */
    rel8(c, 0xeb, 0x1005);          /* 0x1066 jmp back to the entry: the fourth */
    put(c, hlt, 2);                 /* 0x1068 padding, no range */
    return c->pc;
}

static void tail_splits_at_jumps_back_and_out(void **state)
{
    (void)state;
    code c = {0};
    uint64_t end = build(&c), ends[8], to[8];
    assert_int_equal(wasp_pc_frames_tail(c.b, BASE, end, LAST, ends, to, 8), 4);
    assert_int_equal(ends[0], 0x1058);
    assert_int_equal(to[0], 0x1020);
    assert_int_equal(ends[1], 0x1061);
    assert_int_equal(to[1], 0x1020);
    assert_int_equal(ends[2], 0x1066);
    assert_int_equal(to[2], 0);
    assert_int_equal(ends[3], 0x1068);
    assert_int_equal(to[3], 0x1005);
    assert_int_equal(wasp_pc_frames_tail(c.b, BASE, end, LAST, ends, to, 2), 2); /* cap */
    c.b[0x1046 - BASE] = 0x06; /* not an instruction in 64-bit mode: the scan stops */
    assert_int_equal(wasp_pc_frames_tail(c.b, BASE, end, LAST, ends, to, 8), 0);
}

static void tail_maps_as_the_code_before_its_way_back(void **state)
{
    (void)state;
    static int a, b, root;
    /* Records: 0x1010 a:3; 0x1030 a:7 inlined into b:9; 0x1040 b:20. */
    const uint64_t pcs[] = {0x1010, 0x1030, LAST};
    const uint32_t first[] = {0, 1, 3};
    const uint16_t nframes[] = {1, 2, 1};
    const wasp_rframe frames[] = {{3, &a}, {7, &a}, {9, &b}, {20, &b}};
    code c = {0};
    uint64_t end = build(&c), ends[8], to[8];
    uint32_t n = wasp_pc_frames_tail(c.b, BASE, end, LAST, ends, to, 8);
    wasp_pc_frames d = {.npcs = 3, .pcs = pcs, .first = first, .nframes = nframes, .frames = frames,
                        .ntail = n, .tail_end = ends, .tail_to = to, .root = &root};
    wasp_rframe out[4];
    assert_int_equal(wasp_pc_frames_at(&d, 0x1035, out, 4), 1); /* the body: as before */
    assert_int_equal(out[0].bci, 20);
    assert_int_equal(wasp_pc_frames_at(&d, LAST, out, 4), 2); /* the stub: as 0x101f */
    assert_int_equal(out[0].bci, 7);
    assert_ptr_equal(out[1].method, &b);
    assert_int_equal(wasp_pc_frames_at(&d, 0x105c, out, 4), 2); /* its jump back too */
    assert_int_equal(out[0].bci, 7);
    assert_int_equal(wasp_pc_frames_at(&d, 0x1061, out, 4), 1); /* no way back: root */
    assert_ptr_equal(out[0].method, &root);
    assert_int_equal(out[0].bci, -1);
    assert_int_equal(wasp_pc_frames_at(&d, 0x1066, out, 4), 1); /* back to the entry */
    assert_int_equal(out[0].bci, 3);
    assert_int_equal(wasp_pc_frames_at(&d, 0x1068, out, 4), 1); /* past the last range */
    assert_ptr_equal(out[0].method, &root);
    d.root = NULL; /* no root given: nothing, as before the tail was read */
    assert_int_equal(wasp_pc_frames_at(&d, 0x1068, out, 4), 0);
}

/* A native method's wrapper has no records (Object.clone, seen on h2): its
 * code is the method's at no line. */
static void no_records_is_the_root_at_no_line(void **state)
{
    (void)state;
    static int root;
    wasp_pc_frames d = {.root = &root};
    wasp_rframe out[1];
    assert_int_equal(wasp_pc_frames_at(&d, 0x1234, out, 1), 1);
    assert_ptr_equal(out[0].method, &root);
    assert_int_equal(out[0].bci, -1);
    d.root = NULL;
    assert_int_equal(wasp_pc_frames_at(&d, 0x1234, out, 1), 0);
}

/* A sample taken before its method was published (id 0) is found at the
 * dump among the methods known then: the one holding its pc; none when no
 * method or two do (an address reused: which held it then is not known). */
static void late_sample_finds_its_one_holder(void **state)
{
    (void)state;
    wasp_code_range r[] = {{0x3000, 0x3100, 3}, {0x1000, 0x1800, 1}, {0x2000, 0x2040, 2},
                           {0x1700, 0x1780, 4}, {0x1010, 0x1020, 5}};
    uint64_t reach[5];
    wasp_code_ranges_sort(r, reach, 5);
    assert_int_equal(r[0].id, 1);
    assert_int_equal(wasp_code_ranges_holder(r, reach, 5, 0x1100), 1); /* 5 ends before */
    assert_int_equal(wasp_code_ranges_holder(r, reach, 5, 0x2000), 2);
    assert_int_equal(wasp_code_ranges_holder(r, reach, 5, 0x30ff), 3);
    assert_int_equal(wasp_code_ranges_holder(r, reach, 5, 0x3100), 0); /* end: exclusive */
    assert_int_equal(wasp_code_ranges_holder(r, reach, 5, 0x0fff), 0);
    assert_int_equal(wasp_code_ranges_holder(r, reach, 5, 0x1900), 0); /* between */
    assert_int_equal(wasp_code_ranges_holder(r, reach, 5, 0x1710), 0); /* 1 and 4: reused */
    assert_int_equal(wasp_code_ranges_holder(r, reach, 5, 0x1018), 0); /* 1 and 5 */
    assert_int_equal(wasp_code_ranges_holder(r, reach, 5, 0x1790), 1); /* past 4 again */
    assert_int_equal(wasp_code_ranges_holder(r, reach, 0, 0x1100), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tail_splits_at_jumps_back_and_out),
        cmocka_unit_test(tail_maps_as_the_code_before_its_way_back),
        cmocka_unit_test(no_records_is_the_root_at_no_line),
        cmocka_unit_test(late_sample_finds_its_one_holder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
