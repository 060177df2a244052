/*
 * The TLAB's place in a JavaThread (heap/tlab.h): Thread::_tlab plus
 * ThreadLocalAllocBuffer::_top, _end and _refill_waste_limit (the field a
 * refill stores once: heap/tlab.h), from VMStructs, relative to the
 * JNIEnv the frame anchor's loader placed (watch/frame_anchor.h). Checked on
 * the calling thread: its TLAB, when it has one, is an ordered range in the
 * Java heap.
 *
 * Not async-signal-safe: the agent's start-up.
 */
#include "agent/tlab_load.h"

#include <stdint.h>
#include <stdio.h>

#include "agent/vmstructs.h"
#include "heap/java_layout.h"
#include "heap/tlab.h"
#include "isa/isa.h"
#include "watch/frame_anchor.h"

int wasp_tlab_load(JNIEnv *env, char *why, size_t len)
{
    uint64_t tlab, top, end, refill;
    if (!__atomic_load_n(&wasp_frame_anchor.ready, __ATOMIC_ACQUIRE)) {
        snprintf(why, len, "the JavaThread's place is not known");
        return -1;
    }
    if (wasp_vm_field("Thread", "_tlab", &tlab, NULL) != 0 ||
        wasp_vm_field("ThreadLocalAllocBuffer", "_top", &top, NULL) != 0 ||
        wasp_vm_field("ThreadLocalAllocBuffer", "_end", &end, NULL) != 0) {
        snprintf(why, len, "VMStructs lacks Thread::_tlab or its _top and _end");
        return -1;
    }
    if (wasp_vm_field("ThreadLocalAllocBuffer", "_refill_waste_limit", &refill, NULL) != 0)
        refill = end; /* JDK 17 and 25 have it; else two traps a refill */
    int64_t thread = wasp_frame_anchor.thread_from_env;
    int64_t top_off = thread + (int64_t)(tlab + top), end_off = thread + (int64_t)(tlab + end);
    uint64_t t = 0, e = 0;
    uint64_t base = (uint64_t)(uintptr_t)env;
    if (wasp_safe_read(base + (uint64_t)top_off, &t, sizeof t) != sizeof t ||
        wasp_safe_read(base + (uint64_t)end_off, &e, sizeof e) != sizeof e) {
        snprintf(why, len, "the JavaThread's TLAB is not readable at the expected place");
        return -1;
    }
    const wasp_java_layout *l = &wasp_java;
    int in_heap = !l->ready || (t >= l->heap_lo && e <= l->heap_hi);
    if (t != 0 && (e < t || (t & 7) || !in_heap)) {
        snprintf(why, len, "the thread's TLAB [0x%llx, 0x%llx) is not a range of the Java heap",
                 (unsigned long long)t, (unsigned long long)e);
        return -1;
    }
    wasp_tlab.top_from_env = top_off;
    wasp_tlab.end_from_env = end_off;
    wasp_tlab.refill_from_env = thread + (int64_t)(tlab + refill);
    __atomic_store_n(&wasp_tlab.ready, 1, __ATOMIC_RELEASE);
    return 0;
}
