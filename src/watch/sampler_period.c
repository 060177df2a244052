/*
 * A thread's sampling period: backoff and pacing (see sampler_period.h).
 * The period set is st->period_ns = base << t->pace_shift, where the base is
 * the asked-for period, doubled by each backoff.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler (one system call when the
 * period changes); wasp_pacing_enable runs once at set-up.
 */
#include "watch/sampler_period.h"

#include "watch/mechanisms.h"

static volatile uint64_t max_period_ns; /* the longest base period backoff set */
static int pacing;                      /* set before sampling, read-only afterwards */

/* Sampling costs the thread its handler time: past SAMPLER_BUDGET of the
 * thread's sampled CPU time, the thread's base period doubles (up to
 * SAMPLER_MAX_SLOWDOWN times the asked-for one), so no setting can starve the
 * program. Checked every SAMPLER_WINDOW samples. The handler's time comes
 * from handler.c, bounded so that a preemption inside a handler does not
 * count: on a CPU shared with other busy threads a preemption or two in a
 * window (~3 ms each) once put it over budget, raising the period for good
 * (seen: 1 ms to 4 ms). */
enum { SAMPLER_WINDOW = 32, SAMPLER_MAX_SLOWDOWN = 1024 };
static const double SAMPLER_BUDGET = 0.10;

void wasp_sampler_period_reset(void)
{
    __atomic_store_n(&max_period_ns, 0, __ATOMIC_RELAXED);
}

void wasp_pacing_enable(int on)
{
    pacing = on;
}

/* Sets t's period to base << shift; 0, or -1 (nothing changed) when the
 * sampler cannot. */
static int set(wasp_thread *t, uint64_t base, int shift)
{
    wasp_source *src = wasp_chosen()->source;
    wasp_sampler_thread *st = &t->sampler;
    uint64_t next = base << shift;
    if (!src->set_period || !st->period_ns || src->set_period(src, st, next) != 0)
        return -1;
    st->period_ns = next;
    t->pace_shift = (uint8_t)shift;
    return 0;
}

void wasp_sampler_backoff(wasp_thread *t, uint64_t spent)
{
    t->handler_ns += spent;
    t->rec.counters[WASP_C_SAMPLER_HANDLER_NS] += spent;
    if (++t->handler_samples < SAMPLER_WINDOW)
        return;
    wasp_sampler_thread *st = &t->sampler;
    uint64_t window = (uint64_t)SAMPLER_WINDOW * st->period_ns;
    int over = (double)t->handler_ns > SAMPLER_BUDGET * (double)window;
    t->handler_ns = 0;
    t->handler_samples = 0;
    uint64_t base = st->period_ns >> t->pace_shift;
    if (!over || !base || base >= wasp_chosen()->source->period * SAMPLER_MAX_SLOWDOWN ||
        set(t, base * 2, t->pace_shift) != 0)
        return;
    t->rec.counters[WASP_C_SAMPLER_BACKOFF]++;
    uint64_t next = base * 2;
    uint64_t max = __atomic_load_n(&max_period_ns, __ATOMIC_RELAXED);
    while (next > max &&
           !__atomic_compare_exchange_n(&max_period_ns, &max, next, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
}

int wasp_pace_next(int shift, int refused, int open)
{
    if (refused)
        return shift < WASP_PACE_MAX_SHIFT ? shift + 1 : shift;
    return open ? 0 : shift;
}

void wasp_pace(wasp_thread *t, int refused, int open)
{
    if (!pacing)
        return;
    int shift = t->pace_shift;
    /* The samples this one stood for beyond itself were never taken. */
    t->rec.counters[WASP_C_SAMPLER_PACED_SKIPS] += (1u << shift) - 1u;
    int next = wasp_pace_next(shift, refused, open);
    if (next != shift)
        set(t, t->sampler.period_ns >> shift, next);
}

double wasp_sample_weight(const wasp_thread *t)
{
    const wasp_source *src = wasp_chosen()->source;
    if (!src || !src->time_based || !src->period || !t->sampler.period_ns)
        return 1.0;
    return (double)t->sampler.period_ns / (double)src->period;
}

uint64_t wasp_sampler_max_period(void)
{
    return __atomic_load_n(&max_period_ns, __ATOMIC_RELAXED);
}
