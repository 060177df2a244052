/*
 * ASYNC-SIGNAL-SAFE: called from signal handlers. One syscall per page at
 * most, no allocation, no locks; errno is saved and restored so the
 * interrupted code never sees it change.
 *
 * Reads our own memory through process_vm_readv(getpid()), which reports an
 * unmapped or PROT_NONE source as EFAULT instead of raising SIGSEGV. The pid
 * is cached (a getpid is a system call, a microsecond on a VM, and the
 * handlers read a few times a sample) and refreshed in a forked child. Pages the
 * page watchpoint engine protected are read through /proc/self/mem instead
 * (the kernel reads those for us; unmapped ones still fail). Code the
 * thread is running is copied directly instead (wasp_read_code).
 */
#include "isa/isa.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
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

static volatile int mem_fd = -1;

static volatile pid_t own_pid;

static void forget_pid(void)
{
    own_pid = 0;
}

/* At load (the agent's, or a program's), outside any signal handler. */
__attribute__((constructor)) static void cache_pid(void)
{
    own_pid = getpid();
    pthread_atfork(NULL, NULL, forget_pid);
}

static pid_t pid_now(void)
{
    pid_t pid = own_pid;
    return pid ? pid : getpid();
}

int wasp_safe_read_protected(void)
{
    if (mem_fd >= 0)
        return mem_fd;
    /* Read-write: the page engine's emulated stores use the same descriptor. */
    int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int none = -1;
    if (!__atomic_compare_exchange_n(&mem_fd, &none, fd, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        close(fd);
    return mem_fd;
}

/* A protected page: readable through /proc/self/mem, chunk by chunk. */
static size_t read_protected(uint64_t addr, void *dst, size_t n)
{
    int fd = __atomic_load_n(&mem_fd, __ATOMIC_ACQUIRE);
    size_t done = 0;
    while (fd >= 0 && done < n) {
        ssize_t r = pread(fd, (char *)dst + done, n - done, (off_t)(addr + done));
        if (r <= 0)
            break;
        done += (size_t)r;
    }
    return done;
}

size_t wasp_safe_read(uint64_t addr, void *dst, size_t n)
{
    if (n == 0)
        return 0;
    int saved_errno = errno;
    pid_t pid = pid_now();
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
        /* A range within one chunk that failed whole fails again: only a
         * protected page is worth a second try. */
        int same = done == 0 && want == n;
        r = same ? -1 : read_once(pid, a, (char *)dst + done, want);
        if (same)
            errno = EFAULT;
        if (r <= 0 && errno == EFAULT && mem_fd >= 0)
            r = (ssize_t)read_protected(a, (char *)dst + done, want);
        if (r <= 0)
            break;
        done += (size_t)r;
    }
    errno = saved_errno;
    return done;
}

size_t wasp_read_code(uint64_t addr, uint8_t *dst, size_t n, uint64_t anchor)
{
    /* Code cannot be freed under a thread running it, so bytes on the
     * anchor's page are copied directly, saving a system call per sample
     * or fault. */
    const uint64_t page = 4096;
    uint64_t lo = anchor & ~(page - 1), hi = lo + page;
    if (addr >= lo && addr + n <= hi) {
        memcpy(dst, (const void *)(uintptr_t)addr, n);
        return n;
    }
    if (addr >= lo && addr < hi) { /* starts on the page, runs past it */
        size_t first = (size_t)(hi - addr);
        memcpy(dst, (const void *)(uintptr_t)addr, first);
        return first + wasp_safe_read(hi, dst + first, n - first);
    }
    if (addr < lo && addr + n > lo && addr + n <= hi) { /* ends on the page */
        size_t head = (size_t)(lo - addr);
        if (wasp_safe_read(addr, dst, head) != head)
            return 0;
        memcpy(dst + head, (const void *)(uintptr_t)lo, n - head);
        return n;
    }
    return wasp_safe_read(addr, dst, n);
}
