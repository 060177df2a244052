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

struct wasp_profile;
/* When the last load failed, the analysis named found no Java objects: say
 * so in the profile (meta "blind.ANALYSIS", a sentence with the reason),
 * which the report shows as a warning (text, HTML, JSON `warnings`). */
void wasp_java_layout_blind_meta(struct wasp_profile *p, const char *analysis);

#endif
