/*
 * Names of the classes the handler found in sampled objects (heap/klass_set.h)
 * and of their fields: built when sampling stops, from the JVM's own list of
 * loaded classes (JVMTI GetLoadedClasses), each class's Klass* read from its
 * java.lang.Class through Unsafe.getLong, field offsets from
 * Unsafe.objectFieldOffset. A Klass* that matches no loaded class is not
 * named: the handler's candidate is never trusted alone.
 * Not for signal handlers.
 */
#ifndef WASP_JAVA_NAMES_H
#define WASP_JAVA_NAMES_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

/* Names every class of the klass set; 0, or -1 when the JVM cannot be asked.
 * The agent calls it once when sampling stops, before the analyses' stop and
 * the dump, and frees the names after the profile is written (agent.c), so
 * every analysis sees the same names. Calling it again rebuilds them. */
int wasp_java_names_build(jvmtiEnv *jvmti, JNIEnv *env);
/* Whether names were built (and not freed since). */
int wasp_java_names_ready(void);
/* "java.lang.String", "int[]"; NULL for a Klass* that is not a loaded class. */
const char *wasp_java_class_name(uint64_t klass);
/* The instance field at offset of klass's objects ("count"), NULL when none
 * starts there (padding, the header, an array). */
const char *wasp_java_field_name(uint64_t klass, uint32_t offset);
/* Frees the names. (Static fields live in their class's java.lang.Class
 * mirror: a sample there names java.lang.Class, not the static field.) */
void wasp_java_names_free(void);

#endif
