/*
 * Filling wasp_java (heap/java_layout.h) from HotSpot's VMStructs, once the
 * heap exists (live phase). Not for signal handlers.
 */
#ifndef WASP_JAVA_LAYOUT_LOAD_H
#define WASP_JAVA_LAYOUT_LOAD_H

#include <jni.h>
#include <stddef.h>

/* 0 with wasp_java ready (and the common array classes in the klass set:
 * heap/klass_set.h); -1 with why[] naming what VMStructs lack. */
int wasp_java_layout_load(JNIEnv *env, char *why, size_t len);

#endif
