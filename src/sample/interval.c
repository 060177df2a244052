/*
 * The samplers' randomised intervals (jitter.h): each thread draws its next
 * interval from its own generator, seeded when its event opens.
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

uint64_t wasp_sampler_after(const wasp_source *s, wasp_sampler_thread *t, uint64_t mean,
                            uint64_t late)
{
    uint64_t next = wasp_sampler_next(s, t, mean);
    uint64_t owed = t->owed + late;
    /* Later than a whole period (a thread descheduled, a CPU-time timer that
     * waits for a scheduler tick): the sample was lost to that, not to
     * re-arming; forgiven. */
    if (owed > mean)
        owed = mean;
    uint64_t off = owed < next / 2 ? owed : next / 2;
    t->owed = owed - off;
    return next - off;
}
