/*
 * The TLAB's place in a JavaThread (heap/tlab.h): Thread::_tlab plus
 * ThreadLocalAllocBuffer::_start, _top and _end, and the counts of its
 * refills and allocated bytes (heap/tlab.h), from VMStructs, relative to the
 * JNIEnv the frame anchor's loader placed (watch/frame_anchor.h). Checked on
 * the calling thread: its TLAB, when it has one, is an ordered range in the
 * Java heap.
 *
 * Not async-signal-safe: the agent's start-up.
 */
#include "agent/tlab_load.h"

#include <stdint.h>
#include <stdio.h>

#include "agent/vmflags.h"
#include "agent/vmstructs.h"
#include "heap/java_layout.h"
#include "heap/tlab.h"
#include "isa/isa.h"
#include "watch/frame_anchor.h"

/* ZGC cuts every TLAB to its small-object limit, 1/8 of a small page
 * (ZObjectSizeLimitSmall: 256 KiB of a 2 MiB page), while _desired_size may
 * ask for 2 MiB: counted by _desired_size, the bytes of a window's refills
 * came out 8 times too many on AllocMix (31.9 GB of 4.2). 0 for other
 * collectors, or when VMStructs lack the page size (an int constant on JDK
 * 25, a long one on 17). */
static uint64_t zgc_max_tlab(void)
{
    int zgc = 0;
    int32_t shift = 0;
    if (wasp_vm_get_bool_flag("UseZGC", &zgc) != 0 || !zgc)
        return 0;
    if (wasp_vm_int_constant("ZPageSizeSmallShift", &shift) != 0 || shift <= 0) {
        uint64_t v = 0;
        if (wasp_vm_long_constant("ZPageSizeSmallShift", &v) != 0)
            return 0;
        shift = (int32_t)v;
    }
    return shift >= 16 && shift < 32 ? (1ull << shift) / 8 : 0;
}

/* ThreadLocalAllocBuffer::_allocation_end, the TLAB's real end, relative to
 * the TLAB: with JVMTI's allocation sampling on (-e alloc's outside-TLAB
 * samples, -e objects) _end is a sample point short of it, where the fast
 * path leaves for the sampler and comes back to go on in the same TLAB; the
 * alloc chains ended there (TLAB bytes covered: batik 37% to _end, 50-54%
 * to the real end; AllocMix 1.2-1.5%, 3.0-3.4%). VMStructs do not list it;
 * HotSpot 11 to 25 declare it right after _end, before _desired_size, which
 * they list: taken when _desired_size is two words after _end, else _end
 * serves. */
static uint64_t allocation_end(uint64_t end)
{
    uint64_t desired;
    if (wasp_vm_field("ThreadLocalAllocBuffer", "_desired_size", &desired, NULL) == 0 &&
        desired == end + 16)
        return end + 8;
    return end;
}

int wasp_tlab_load(JNIEnv *env, char *why, size_t len)
{
    uint64_t tlab, start, top, end, refills, desired, allocated;
    if (!__atomic_load_n(&wasp_frame_anchor.ready, __ATOMIC_ACQUIRE)) {
        snprintf(why, len, "the JavaThread's place is not known");
        return -1;
    }
    if (wasp_vm_field("Thread", "_tlab", &tlab, NULL) != 0 ||
        wasp_vm_field("ThreadLocalAllocBuffer", "_start", &start, NULL) != 0 ||
        wasp_vm_field("ThreadLocalAllocBuffer", "_top", &top, NULL) != 0 ||
        wasp_vm_field("ThreadLocalAllocBuffer", "_end", &end, NULL) != 0) {
        snprintf(why, len, "VMStructs lacks Thread::_tlab or its _start, _top and _end");
        return -1;
    }
    int64_t thread = wasp_frame_anchor.thread_from_env;
    int64_t top_off = thread + (int64_t)(tlab + top), end_off = thread + (int64_t)(tlab + end);
    int64_t real_off = thread + (int64_t)(tlab + allocation_end(end));
    uint64_t t = 0, e = 0, r = 0;
    uint64_t base = (uint64_t)(uintptr_t)env;
    if (wasp_safe_read(base + (uint64_t)top_off, &t, sizeof t) != sizeof t ||
        wasp_safe_read(base + (uint64_t)end_off, &e, sizeof e) != sizeof e ||
        wasp_safe_read(base + (uint64_t)real_off, &r, sizeof r) != sizeof r) {
        snprintf(why, len, "the JavaThread's TLAB is not readable at the expected place");
        return -1;
    }
    const wasp_java_layout *l = &wasp_java;
    int in_heap = !l->ready || (t >= l->heap_lo && r <= l->heap_hi);
    if (t != 0 && (e < t || r < e || (t & 7) || !in_heap)) {
        snprintf(why, len, "the thread's TLAB (top 0x%llx, end 0x%llx, real end 0x%llx) is not a "
                 "range of the Java heap",
                 (unsigned long long)t, (unsigned long long)e, (unsigned long long)r);
        return -1;
    }
    wasp_tlab.start_from_env = thread + (int64_t)(tlab + start);
    wasp_tlab.top_from_env = top_off;
    wasp_tlab.end_from_env = real_off;
    /* For the share of a thread's allocation the alloc chains cover
     * (analysis/alloc/coverage.h); JDK 17 and 25 have both. */
    wasp_tlab.has_counts =
        wasp_vm_field("ThreadLocalAllocBuffer", "_number_of_refills", &refills, NULL) == 0 &&
        wasp_vm_field("ThreadLocalAllocBuffer", "_desired_size", &desired, NULL) == 0 &&
        wasp_vm_field("Thread", "_allocated_bytes", &allocated, NULL) == 0;
    if (wasp_tlab.has_counts) {
        wasp_tlab.allocated_from_env = thread + (int64_t)allocated;
        wasp_tlab.refills_from_env = thread + (int64_t)(tlab + refills);
        wasp_tlab.desired_from_env = thread + (int64_t)(tlab + desired);
        wasp_tlab.max_bytes = zgc_max_tlab();
    }
    __atomic_store_n(&wasp_tlab.ready, 1, __ATOMIC_RELEASE);
    return 0;
}
