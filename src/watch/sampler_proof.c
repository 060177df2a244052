/*
 * Start-up proof of an address source: a sampler is used only after one of
 * its samples arrived on this thread (a successful perf_event_open or
 * timer_create proves nothing). Runs on an ordinary thread, never in a
 * handler.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "sample/signal.h"
#include "sample/source.h"
#include "watch/handler.h"

int wasp_source_prove(wasp_source *s, const wasp_source_config *c, char *why, size_t len)
{
    if (s->init(s, c, why, len) != 0)
        return -1;
    enum { PROBE_PERIOD_NS = 200000, MAX_CPU_NS = 200000000, WANTED = 3 };
    if (wasp_handler_install() != 0) {
        snprintf(why, len, "cannot install the SIGTRAP handler: %s", strerror(errno));
        return -1;
    }
    wasp_sampler_thread probe = {.index = WASP_PROBE_INDEX, .tid = gettid(), .fd = -1};
    wasp_sampler_thread *t = &probe;
    uint64_t period = s->period;
    if (s->time_based)
        s->period = PROBE_PERIOD_NS; /* a short one: the proof costs little CPU */
    char err[256] = "";
    int rc = s->open_thread(s, t, err, sizeof err);
    s->period = period;
    if (rc != 0) {
        snprintf(why, len, "%s", err);
        return -1;
    }
    /* Memory traffic too, and fresh pages: a PMU source counts memory events
     * (or page faults, for its software stand-in), not time. */
    enum { PAGES = 512 };
    uint8_t *fresh = mmap(NULL, PAGES * 4096ul, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint32_t before = wasp_handler_probe_count(WASP_EV_SAMPLE);
    uint64_t start = wasp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    volatile uint64_t spin = 0; /* work for the clock to measure */
    for (unsigned round = 0; wasp_handler_probe_count(WASP_EV_SAMPLE) - before < WANTED &&
                             wasp_clock_ns(CLOCK_THREAD_CPUTIME_ID) - start < MAX_CPU_NS;
         round++) {
        for (int i = 0; i < 10000; i++)
            spin += (uint64_t)i;
        if (fresh != MAP_FAILED && round < PAGES)
            ((volatile uint8_t *)fresh)[round * 4096ul] = 1;
    }
    (void)spin;
    if (fresh != MAP_FAILED)
        munmap(fresh, PAGES * 4096ul);
    uint32_t got = wasp_handler_probe_count(WASP_EV_SAMPLE) - before;
    s->close_thread(s, t);
    if (got == 0) {
        snprintf(why, len, "the %s sampler was accepted but no sample arrived in %d ms of CPU time",
                 s->name, MAX_CPU_NS / 1000000);
        return -1;
    }
    return 0;
}
