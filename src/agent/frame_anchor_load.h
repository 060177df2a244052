/*
 * Finds the frame anchor's place relative to a JNIEnv (watch/frame_anchor.h)
 * from VMStructs, and proves it on the calling thread. Not for handlers.
 */
#ifndef WASP_FRAME_ANCHOR_LOAD_H
#define WASP_FRAME_ANCHOR_LOAD_H

#include <jni.h>
#include <stddef.h>

/* env: the calling thread's, the thread running native code (a JVMTI
 * callback). Returns 0 when the layout was found and proven, -1 with why. */
int wasp_frame_anchor_load(JNIEnv *env, char *why, size_t len);

#endif
