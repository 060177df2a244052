/* A stub's caller the walk named without a position (watch/context.c): on
 * JDK 25 the first debug record after a C2 leaf call to a fill stub can be
 * the return's safepoint poll, whose scope gives no bytecode index, and
 * AsyncGetCallTrace then named the caller at no line. The profile's writer
 * places the call by the first record after it that has a position
 * (wasp_pc_frames_placed), the caller's frames with what was inlined into
 * it, innermost first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "watch/pc_frames.h"

static int root_method, inner_method; /* their addresses stand for jmethodIDs */
#define ROOT ((void *)&root_method)
#define INNER ((void *)&inner_method)

/* reset()'s records as JDK 25 gave them, shifted: the fill stub's call
 * returns to 0x14d; the return's poll at 0x158 has the method at bci -1; an
 * empty record at 0x160; the uncommon traps at 0x174 (bci 5, with a callee
 * inlined for the test) and 0x188 (bci 4). */
static const uint64_t pcs[] = {0x120, 0x158, 0x160, 0x174, 0x188};
static const uint32_t first[] = {0, 1, 2, 2, 4};
static const uint16_t nframes[] = {1, 1, 0, 2, 1};
static const wasp_rframe frames[] = {
    {.bci = 2, .method = ROOT},                                /* 0x120 */
    {.bci = -1, .method = ROOT},                               /* 0x158 */
    {.bci = 7, .method = INNER}, {.bci = 5, .method = ROOT},   /* 0x174 */
    {.bci = 4, .method = ROOT},                                /* 0x188 */
};

static wasp_pc_frames records(void)
{
    return (wasp_pc_frames){.npcs = 5, .pcs = pcs, .first = first, .nframes = nframes,
                            .frames = frames};
}

static void positionless_records_are_passed_over(void **state)
{
    (void)state;
    wasp_pc_frames d = records();
    wasp_rframe out[4];
    /* What the walk saw: the poll's record, no position. */
    assert_int_equal(wasp_pc_frames_at(&d, 0x14d - 1, out, 4), 1);
    assert_int_equal(out[0].bci, -1);
    /* The placed one: the next record with a position, inlined frame first. */
    assert_int_equal(wasp_pc_frames_placed(&d, 0x14d - 1, out, 4), 2);
    assert_ptr_equal(out[0].method, INNER);
    assert_int_equal(out[0].bci, 7);
    assert_ptr_equal(out[1].method, ROOT);
    assert_int_equal(out[1].bci, 5);
}

static void a_record_with_a_position_is_taken_as_it_is(void **state)
{
    (void)state;
    wasp_pc_frames d = records();
    wasp_rframe out[4];
    assert_int_equal(wasp_pc_frames_placed(&d, 0x100, out, 4), 1);
    assert_int_equal(out[0].bci, 2);
    assert_int_equal(wasp_pc_frames_placed(&d, 0x174, out, 4), 1); /* strictly above */
    assert_int_equal(out[0].bci, 4);
}

static void none_above_or_no_room_gives_what_fits(void **state)
{
    (void)state;
    wasp_pc_frames d = records();
    wasp_rframe out[4];
    assert_int_equal(wasp_pc_frames_placed(&d, 0x188, out, 4), 0);
    assert_int_equal(wasp_pc_frames_placed(&d, 0x14d - 1, out, 1), 1);
    assert_ptr_equal(out[0].method, INNER);
    wasp_pc_frames none = {0};
    assert_int_equal(wasp_pc_frames_placed(&none, 0x100, out, 4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(positionless_records_are_passed_over),
        cmocka_unit_test(a_record_with_a_position_is_taken_as_it_is),
        cmocka_unit_test(none_above_or_no_room_gives_what_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
