/*
 * perf_event_open wrapper and PMU detection.
 *
 * ASYNC-SIGNAL-SAFE: wasp_perf_open is a bare system call.
 */
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
