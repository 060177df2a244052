/*
 * wasp_safe_read's fallback paths. The kernel here returns a short count when
 * a read runs into an unmapped page, so the page-by-page fallback for kernels
 * that fail the whole read with EFAULT is never exercised by test_isa.c.
 * This binary defines its own process_vm_readv (the executable's definition
 * wins over libc's for the call in safe_read.o) with all-or-nothing semantics,
 * or failing outright as under a seccomp filter. Also wasp_read_code, which
 * copies code the thread runs without a system call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "isa/isa.h"

static enum { ALL_OR_NOTHING, DENIED } mode;
static int calls;

ssize_t process_vm_readv(pid_t pid, const struct iovec *local, unsigned long liovcnt,
                         const struct iovec *remote, unsigned long riovcnt, unsigned long flags)
{
    calls++;
    if (mode == DENIED) {
        errno = EPERM;
        return -1;
    }
    ssize_t r = syscall(SYS_process_vm_readv, pid, local, liovcnt, remote, riovcnt, flags);
    if (r >= 0 && (size_t)r < remote[0].iov_len) {
        errno = EFAULT; /* pretend the partial read failed as a whole */
        return -1;
    }
    return r;
}

static char *guarded(size_t pg)
{
    char *p = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    for (size_t i = 0; i < 2 * pg; i++)
        p[i] = (char)i;
    assert_int_equal(mprotect(p + 2 * pg, pg, PROT_NONE), 0);
    return p;
}

static void test_prefix_after_efault(void **state)
{
    (void)state;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    char *p = guarded(pg);
    static char dst[3 * 65536];
    assert_true(2 * pg + 100 <= sizeof dst);
    mode = ALL_OR_NOTHING;
    errno = 55;
    /* Start 10 bytes before the second page, run 100 bytes into the guard. */
    char *start = p + pg - 10;
    assert_int_equal(wasp_safe_read((uint64_t)(uintptr_t)start, dst, pg + 10 + 100), pg + 10);
    assert_memory_equal(dst, start, pg + 10);
    assert_int_equal(errno, 55);
    /* A fully readable range takes a single call. */
    calls = 0;
    assert_int_equal(wasp_safe_read((uint64_t)(uintptr_t)p, dst, 2 * pg), 2 * pg);
    assert_int_equal(calls, 1);
    munmap(p, 3 * pg);
}

static void test_denied(void **state)
{
    (void)state;
    char src[32] = "readable but the syscall is off", dst[32];
    mode = DENIED;
    errno = 66;
    calls = 0;
    assert_int_equal(wasp_safe_read((uint64_t)(uintptr_t)src, dst, sizeof src), 0);
    assert_int_equal(calls, 1); /* EPERM is not retried page by page */
    assert_int_equal(errno, 66);
}

/* wasp_read_code copies the anchor's page directly (no system call) and
 * reads the rest safely: a prefix when it runs into an unreadable page. */
static void test_read_code(void **state)
{
    (void)state;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    char *p = guarded(pg);
    uint64_t anchor = (uint64_t)(uintptr_t)(p + pg + 100);
    uint8_t dst[16];
    mode = ALL_OR_NOTHING;
    calls = 0;
    assert_int_equal(wasp_read_code(anchor + 8, dst, sizeof dst, anchor), sizeof dst);
    assert_memory_equal(dst, p + pg + 108, sizeof dst);
    assert_int_equal(calls, 0);
    /* Ends on the anchor's page: the bytes before it read safely. */
    char *before = p + pg - 4;
    assert_int_equal(wasp_read_code((uint64_t)(uintptr_t)before, dst, sizeof dst, anchor),
                     sizeof dst);
    assert_memory_equal(dst, before, sizeof dst);
    assert_int_equal(calls, 1);
    /* Runs past it into the guard page: the part on the anchor's page. */
    char *tail = p + 2 * pg - 6;
    memset(dst, 0, sizeof dst);
    assert_int_equal(wasp_read_code((uint64_t)(uintptr_t)tail, dst, sizeof dst, anchor), 6);
    assert_memory_equal(dst, tail, 6);
    /* Wholly on the guard page: nothing. */
    assert_int_equal(wasp_read_code((uint64_t)(uintptr_t)(p + 2 * pg + 8), dst, sizeof dst,
                                    anchor), 0);
    munmap(p, 3 * pg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefix_after_efault),
        cmocka_unit_test(test_denied),
        cmocka_unit_test(test_read_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
