/*
 * Exits of the JVM that post no VM death event, so that the profile is
 * written then too: HotSpot's _exit() (-XX:+ExitOnOutOfMemoryError) and its
 * direct exit() calls, hooked in libjvm.so's linkage table (exit_hook.c).
 * Runtime.halt and System.exit from any thread post VM death and need none.
 * Not for signal handlers.
 */
#ifndef WASP_EXIT_HOOK_H
#define WASP_EXIT_HOOK_H

#include <stddef.h>

/* Called on the exiting thread before the real exit; underscore: _exit. */
typedef void (*wasp_exit_fn)(int status, int underscore);

/* Hook libjvm's exits (once per process; a later call replaces fn).
 * 0, or -1 with why[] (those exits then write no profile). */
int wasp_exit_hook_install(wasp_exit_fn fn, char *why, size_t len);

#endif
