/*
 * How wasp's perf events signal the thread they watch. Two routes, one
 * handler: attr.sigtrap (Linux 5.13+), a synchronous SIGTRAP with sig_data in
 * the siginfo; or, where the kernel lacks it, the older F_SETSIG route: the
 * event's file descriptor sends SIGTRAP to its thread (F_SETOWN_EX) with the
 * descriptor in si_fd. The F_SETSIG signal is not queued: one arriving while
 * another SIGTRAP is pending is lost, which costs a sample or a pair, never
 * correctness.
 *
 * Everything but wasp_perf_signal_route_init and wasp_perf_signal_fd is
 * ASYNC-SIGNAL-SAFE (an ioctl at most, or a table read).
 */
#ifndef WASP_SIGNAL_H
#define WASP_SIGNAL_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* 1 when events use the F_SETSIG route. */
extern int wasp_perf_fasync;

/* Choose the route: sigtrap unless the kernel refuses it (or force_fasync).
 * Returns 0. Call once before opening events. */
int wasp_perf_signal_route_init(int force_fasync);

/* Set the signalling fields of an event's attributes. */
void wasp_perf_signal_attr(struct perf_event_attr *a, uint64_t sig_data);
/* After perf_event_open: wire an F_SETSIG event to thread tid. Returns 0 or -1. */
int wasp_perf_signal_fd(int fd, pid_t tid, uint64_t sig_data);
/* Before close. */
void wasp_perf_signal_forget(int fd);

/* Wire a freshly opened, disabled thread event to its thread and start it.
 * Returns 0, or -1 with errno set. */
int wasp_perf_start(int fd, pid_t tid, uint64_t sig_data);
/* Stop and close an event; *fd becomes -1. Does nothing when *fd < 0. */
void wasp_perf_close(int *fd);

/* In the handler: the sig_data of a wasp event's signal. Returns 1 when the
 * signal is one of wasp's. */
int wasp_perf_signal_data(const siginfo_t *si, uint64_t *data);

/* sig_data layout: thread index, event kind, slot. */
enum { WASP_EV_SAMPLE = 1, WASP_EV_WATCH = 2 };
/* The thread index of start-up proofs (self-tests): beyond every thread's. */
enum { WASP_PROBE_INDEX = 0xffffff };
static inline uint64_t wasp_sig_data(uint32_t index, int kind, int slot)
{
    return 0x5741535000000000ull | ((uint64_t)index << 8) | ((uint64_t)kind << 4) | (uint64_t)slot;
}
static inline int wasp_sig_data_valid(uint64_t d)
{
    return (d >> 32) == 0x57415350ull;
}

#endif
