/*
 * Names of the classes the handler found in sampled objects (heap/klass_set.h)
 * and of their fields: built when sampling stops, from the JVM's own list of
 * loaded classes (JVMTI GetLoadedClasses), each class's Klass* read from its
 * java.lang.Class through Unsafe.getLong, field offsets from
 * Unsafe.objectFieldOffset, field widths from their JVMTI signatures. A
 * Klass* that matches no loaded class is not named: the handler's candidate
 * is never trusted alone.
 * Not for signal handlers.
 */
#ifndef WASP_JAVA_NAMES_H
#define WASP_JAVA_NAMES_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

#include "heap/java_field.h"

/* Names every class of the klass set; 0, or -1 when the JVM cannot be asked.
 * The agent calls it once when sampling stops, before the analyses' stop and
 * the dump, and frees the names after the profile is written (agent.c), so
 * every analysis sees the same names. Calling it again rebuilds them. */
int wasp_java_names_build(jvmtiEnv *jvmti, JNIEnv *env);
/* Whether names were built (and not freed since). */
int wasp_java_names_ready(void);
/* "java.lang.String", "int[]"; NULL for a Klass* that is not a loaded class. */
const char *wasp_java_class_name(uint64_t klass);
/* The instance fields of klass's objects (its superclasses' too) with their
 * offsets, widths and kinds, sorted by offset; *n = 0 and NULL for an array
 * or a Klass* that is not a loaded class. */
const wasp_java_field *wasp_java_fields(uint64_t klass, uint32_t *n);
/* Klass's own static fields with their offsets in its java.lang.Class
 * mirror (Unsafe.staticFieldOffset), sorted by offset; as above otherwise. */
const wasp_java_field *wasp_java_static_fields(uint64_t klass, uint32_t *n);
/* The bytes before an array's first element for elements of 1 << i bytes
 * (i = 0..3: byte[], short[], int[], long[]; float[] and double[] as their
 * sizes), from those array classes' layout helpers: 16 with compressed class
 * pointers, 20 or 24 without (the JDK decides whether elements are aligned to
 * 8 bytes or their size), 12 or 16 with compact object headers. 0, or -1
 * when the JVM cannot be asked (header[i] 0 for a class not read). */
int wasp_java_array_headers(JNIEnv *env, uint32_t header[4]);
/* The Klass* of each class named (JNI spelling: "java/lang/Class", "[I") in
 * klass[i], 0 for one that cannot be read; returns how many were read. */
size_t wasp_java_class_klasses(JNIEnv *env, const char *const *names, size_t n, uint64_t *klass);
/* Frees the names. */
void wasp_java_names_free(void);

#endif
