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
#include <stdint.h>

/* The Java name ("int[]", "java.util.TreeMap$Entry") of what the bytecode
 * at bci of method allocates into out. Returns 1, or 0 when that bytecode
 * allocates nothing or the JVM cannot say. */
int wasp_allocating_class(jvmtiEnv *jvmti, jmethodID method, int bci, char *out, size_t len);

/* The same for the first Java frame of context id (1-based) of a thread's
 * records: the class being allocated where the sample was taken. 1, or 0
 * when that frame allocates nothing (or the context has no such frame). */
struct wasp_records;
int wasp_context_allocating_class(const struct wasp_records *rec, uint32_t id, char *out,
                                  size_t len);

#endif
