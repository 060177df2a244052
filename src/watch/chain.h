/*
 * Passing a signal that is not wasp's to the handler installed before wasp's
 * (HotSpot's, most often), as if wasp were not there.
 *
 * ASYNC-SIGNAL-SAFE.
 */
#ifndef WASP_CHAIN_H
#define WASP_CHAIN_H

#include <signal.h>

void wasp_chain_signal(const struct sigaction *previous, int sig, siginfo_t *si, void *uc);

#endif
