/*
 * What this machine and this JVM allow: perf watchpoints, the address source,
 * NUMA, how object addresses look. Asked once, when profiling starts; every
 * "no" becomes one clear sentence for the user. Not for signal handlers.
 */
#include "agent/probe.h"

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <numa.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/jvm.h"
#include "agent/log.h"
#include "agent/vmflags.h"
#include "sample/signal.h"
#include "watch/runtime.h"

/* Can this thread open the events every profiled thread needs? */
int wasp_probe_perf(char *why, size_t len)
{
    static uint64_t target;
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_BREAKPOINT;
    a.size = sizeof a;
    a.bp_type = HW_BREAKPOINT_W;
    a.bp_addr = (uint64_t)(uintptr_t)&target;
    a.bp_len = 8;
    a.sample_period = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    wasp_perf_signal_attr(&a, 0);
    int fd = wasp_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    int err = errno, paranoid = -1;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &paranoid) != 1)
            paranoid = -1;
        fclose(f);
    }
    const char *what;
    if ((err == EACCES || err == EPERM) && paranoid > 2)
        what = "forbidden by kernel.perf_event_paranoid: set it to 2 or lower "
               "(sysctl -w kernel.perf_event_paranoid=2) or grant the JVM CAP_PERFMON";
    else if (err == EACCES || err == EPERM)
        what = "denied although kernel.perf_event_paranoid allows it: a seccomp filter (as in "
               "containers) or a security module blocks perf_event_open; allow it";
    else if (err == ENOSYS)
        what = "this kernel has no perf events (CONFIG_PERF_EVENTS)";
    else if (err == ENOSPC || err == EBUSY)
        what = "every debug register is taken (is a debugger attached?)";
    else
        what = "this machine exposes no usable hardware debug registers (some hypervisors hide "
               "them), or the kernel predates Linux 5.13's perf sigtrap";
    snprintf(why, len, "cannot use hardware watchpoints (perf_event_open: %s; "
             "kernel.perf_event_paranoid=%d): %s", strerror(err), paranoid, what);
    return -1;
}

int wasp_probe_source(const wasp_options *o, char *why, size_t len)
{
    char err[256] = "";
    if (o->sampler != WASP_SAMPLER_SOFT) {
        if (wasp_pmu_available() || o->pmu_event[0]) {
            if (wasp_pmu_source.init(&wasp_pmu_source, o, err, sizeof err) == 0) {
                wasp_rt.source = &wasp_pmu_source;
                return 0;
            }
            if (o->sampler == WASP_SAMPLER_PMU) {
                snprintf(why, len, "sampler=pmu: %s", err);
                return -1;
            }
            wasp_log("PMU unusable (%s); using the software sampler", err);
        } else if (o->sampler == WASP_SAMPLER_PMU) {
            snprintf(why, len,
                     "sampler=pmu: this machine has no hardware PMU (no cpu event source in "
                     "/sys/bus/event_source/devices); use sampler=soft or auto");
            return -1;
        }
    }
    wasp_soft_source.init(&wasp_soft_source, o, err, sizeof err);
    wasp_rt.source = &wasp_soft_source;
    return 0;
}


int wasp_probe_numa_nodes(void)
{
    if (numa_available() < 0)
        return 1;
    int n = numa_num_configured_nodes();
    return n > 0 ? n : 1;
}

int wasp_probe_heap_addresses(char *why, size_t len)
{
    (void)why, (void)len;
    int zgc = 0, generational = 0, shenandoah = 0;
    wasp_rt.heap_address_mask = ~0ull;
    wasp_rt.heap_moves_concurrently = 0;
    if (wasp_vm_get_bool_flag("UseShenandoahGC", &shenandoah) == 0 && shenandoah)
        wasp_rt.heap_moves_concurrently = 1;
    if (wasp_vm_get_bool_flag("UseZGC", &zgc) != 0 || !zgc)
        return 0;
    wasp_rt.heap_moves_concurrently = 1;
    if (wasp_vm_get_bool_flag("ZGenerational", &generational) == 0 && generational)
        return 0; /* generational ZGC: handles and accesses use plain addresses */
    const char *spec = wasp_jvm_property("java.specification.version", "17");
    int major = 0;
    sscanf(spec, "%d", &major);
    if (major >= 23)
        return 0; /* generational is the only ZGC */
    /* Single-generation ZGC maps the heap at several "colours": compare heap
     * offsets, below the colour bits (42 offset bits for heaps up to 4 TB). */
    wasp_rt.heap_address_mask = (1ull << 42) - 1;
    return 0;
}
