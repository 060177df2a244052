/*
 * ASYNC-SIGNAL-SAFE: called from signal handlers. One syscall per page at
 * most, no allocation, no locks; errno is saved and restored so the
 * interrupted code never sees it change.
 *
 * Reads our own memory through process_vm_readv(getpid()), which reports an
 * unmapped or PROT_NONE source as EFAULT instead of raising SIGSEGV.
 */
#include "isa/isa.h"

#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

/* Chunk boundary for the slow path. 4 KiB divides every x86-64 page size, so
 * a chunk never straddles a mapped/unmapped boundary. */
enum { CHUNK = 4096 };

static ssize_t read_once(pid_t pid, uint64_t addr, void *dst, size_t n)
{
    struct iovec local = {.iov_base = dst, .iov_len = n};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = n};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

size_t wasp_safe_read(uint64_t addr, void *dst, size_t n)
{
    if (n == 0)
        return 0;
    int saved_errno = errno;
    pid_t pid = getpid();
    ssize_t r = read_once(pid, addr, dst, n);
    size_t done = r > 0 ? (size_t)r : 0;
    /* EFAULT or a short count may still leave a readable prefix when the range
     * crosses into an unmapped page: continue chunk by chunk until one fails.
     * Other errors (ENOSYS, EPERM under seccomp) mean nothing can be read. */
    int retry = r >= 0 || errno == EFAULT;
    while (retry && done < n) {
        uint64_t a = addr + done;
        size_t want = CHUNK - (size_t)(a % CHUNK);
        if (want > n - done)
            want = n - done;
        r = read_once(pid, a, (char *)dst + done, want);
        if (r <= 0)
            break;
        done += (size_t)r;
    }
    errno = saved_errno;
    return done;
}
