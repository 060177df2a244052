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
#include "watch/frame_anchor.h"

/* For the thread whose JNIEnv is jni_env, interrupted at sp in the VM, in
 * VM transition or in native code: the address within the call in a
 * published compiled method that it will return to (*nm set to that
 * method), or 0 when there is none (the interpreter's call, a stub without
 * a compiled caller in reach, a thread in Java, the layout unknown). */
uint64_t wasp_runtime_caller(const void *jni_env, uint64_t sp, const wasp_code_map *map,
                             const wasp_nmethod **nm);

/* The compiled call that led to the JVM's runtime stub whose frame the
 * anchor a describes (its pc, or the return address below its sp when it
 * has none, in no published method and not in the interpreter): the
 * return address into the method (ret) and the method's sp and fp at the
 * call, as an anchor at that call would hold them. Found by the stub's
 * frame pointer (C1's runtime blobs build a frame and save every register
 * below it, past the reach of a scan) or among the first slots above the
 * anchor's sp (C2's stubs keep a frame of a few words). 1 when found. */
typedef struct wasp_stub_call {
    uint64_t ret, sp, fp;
    const wasp_nmethod *nm;
} wasp_stub_call;
int wasp_stub_caller(const wasp_anchor_view *a, const wasp_code_map *map, wasp_stub_call *c);

#endif
