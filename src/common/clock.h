/*
 * Monotonic time for deadlines and rates (the command's waits, the agent's
 * event-rate window, the census's timing). Not for signal handlers' hot paths.
 */
#ifndef WASP_CLOCK_H
#define WASP_CLOCK_H

/* Milliseconds on CLOCK_MONOTONIC (from an arbitrary start). */
long long wasp_mono_ms(void);

#endif
