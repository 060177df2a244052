/* A sample in the JVM's runtime or a native method counts at the compiled
 * call that led there (watch/runtime_caller.h): the caller is taken from the
 * thread's frame anchor (a JavaThread laid out here by hand), only when it is
 * a call site of a published compiled method, and never for a thread in
 * Java or an anchor off its stack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "watch/code_map.h"
#include "watch/frame_anchor.h"
#include "watch/interpreter.h"
#include "watch/runtime_caller.h"

enum { IN_JAVA = 8, STACK = 64, ANCHOR_AT = 10 };

/* A JavaThread as the layout below describes it: its state, its stack's
 * top end, its anchor (sp, pc). */
typedef struct fake_thread {
    uint64_t pad;
    int32_t state, pad2;
    uint64_t anchor_sp, anchor_pc, anchor_fp;
    uint64_t stack_base;
} fake_thread;

static fake_thread thread;
static uint64_t stack[STACK];
static const uint64_t calls[] = {0x10100, 0x10200}; /* the method's return addresses */
static wasp_code_map *map;

static int setup(void **state)
{
    (void)state;
    memset(&thread, 0, sizeof thread);
    memset(stack, 0, sizeof stack);
    wasp_frame_anchor = (wasp_frame_anchor_layout){
        .ready = 1,
        .anchor_from_env = offsetof(fake_thread, anchor_sp),
        .state_from_env = offsetof(fake_thread, state),
        .stack_base_from_env = offsetof(fake_thread, stack_base),
        .sp_off = 0,
        .pc_off = 8,
        .fp_off = 16,
    };
    thread.state = 6; /* in the VM */
    thread.anchor_sp = (uint64_t)(uintptr_t)&stack[ANCHOR_AT];
    thread.stack_base = (uint64_t)(uintptr_t)&stack[STACK];
    map = wasp_code_map_alloc(1);
    map->n = 1;
    map->starts[0] = 0x10000;
    map->m[0] = (wasp_nmethod){.start = 0x10000, .end = 0x11000, .id = 7, .calls = calls,
                               .ncalls = 2};
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(map);
    wasp_frame_anchor.ready = 0;
    return 0;
}

/* The caller as the handler asks for it: the thread interrupted at the
 * stack's bottom. 0 when none; *id its method's. */
static uint64_t caller(uint32_t *id)
{
    const wasp_nmethod *nm = NULL;
    uint64_t pc = wasp_runtime_caller(&thread, (uint64_t)(uintptr_t)&stack[0], map, &nm);
    *id = pc && nm ? nm->id : 0;
    return pc;
}

/* HotSpot left the anchor's pc NULL (a call from compiled code into the
 * VM): the return address below the anchor's sp, one byte back so that the
 * call's debug record is the first after it. */
static void test_return_below_anchor(void **state)
{
    (void)state;
    uint32_t id;
    stack[ANCHOR_AT - 1] = 0x10200;
    assert_int_equal(caller(&id), 0x101ff);
    assert_int_equal(id, 7);
}

/* A runtime stub's frame (C2's allocation stub): the return address below
 * the anchor is the stub's, no call site; its caller's is a few slots up. A
 * code address that is no call site on the way is passed over. */
static void test_stub_frame(void **state)
{
    (void)state;
    uint32_t id;
    stack[ANCHOR_AT - 1] = 0x20000;  /* in the stub: not a compiled method */
    stack[ANCHOR_AT + 1] = 0x10150;  /* in the method, no call site */
    stack[ANCHOR_AT + 3] = 0x10100;
    assert_int_equal(caller(&id), 0x100ff);
    assert_int_equal(id, 7);
}

/* A stub that built a frame and saved every register below it (C1's
 * runtime blobs): its caller's return address is above its saved fp, the
 * anchor's fp, past the first eight slots. */
