/*
 * The "perf" address source: a per-thread CPU-time clock (perf
 * PERF_COUNT_SW_TASK_CLOCK) interrupts the thread every `period` ns of its own
 * CPU time with a synchronous SIGTRAP. The instruction at the interrupted PC
 * has not executed yet; the handler decodes it and computes its address from
 * the saved registers. Works where there is no hardware PMU (most VMs).
 *
 * The interval is randomised around the period (jitter.h): every
 * WASP_INTERVAL_KEPT samples the handler arms a new one (perf_rearm.c).
 *
 * take(), tick() and set_period() are ASYNC-SIGNAL-SAFE; init/open/close run on
 * ordinary threads.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sample/signal.h"
#include "sample/source.h"

static int soft_init(wasp_source *s, const wasp_source_config *c, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    wasp_cputime_describe(s, c, "perf task-clock");
    return 0;
}

static int soft_open(wasp_source *s, wasp_sampler_thread *t, char *err, size_t errlen)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    wasp_sampler_seed(t);
    a.sample_period = wasp_sampler_next(s, t, s->period);
    t->armed = t->due = a.sample_period; /* the count starts at 0 when enabled */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1; /* enabled once its signal is wired up */
    wasp_perf_signal_attr(&a, wasp_sig_data(t->index, WASP_EV_SAMPLE, 0));
    int fd = wasp_perf_open(&a, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "perf_event_open(task-clock, sigtrap) failed: %s", strerror(errno));
        return -1;
    }
    if (wasp_perf_start(fd, t->tid, wasp_sig_data(t->index, WASP_EV_SAMPLE, 0)) != 0) {
        snprintf(err, errlen, "cannot start the sampling timer: %s", strerror(errno));
        close(fd);
        return -1;
    }
    t->fd = fd;
    t->period_ns = s->period;
    return 0;
}

/* The next interval: mean ns, randomised. */
static int soft_set_period(wasp_source *s, wasp_sampler_thread *t, uint64_t ns)
{
    return wasp_perf_rearm(s, t, ns);
}

/* A failed ioctl leaves the last interval in place: sampling goes on. */
static void soft_tick(wasp_source *s, wasp_sampler_thread *t)
{
    if (s->jitter && t->fd >= 0 && t->period_ns)
        wasp_perf_tick(s, t, t->period_ns);
}

static void soft_close(wasp_source *s, wasp_sampler_thread *t)
{
    (void)s;
    wasp_perf_close(&t->fd);
}

wasp_source wasp_soft_source = {
    .name = "perf",
    .label = "sampler perf",
    .how = "perf task-clock: thread CPU time",
    .init = soft_init,
    .open_thread = soft_open,
    .close_thread = soft_close,
    .take = wasp_cputime_take,
    .set_period = soft_set_period,
    .tick = soft_tick,
    .time_based = 1,
    .uses_perf = 1,
};
