/* A sample in the interpreter (watch/interpreter.h): the interpreter's range
 * grows by the blobs published; the live bytecode index is the bytecode
 * pointer's offset in its method's code, found through the jmethodID, the
 * Method and its ConstMethod as VMStructs lay them out (a layout built here
 * by hand), and the frame's saved index when the pointer is outside that
 * code or the layout is unknown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "watch/interpreter.h"

/* A ConstMethod of 48 bytes whose code (20 bytes) follows it. */
typedef struct fake_const_method {
    uint64_t pad[4];
    uint16_t pad2, code_size;
    uint8_t pad3[12];
    uint8_t code[20];
} fake_const_method;

typedef struct fake_method {
    uint64_t pad;
    fake_const_method *const_method;
} fake_method;

static void range_grows(void **state)
{
    (void)state;
    assert_false(wasp_interpreter_holds(0x1000));
    wasp_interpreter_publish(0x1000, 0x2000);
    assert_true(wasp_interpreter_holds(0x1000));
    assert_true(wasp_interpreter_holds(0x1fff));
    assert_false(wasp_interpreter_holds(0x2000));
    wasp_interpreter_publish(0x3000, 0x2000); /* empty: ignored */
    assert_false(wasp_interpreter_holds(0x2800));
    wasp_interpreter_publish(0x2000, 0x3000);
    assert_true(wasp_interpreter_holds(0x2800));
}

static void live_bci(void **state)
{
    (void)state;
    static fake_const_method cm = {.code_size = 20};
    static fake_method m = {0, &cm};
    static fake_method *jmethod_id = &m; /* a jmethodID points at the Method* */
    uint64_t code = (uint64_t)(uintptr_t)cm.code;
    /* Before the layout: the saved index. */
    assert_int_equal(wasp_interpreter_bci(&jmethod_id, code + 5, 0), 0);
    wasp_interpreter_set_layout(offsetof(fake_method, const_method),
                                offsetof(fake_const_method, code_size),
                                offsetof(fake_const_method, code));
    assert_int_equal(wasp_interpreter_bci(&jmethod_id, code + 5, 0), 5);
    assert_int_equal(wasp_interpreter_bci(&jmethod_id, code, 9), 0);
    assert_int_equal(wasp_interpreter_bci(&jmethod_id, code + 19, 0), 19);
    assert_int_equal(wasp_interpreter_bci(&jmethod_id, code + 20, 3), 3); /* past the code */
    assert_int_equal(wasp_interpreter_bci(&jmethod_id, code - 1, 3), 3);
    assert_int_equal(wasp_interpreter_bci(NULL, code + 5, 3), 3);
    static fake_method *unloaded = NULL;
    assert_int_equal(wasp_interpreter_bci(&unloaded, code + 5, 4), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(range_grows),
        cmocka_unit_test(live_bci),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
