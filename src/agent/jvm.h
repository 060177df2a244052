/*
 * What wasp needs from the JVM through JVMTI: jmethodIDs prepared up front
 * (AsyncGetCallTrace needs them), AsyncGetCallTrace itself, names and line
 * numbers of methods, and the names of JVM-generated code.
 * Not for signal handlers.
 */
#ifndef WASP_JVM_H
#define WASP_JVM_H

#include <jvmti.h>
#include <stdint.h>

extern jvmtiEnv *wasp_jvmti;

/* Create jmethodIDs for one class / for every class loaded so far. */
void wasp_jvm_prepare_class(jvmtiEnv *jvmti, jclass klass);
void wasp_jvm_prepare_loaded_classes(jvmtiEnv *jvmti, JNIEnv *env);

/* Remember a block of generated code (stubs, interpreter) by name. */
void wasp_jvm_add_code(const char *name, const void *addr, jint length);
/* Name of the generated code containing pc, NULL when unknown. */
const char *wasp_jvm_code_name(uint64_t pc);

/* The Java name of klass into out: "[D" -> "double[]", "[Ljava/lang/String;"
 * -> "java.lang.String[]". out is left as it is when the JVM cannot say. */
void wasp_jvm_class_name(jclass klass, char *out, size_t len);
/* "pkg.Class.method" and "File.java" for a method; 0 / -1 when unknown.
 * Fills name (always) and file ("" when unknown). */
void wasp_jvm_method_names(jmethodID m, char *name, size_t namelen, char *file, size_t filelen);
/* Source line of bci in m, -1 when unknown, WASP_LINE_NATIVE (profile.h)
 * when m is a native method. */
int wasp_jvm_line(jmethodID m, int bci);

/* A system property, or def. Result is static storage. */
const char *wasp_jvm_property(const char *key, const char *def);
/* A new java.lang.Thread named name, for RunAgentThread; NULL (with any
 * exception cleared) when the JVM would not make one. */
jthread wasp_jvm_new_thread(JNIEnv *env, const char *name);

#endif
