/*
 * The samplers' randomised intervals (jitter.h): each thread draws its next
 * interval from its own generator, seeded when its event opens, and keeps
 * it for WASP_INTERVAL_KEPT samples (source.h): re-arming is two system
 * calls (~3 us to read the count, ~7 us for the new period on our VMs, a
 * sixth of a sample's handler), while the kernel reloads the interval in
 * effect at every expiry for nothing. Runs of equal intervals keep the
 * sampler off any program period: within a run the phase steps by the
 * interval, itself uniform over a period's width, and each run starts at
 * the phase the last one left. The mean interval is still the period.
 *
 * ASYNC-SIGNAL-SAFE: wasp_sampler_next runs in the SIGTRAP handler;
 * wasp_sampler_seed and wasp_sampler_jitter_words run on ordinary threads.
 */
#include <stdio.h>
#include <time.h>

#include "sample/jitter.h"
#include "sample/source.h"

void wasp_sampler_seed(wasp_sampler_thread *t)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    t->rng = wasp_jitter_seed((uint64_t)t->tid, now ^ (uint64_t)(uintptr_t)t);
}

uint64_t wasp_sampler_next(const wasp_source *s, wasp_sampler_thread *t, uint64_t mean)
{
    return wasp_jitter_next(&t->rng, mean, s->jitter);
}

const char *wasp_sampler_jitter_words(const wasp_source *s, char *buf, size_t len)
{
    if (!s->jitter) {
        snprintf(buf, len, "%s", "");
        return buf;
    }
    snprintf(buf, len, " on average, randomised ±%.0f%%", 100.0 * s->jitter / WASP_JITTER_ONE);
    return buf;
}

int wasp_sampler_redraw(wasp_sampler_thread *t)
{
    return ++t->kept >= WASP_INTERVAL_KEPT;
}

uint64_t wasp_sampler_after(const wasp_source *s, wasp_sampler_thread *t, uint64_t mean,
                            uint64_t late)
{
    uint64_t next = wasp_sampler_next(s, t, mean);
    t->kept = 0;
    uint64_t owed = t->owed + late;
    /* Later than a whole period (a thread descheduled, a CPU-time timer that
     * waits for a scheduler tick): the sample was lost to that, not to
     * re-arming; forgiven. */
    if (owed > mean)
        owed = mean;
    /* The interval armed serves WASP_INTERVAL_KEPT samples (the kernel
     * reloads it as armed): each takes its share of what is owed. */
    uint64_t off = owed / WASP_INTERVAL_KEPT;
    if (off > next / 2)
        off = next / 2;
    t->owed = owed - off * WASP_INTERVAL_KEPT;
    return next - off;
}
