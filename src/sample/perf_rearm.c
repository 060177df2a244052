/*
 * Re-arming a perf sampling event with a fresh interval (source.h,
 * wasp_perf_rearm), every WASP_INTERVAL_KEPT samples (wasp_perf_tick): in
 * between, the kernel reloads the interval in effect at each overflow.
 * PERF_EVENT_IOC_PERIOD stops the event, forgets what was left of the old
 * period and restarts it (kernel/events/core.c, __perf_event_period), so
 * the new interval counts from the ioctl, not from the overflow that sent
 * the signal: the signal's delivery and the handler up to here (~28 us on
 * our VMs, 2.3% of a 1 ms period) would lengthen every interval re-armed.
 * The event's count, read first, says how late we are.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler (read and ioctl on the
 * thread's own event).
 */
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sample/source.h"

int wasp_perf_rearm(const wasp_source *s, wasp_sampler_thread *t, uint64_t mean)
{
    uint64_t count = 0, late = 0;
    int counted = read(t->fd, &count, sizeof count) == (ssize_t)sizeof count;
    /* Past the end of the interval armed; a multiple of it further when
     * overflows went unsignalled (in the kernel, excluded). */
    if (counted && t->armed && count >= t->due)
        late = (count - t->due) % t->armed;
    uint64_t next = wasp_sampler_after(s, t, mean, late);
    if (ioctl(t->fd, PERF_EVENT_IOC_PERIOD, &next) != 0)
        return -1;
    t->armed = counted ? next : 0;
    t->due = count + next;
    return 0;
}

void wasp_perf_tick(const wasp_source *s, wasp_sampler_thread *t, uint64_t mean)
{
    if (wasp_sampler_redraw(t))
        wasp_perf_rearm(s, t, mean);
    else
        t->due += t->armed; /* reloaded at this sample's overflow: one interval on */
}
