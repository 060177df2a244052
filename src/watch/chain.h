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

/* In a handler of ours that interrupted code with SIGSEGV or SIGBUS blocked
 * (HotSpot's own SIGSEGV handler, say): unblock them until the handler
 * returns. Our handlers call into HotSpot (AsyncGetCallTrace), which probes
 * pointers with SafeFetch and expects the probe's fault to reach its
 * handler; a fault of a blocked SIGSEGV kills the process instead, without
 * an hs_err file. The interrupted mask comes back when the handler returns. */
void wasp_let_faults_through(const void *ucontext);

#endif
