/*
 * Installing the SIGTRAP handler (handler.c) that serves every wasp perf event.
 */
#ifndef WASP_HANDLER_H
#define WASP_HANDLER_H

#include "watch/thread_state.h"

/* Install once; the handler stays (inert when sampling is off) so a late
 * signal never meets the default action, which would kill the JVM. */
int wasp_handler_install(void);

/* Disarm every slot of t, counting armed ones as unfinished. Call with t's
 * signals quiet (t inactive, or from t itself with sampling off). */
void wasp_thread_release_slots(wasp_thread *t);

#endif
