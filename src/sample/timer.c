/*
 * The "timer" address source: the same per-thread CPU-time sampling as the
 * perf source (soft.c), without perf events — a POSIX timer on the thread's
 * CPU-time clock (timer_create, SIGEV_THREAD_ID) sends SIGTRAP to that thread
 * with sig_data in the timer's value. For containers whose seccomp profile
 * refuses perf_event_open but allows timer_create (Docker's and Kubernetes'
 * defaults). CPU-time timers expire on scheduler ticks, so periods shorter
 * than a tick are served a tick apart (the report gives the rate achieved).
 *
 * The interval is randomised around the period (jitter.h): every
 * WASP_INTERVAL_KEPT samples (interval.c) the handler sets a fresh one with
 * timer_settime, counted from then, less
 * how late the sample came (the time since the interval ended, from
 * timer_gettime: the kernel has already reloaded the timer from its
 * expiry), so the mean stays the period. The reload value is that same
 * interval, so a signal the handler does not act on (it was busy, or
 * profiling is stopping) repeats the last interval instead of stopping the
 * timer. Expiries still wait for a scheduler tick (4 ms at HZ=250): a
 * period under a few ticks is served on ticks, and a program periodic at a
 * divisor of the tick can alias with the ticks themselves, which no draw
 * here can undo.
 *
 * take(), tick() and set_period() are ASYNC-SIGNAL-SAFE (a register read; one
 * timer_settime system call); init/open/close run on ordinary threads.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sample/signal.h"
#include "sample/source.h"

/* The CPU-time clock of thread tid (the kernel's MAKE_THREAD_CPUCLOCK with
 * CPUCLOCK_SCHED): works for any thread of this process, also ones adopted
 * at attach, which pthread_getcpuclockid cannot name. */
static clockid_t thread_cpu_clock(pid_t tid)
{
    return (clockid_t)((~(unsigned)tid << 3) | 6u);
}

static uint64_t ns_of(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

static void interval(struct itimerspec *its, uint64_t ns)
{
    its->it_value.tv_sec = (time_t)(ns / 1000000000ull);
    its->it_value.tv_nsec = (long)(ns % 1000000000ull);
    its->it_interval = its->it_value;
}

static int timer_init(wasp_source *s, const wasp_source_config *c, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    wasp_cputime_describe(s, c, "POSIX timer (no perf events)");
    return 0;
}

static int timer_open(wasp_source *s, wasp_sampler_thread *t, char *err, size_t errlen)
{
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGTRAP;
    sev._sigev_un._tid = t->tid; /* sigev_notify_thread_id (glibc 2.36 lacks the name) */
    sev.sigev_value.sival_ptr = (void *)(uintptr_t)wasp_sig_data(t->index, WASP_EV_SAMPLE, 0);
    timer_t id;
    if (timer_create(thread_cpu_clock(t->tid), &sev, &id) != 0) {
        int e = errno; /* a refusal: most likely a container's seccomp profile */
        snprintf(err, errlen, "timer_create(thread CPU clock) failed: %s%s", strerror(e),
                 e == EPERM || e == EACCES
                     ? " (a seccomp profile may refuse it: allow timer_create)"
                     : "");
        return -1;
    }
    struct itimerspec its;
    wasp_sampler_seed(t);
    interval(&its, wasp_sampler_next(s, t, s->period));
    if (timer_settime(id, 0, &its, NULL) != 0) {
        snprintf(err, errlen, "timer_settime failed: %s", strerror(errno));
        timer_delete(id);
        return -1;
    }
    t->timer = id;
    t->has_timer = 1;
    t->period_ns = s->period;
    return 0;
}

static void timer_close(wasp_source *s, wasp_sampler_thread *t)
{
    (void)s;
    if (!t->has_timer)
        return;
    timer_delete(t->timer); /* a signal already queued is ignored: t is inactive */
    t->has_timer = 0;
}

/* The next interval: mean ns, randomised. */
static int timer_set_period(wasp_source *s, wasp_sampler_thread *t, uint64_t ns)
{
    if (!t->has_timer)
        return -1;
    struct itimerspec its;
    uint64_t late = 0;
    if (timer_gettime(t->timer, &its) == 0) {
        uint64_t reload = ns_of(&its.it_interval), left = ns_of(&its.it_value);
        late = left && left <= reload ? reload - left : 0;
    }
    interval(&its, wasp_sampler_after(s, t, ns, late));
    return timer_settime(t->timer, 0, &its, NULL) == 0 ? 0 : -1;
}

static void timer_tick(wasp_source *s, wasp_sampler_thread *t)
{
    if (s->jitter && t->period_ns && wasp_sampler_redraw(t))
        timer_set_period(s, t, t->period_ns);
}

wasp_source wasp_timer_source = {
    .name = "timer",
    .label = "sampler timer",
    .how = "POSIX CPU-time timer: no perf events needed",
    .init = timer_init,
    .open_thread = timer_open,
    .close_thread = timer_close,
    .take = wasp_cputime_take,
    .set_period = timer_set_period,
    .tick = timer_tick,
    .time_based = 1,
};
