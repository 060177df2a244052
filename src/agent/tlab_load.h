/*
 * Finds a Java thread's TLAB top and end relative to its JNIEnv (heap/tlab.h)
 * from VMStructs, and checks them on the calling thread. Not for handlers.
 */
#ifndef WASP_TLAB_LOAD_H
#define WASP_TLAB_LOAD_H

#include <jni.h>
#include <stddef.h>

/* After wasp_frame_anchor_load succeeded (it places the JavaThread). env:
 * the calling thread's. Returns 0 when the layout was found and is
 * consistent, -1 with why. */
int wasp_tlab_load(JNIEnv *env, char *why, size_t len);

#endif
