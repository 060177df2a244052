/*
 * Time for deadlines, rates and budgets: the command's waits, the agent's
 * event-rate window, the census's timing, and the handlers' CPU budgets.
 *
 * ASYNC-SIGNAL-SAFE: clock_gettime only.
 */
#ifndef WASP_CLOCK_H
#define WASP_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds on clock id (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, ...). */
uint64_t wasp_clock_ns(clockid_t id);

/* Milliseconds on CLOCK_MONOTONIC (from an arbitrary start). */
long long wasp_mono_ms(void);

#endif
