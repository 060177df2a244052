/*
 * Perf-event signalling routes (see signal.h), and the recognition of every
 * wasp signal: perf sigtrap, F_SETSIG, and the POSIX timer sampler's.
 *
 * ASYNC-SIGNAL-SAFE: wasp_perf_signal_data runs in the SIGTRAP handler (a read
 * of the fd table that ordinary threads fill before enabling the event).
 */
#include "sample/signal.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sample/source.h"

int wasp_perf_fasync;

enum { FD_TABLE = 1 << 16, WASP_TRAP_PERF = 6 };
static uint64_t fd_data[FD_TABLE];

int wasp_perf_signal_route_init(int force_fasync)
{
    if (force_fasync) {
        wasp_perf_fasync = 1;
        return 0;
    }
    /* A kernel without sigtrap rejects the attribute with EINVAL. */
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_DUMMY;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.sigtrap = 1;
    a.remove_on_exec = 1;
    int fd = wasp_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0)
        close(fd);
    wasp_perf_fasync = fd < 0 && errno == EINVAL;
    return 0;
}

void wasp_perf_signal_attr(struct perf_event_attr *a, uint64_t sig_data)
{
    if (wasp_perf_fasync)
        return; /* signalled through the descriptor (wasp_perf_signal_fd) */
    a->sigtrap = 1;
    a->remove_on_exec = 1;
    a->sig_data = sig_data;
}

int wasp_perf_signal_fd(int fd, pid_t tid, uint64_t sig_data)
{
    if (!wasp_perf_fasync)
        return 0;
    if (fd < 0 || fd >= FD_TABLE)
        return -1;
    __atomic_store_n(&fd_data[fd], sig_data, __ATOMIC_RELEASE);
    struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = tid};
    if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, SIGTRAP) != 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) != 0)
        return -1;
    return 0;
}

void wasp_perf_signal_forget(int fd)
{
    if (wasp_perf_fasync && fd >= 0 && fd < FD_TABLE)
        __atomic_store_n(&fd_data[fd], 0, __ATOMIC_RELEASE);
}

int wasp_perf_start(int fd, pid_t tid, uint64_t sig_data)
{
    if (wasp_perf_signal_fd(fd, tid, sig_data) != 0)
        return -1;
    /* On both routes every overflow signals; no event limit (IOC_REFRESH),
     * which would restart a CPU-clock event after only 10us. */
    return ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

void wasp_perf_close(int *fd)
{
    if (*fd < 0)
        return;
    ioctl(*fd, PERF_EVENT_IOC_DISABLE, 0);
    wasp_perf_signal_forget(*fd);
    close(*fd);
    *fd = -1;
}

/* glibc 2.36 lacks si_perf_data: it follows si_addr in the kernel's layout. */
static uint64_t sigtrap_data(const siginfo_t *si)
{
    return *(const unsigned long *)((const char *)si + offsetof(siginfo_t, si_addr) +
                                    sizeof(void *));
}

int wasp_perf_signal_data(const siginfo_t *si, uint64_t *data)
{
    uint64_t d = 0;
    if (si->si_code == SI_TIMER) {
        /* The timer sampler (timer.c): sig_data travels in the timer's value. */
        d = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
    } else if (wasp_perf_fasync) {
        /* POLL_* codes, or SI_SIGIO where SIGTRAP's own codes would be ambiguous */
        if ((si->si_code > 0 || si->si_code == SI_SIGIO) && si->si_fd >= 0 && si->si_fd < FD_TABLE)
            d = __atomic_load_n(&fd_data[si->si_fd], __ATOMIC_ACQUIRE);
    } else if (si->si_code == WASP_TRAP_PERF) {
        d = sigtrap_data(si);
    }
    *data = d;
    return (d >> 32) == 0x57415350ull;
}
