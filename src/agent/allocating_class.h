/*
 * Which class an allocation bytecode creates: a sample inside an object the
 * JVM is still clearing (its allocation slow path zeroes the body before it
 * writes the header) has no header to name it by, but its Java frame stands
 * at the `new`, `newarray`, `anewarray` or `multianewarray` that asked for
 * it. Not for signal handlers.
 */
#ifndef WASP_AGENT_ALLOCATING_CLASS_H
#define WASP_AGENT_ALLOCATING_CLASS_H

#include <jvmti.h>
#include <stddef.h>

/* The Java name ("int[]", "java.util.TreeMap$Entry") of what the bytecode
 * at bci of method allocates into out. Returns 1, or 0 when that bytecode
 * allocates nothing or the JVM cannot say. */
int wasp_allocating_class(jvmtiEnv *jvmti, jmethodID method, int bci, char *out, size_t len);

#endif
