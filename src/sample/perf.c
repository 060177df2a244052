/*
 * perf_event_open wrapper and PMU detection.
 *
 * ASYNC-SIGNAL-SAFE: wasp_perf_open is a bare system call.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sample/source.h"

int wasp_perf_open(void *attr, pid_t tid, int cpu, int group, unsigned long flags)
{
    return (int)syscall(SYS_perf_event_open, attr, tid, cpu, group, flags);
}

int wasp_pmu_available(void)
{
    return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
           access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0 ||
           access("/sys/bus/event_source/devices/ibs_op", F_OK) == 0;
}

int wasp_perf_paranoid(void)
{
    int paranoid = -1;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &paranoid) != 1)
            paranoid = -1;
        fclose(f);
    }
    return paranoid;
}

int wasp_perf_refusal(char *why, size_t len)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.disabled = 1;
    a.exclude_kernel = 1;
    int fd = wasp_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    int err = errno, paranoid = wasp_perf_paranoid();
    const char *what;
    if ((err == EACCES || err == EPERM) && paranoid > 2)
        what = "forbidden by kernel.perf_event_paranoid: set it to 2 or lower "
               "(sysctl -w kernel.perf_event_paranoid=2) or grant CAP_PERFMON";
    else if (err == EACCES || err == EPERM)
        what = "denied although kernel.perf_event_paranoid allows it: a seccomp filter (as in "
               "containers) or a security module blocks perf_event_open";
    else if (err == ENOSYS)
        what = "this kernel has no perf events (CONFIG_PERF_EVENTS), or a seccomp filter hides "
               "the system call";
    else
        what = "perf events are unusable here";
    snprintf(why, len, "perf_event_open: %s; kernel.perf_event_paranoid=%d: %s", strerror(err),
             paranoid, what);
    return -1;
}
