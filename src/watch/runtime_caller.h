/*
 * Where a CPU sample outside compiled Java code was called from (issue 40):
 * a thread that compiled code called into the JVM's runtime (a new TLAB, an
 * allocation slow path, a contended monitor) or into a native method runs
 * with its frame anchor set to its last Java frame. The summary charges such
 * a sample to the compiled line that made the call, whose cost it is; a
 * sample of the interpreter, of a leaf runtime call (no anchor) or of a
 * thread outside Java stays "not compiled".
 *
 * ASYNC-SIGNAL-SAFE (see runtime_caller.c).
 */
#ifndef WASP_RUNTIME_CALLER_H
#define WASP_RUNTIME_CALLER_H

#include <stdint.h>

#include "watch/code_map.h"

/* For the thread whose JNIEnv is jni_env, interrupted at sp in the VM, in
 * VM transition or in native code: the address within the call in a
 * published compiled method that it will return to (*nm set to that
 * method), or 0 when there is none (the interpreter's call, a stub without
 * a compiled caller in reach, a thread in Java, the layout unknown). */
uint64_t wasp_runtime_caller(const void *jni_env, uint64_t sp, const wasp_code_map *map,
                             const wasp_nmethod **nm);

#endif
