/* Frame shapes of HotSpot compiled methods read from their code
 * (isa/prologue.h): C1 and C2 prologues with and without the inline-cache
 * check, stack bang or frame pointer; the PCs where rsp is not the body's;
 * code with no frame. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "isa/prologue.h"

/* C2, a virtual method: inline-cache check, alignment, then the verified
 * entry with a stack bang, push %rbp, sub $0x20,%rsp; a body; an epilogue. */
static const uint8_t c2_virtual[] = {
    0x44, 0x8b, 0x56, 0x08,                   /*  0 mov 0x8(%rsi),%r10d */
    0x49, 0xc1, 0xe2, 0x03,                   /*  4 shl $3,%r10 */
    0x49, 0x3b, 0xc2,                         /*  8 cmp %r10,%rax */
    0x0f, 0x85, 0x00, 0x10, 0x00, 0x00,       /* 11 jne ic_miss */
    0x66, 0x90,                               /* 17 nop */
    0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, /* 19 mov %eax,-0x14000(%rsp) */
    0x55,                                     /* 26 push %rbp */
    0x48, 0x83, 0xec, 0x20,                   /* 27 sub $0x20,%rsp */
    0x8b, 0x46, 0x0c,                         /* 31 mov 0xc(%rsi),%eax */
    0x48, 0x83, 0xc4, 0x20,                   /* 34 add $0x20,%rsp */
    0x5d,                                     /* 38 pop %rbp */
    0x41, 0x85, 0x02,                         /* 39 test %eax,(%r10) */
    0xc3,                                     /* 42 ret */
    0x8b, 0x46, 0x10,                         /* 43 mov 0x10(%rsi),%eax (another block) */
    0xc3,                                     /* 46 ret (bad: a test only) */
};

static void c2_with_bang(void **state)
{
    (void)state;
    wasp_frame_shape s;
    assert_int_equal(wasp_prologue_decode(c2_virtual, sizeof c2_virtual, &s), 0);
    assert_int_equal(s.frame_size, 8 + 8 + 0x20); /* return address, rbp, 0x20 */
    assert_int_equal(s.prologue_end, 31);
    /* Where the return address is while the frame is being built. */
    assert_int_equal(wasp_frame_ret_offset(&s, 0), 0);   /* inline-cache check */
    assert_int_equal(wasp_frame_ret_offset(&s, 19), 0);  /* the bang */
    assert_int_equal(wasp_frame_ret_offset(&s, 26), 0);  /* at the push, not run yet */
    assert_int_equal(wasp_frame_ret_offset(&s, 27), 8);  /* pushed */
    assert_int_equal(wasp_frame_ret_offset(&s, 31), 0x28); /* body */
    uint32_t r[8];
    int n = wasp_frame_unsafe_ranges(c2_virtual, sizeof c2_virtual, s.prologue_end, r, 4);
    assert_int_equal(n, 1);
    /* From after the add (rsp moved up) to the end of the ret. */
    assert_int_equal(r[0], 38);
    assert_int_equal(r[1], 43);
}

/* C2 without a stack bang: sub first, then rbp saved into the frame. */
static const uint8_t c2_no_bang[] = {
    0x48, 0x83, 0xec, 0x18,       /*  0 sub $0x18,%rsp */
    0x48, 0x89, 0x6c, 0x24, 0x10, /*  4 mov %rbp,0x10(%rsp) */
    0x89, 0xf0,                   /*  9 mov %esi,%eax */
    0x48, 0x83, 0xc4, 0x10,       /* 11 add $0x10,%rsp */
    0x5d,                         /* 15 pop %rbp */
    0xc3,                         /* 16 ret */
};

static void c2_without_bang(void **state)
{
    (void)state;
    wasp_frame_shape s;
    assert_int_equal(wasp_prologue_decode(c2_no_bang, sizeof c2_no_bang, &s), 0);
    assert_int_equal(s.frame_size, 0x18 + 8);
    assert_int_equal(s.prologue_end, 9);
    assert_int_equal(wasp_frame_ret_offset(&s, 0), 0);
    assert_int_equal(wasp_frame_ret_offset(&s, 4), 0x18);
    assert_int_equal(wasp_frame_ret_offset(&s, 9), 0x18);
}

/* C1 with PreserveFramePointer, and a stack-to-stack move through push and
 * pop in its body (C1's stack2stack). */