static void test_stub_frame_pointer(void **state)
{
    (void)state;
    uint32_t id;
    stack[ANCHOR_AT - 1] = 0x20000; /* in the stub */
    thread.anchor_fp = (uint64_t)(uintptr_t)&stack[ANCHOR_AT + 20];
    stack[ANCHOR_AT + 20] = (uint64_t)(uintptr_t)&stack[ANCHOR_AT + 40]; /* the caller's fp */
    stack[ANCHOR_AT + 21] = 0x10200;
    assert_int_equal(caller(&id), 0x101ff);
    assert_int_equal(id, 7);
    /* the walk's anchor at that call: sp past the return address, fp restored */
    wasp_anchor_view a;
    assert_true(wasp_frame_anchor_read(&thread, (uint64_t)(uintptr_t)&stack[0], &a));
    wasp_stub_call c;
    assert_int_equal(wasp_stub_caller(&a, map, &c), 1);
    assert_int_equal(c.ret, 0x10200);
    assert_int_equal(c.sp, (uint64_t)(uintptr_t)&stack[ANCHOR_AT + 22]);
    assert_int_equal(c.fp, (uint64_t)(uintptr_t)&stack[ANCHOR_AT + 40]);
    /* a frame pointer below the anchor's sp is no stub's frame */
    thread.anchor_fp = (uint64_t)(uintptr_t)&stack[ANCHOR_AT - 2];
    assert_int_equal(caller(&id), 0);
}

/* No stub: the anchor's frame is compiled code's own (its caller is the
 * direct one, above) or the interpreter's (its frame's fp leads to its
 * caller, which is not where the runtime was called from). */
static void test_no_stub_no_fp(void **state)
{
    (void)state;
    stack[ANCHOR_AT - 1] = 0x10200; /* a compiled method's own call */
    thread.anchor_fp = (uint64_t)(uintptr_t)&stack[ANCHOR_AT + 20];
    stack[ANCHOR_AT + 21] = 0x10100;
    wasp_anchor_view a;
    wasp_stub_call c;
    assert_true(wasp_frame_anchor_read(&thread, (uint64_t)(uintptr_t)&stack[0], &a));
    assert_int_equal(wasp_stub_caller(&a, map, &c), 0);
    wasp_interpreter_publish(0x30000, 0x31000);
    stack[ANCHOR_AT - 1] = 0x30010; /* the interpreter's call */
    assert_true(wasp_frame_anchor_read(&thread, (uint64_t)(uintptr_t)&stack[0], &a));
    assert_int_equal(wasp_stub_caller(&a, map, &c), 0);
}

/* Only the first eight slots above the anchor are the stub's. */
static void test_stub_scan_bounded(void **state)
{
    (void)state;
    uint32_t id;
    stack[ANCHOR_AT - 1] = 0x20000;
    stack[ANCHOR_AT + 8] = 0x10100;
    assert_int_equal(caller(&id), 0);
}

/* A native method's wrapper sets the anchor's pc itself, at a place with no
 * debug record: taken as it is. */
static void test_native_wrapper(void **state)
{
    (void)state;
    uint32_t id;
    thread.state = 4; /* in native code */
    thread.anchor_pc = 0x10050;
    assert_int_equal(caller(&id), 0x1004f);
    assert_int_equal(id, 7);
}

/* A thread in Java (its pc was not in a published method: maybe one not
 * published yet), an interpreter's call (no compiled caller), an anchor
 * below the interrupted sp or past the stack, an unknown layout: none. */
static void test_none(void **state)
{
    (void)state;
    uint32_t id;
    stack[ANCHOR_AT - 1] = 0x10200;
    thread.state = IN_JAVA;
    assert_int_equal(caller(&id), 0);
    thread.state = 6;
    thread.anchor_pc = 0x30000; /* the interpreter */
    stack[ANCHOR_AT - 1] = 0x30010;
    assert_int_equal(caller(&id), 0);
    thread.anchor_pc = 0;
    stack[ANCHOR_AT - 1] = 0x10200;
    assert_int_not_equal(caller(&id), 0);
    const wasp_nmethod *nm = NULL;
    assert_int_equal(wasp_runtime_caller(&thread, (uint64_t)(uintptr_t)&stack[ANCHOR_AT + 1], map,
                                         &nm), 0);
    thread.anchor_sp = (uint64_t)(uintptr_t)&stack[STACK];
    assert_int_equal(caller(&id), 0);
    thread.anchor_sp = (uint64_t)(uintptr_t)&stack[ANCHOR_AT];
    wasp_frame_anchor.ready = 0;
    assert_int_equal(caller(&id), 0);
    wasp_frame_anchor.ready = 1;
    assert_int_equal(wasp_runtime_caller(NULL, (uint64_t)(uintptr_t)&stack[0], map, &nm), 0);
    assert_int_equal(wasp_runtime_caller(&thread, (uint64_t)(uintptr_t)&stack[0], NULL, &nm), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_return_below_anchor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stub_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stub_frame_pointer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_stub_no_fp, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stub_scan_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_native_wrapper, setup, teardown),
        cmocka_unit_test_setup_teardown(test_none, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
