/*
 * The calling thread's kernel thread id, without a system call after the
 * first: the page engine asks at every fault (twice, with window watches),
 * and a gettid costs about as much as the rest of a fault's own work on a
 * guest where system calls trap to the hypervisor.
 *
 * ASYNC-SIGNAL-SAFE: an initial-exec TLS read (no allocation, unlike a
 * dynamic TLS block on first touch), and gettid the first time.
 */
#ifndef WASP_SELF_TID_H
#define WASP_SELF_TID_H

#include <sys/types.h>

pid_t wasp_self_tid(void);

#endif