static const uint8_t c1_fp[] = {
    0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, /*  0 bang */
    0x55,                                     /*  7 push %rbp */
    0x48, 0x8b, 0xec,                         /*  8 mov %rsp,%rbp */
    0x48, 0x83, 0xec, 0x30,                   /* 11 sub $0x30,%rsp */
    0xff, 0x74, 0x24, 0x10,                   /* 15 push 0x10(%rsp) */
    0x8f, 0x44, 0x24, 0x18,                   /* 19 pop 0x18(%rsp) */
    0x8b, 0x46, 0x0c,                         /* 23 mov 0xc(%rsi),%eax */
    0x48, 0x83, 0xc4, 0x30,                   /* 26 add $0x30,%rsp */
    0x5d,                                     /* 30 pop %rbp */
    0xc3,                                     /* 31 ret */
};

static void c1_frame_pointer_push_pop(void **state)
{
    (void)state;
    wasp_frame_shape s;
    assert_int_equal(wasp_prologue_decode(c1_fp, sizeof c1_fp, &s), 0);
    assert_int_equal(s.frame_size, 8 + 8 + 0x30);
    assert_int_equal(s.prologue_end, 15);
    assert_int_equal(wasp_frame_ret_offset(&s, 8), 8);  /* after push, at mov %rsp,%rbp */
    assert_int_equal(wasp_frame_ret_offset(&s, 11), 8);
    uint32_t r[8];
    int n = wasp_frame_unsafe_ranges(c1_fp, sizeof c1_fp, s.prologue_end, r, 4);
    assert_int_equal(n, 2);
    assert_int_equal(r[0], 19); /* between the push and the end of the pop */
    assert_int_equal(r[1], 23);
    assert_int_equal(r[2], 30); /* the epilogue */
    assert_int_equal(r[3], 32);
    /* Too many ranges for the room given: refused, not truncated. */
    assert_int_equal(wasp_frame_unsafe_ranges(c1_fp, sizeof c1_fp, s.prologue_end, r, 1), -1);
}

/* An OSR method from C2 on JDK 17, as loaded (bytes copied from a run):
 * a call that never runs (PoisonOSREntry), alignment, then the prologue. */
static const uint8_t c2_osr[] = {
    0xe8, 0xcb, 0x62, 0x16, 0x16, 0x66, 0x66, 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, 0x55, 0x48, 0x83, 0xec, 0x30,
    0x4c, 0x8b, 0x76, 0x10, 0x8b, 0x5e, 0x08,
};

static void c2_osr_poisoned_entry(void **state)
{
    (void)state;
    wasp_frame_shape s;
    assert_int_equal(wasp_prologue_decode(c2_osr, sizeof c2_osr, &s), 0);
    assert_int_equal(s.frame_size, 8 + 8 + 0x30);
    assert_int_equal(s.prologue_end, 28);
}

/* A method handle intrinsic (linkToVirtual and kin): no frame of its own,
 * only a jump; and code that does not decode. */
static const uint8_t mh_intrinsic[] = {
    0x8b, 0x5e, 0x14, 0x48, 0xc1, 0xe3, 0x03, 0x8b, 0x5b, 0x28, 0x48, 0xc1, 0xe3, 0x03, 0x8b,
    0x5b, 0x24, 0x48, 0xc1, 0xe3, 0x03, 0x48, 0x8b, 0x5b, 0x10, 0x48, 0x85, 0xdb, 0x0f, 0x84,
    0x03, 0x00, 0x00, 0x00, 0xff, 0x63, 0x40,
};

static void no_frame_is_unknown(void **state)
{
    (void)state;
    wasp_frame_shape s;
    assert_int_equal(wasp_prologue_decode(mh_intrinsic, sizeof mh_intrinsic, &s), -1);
    static const uint8_t pushes[] = {0x53, 0x55, 0x48, 0x83, 0xec, 0x20}; /* push %rbx first */
    assert_int_equal(wasp_prologue_decode(pushes, sizeof pushes, &s), -1);
    static const uint8_t junk[] = {0x0f, 0xff};
    assert_int_equal(wasp_prologue_decode(junk, sizeof junk, &s), -1);
    /* Undecodable bytes in a body: from there on nothing is trusted. */
    uint32_t r[4];
    uint8_t body[] = {0x8b, 0x46, 0x0c, 0x0f, 0xff, 0x8b, 0x46, 0x0c};
    assert_int_equal(wasp_frame_unsafe_ranges(body, sizeof body, 0, r, 2), 1);
    assert_int_equal(r[0], 3);
    assert_int_equal(r[1], sizeof body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(c2_with_bang),
        cmocka_unit_test(c2_without_bang),
        cmocka_unit_test(c1_frame_pointer_push_pop),
        cmocka_unit_test(c2_osr_poisoned_entry),
        cmocka_unit_test(no_frame_is_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
