/*
 * The thread of a calling context (wasp run --threads; docs/findings.md,
 * "Choosing what is shown"): the agent puts a pseudo frame "[thread NAME]"
 * at the root of every context a thread's samples made, NAME the thread's
 * Java name with each run of digits folded to '#' ("pool-#-thread-#"), so
 * a pool of 200 workers is one group and the contexts stay bounded. The
 * report's --thread matches NAME.
 */
#ifndef WASP_PROFILE_THREAD_FRAME_H
#define WASP_PROFILE_THREAD_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

#define WASP_THREAD_FRAME_PREFIX "[thread "
/* Set (to "1") in a profile whose contexts carry their thread. */
#define WASP_THREADS_META "thread_frames"

/* name with each run of decimal digits replaced by one '#', into out. */
void wasp_thread_group(const char *name, char *out, size_t n);

/* The frame "[thread GROUP]" of a thread named name, interned in p (its
 * frame id, UINT32_MAX when out of memory). */
uint32_t wasp_profile_thread_frame(wasp_profile *p, const char *name);

/* The thread group of context c (its root frame's, without the brackets:
 * *len bytes at the pointer), or NULL when c has no thread frame. */
const char *wasp_context_thread(const wasp_profile *p, const wasp_context *c, size_t *len);

#endif
