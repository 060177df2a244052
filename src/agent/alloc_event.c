/*
 * What one SampledObjectAlloc event needs from the JVM (see alloc_event.h).
 *
 * What an event costs: measured with the TSC on ObjectsChurn (JDK 17, 2.4 GB/s
 * of allocation, so every event finds cold caches), wasp's callback took
 * ~13 us per event: GetStackTrace ~7 us for a two-frame stack,
 * GetClassSignature and its conversion ~4 us, the rest interning the site and
 * registering the object. The stack walk is mostly cache misses in the JVM's
 * code metadata: AsyncGetCallTrace, tried from the callback, cost the same.
 * Class names are remembered instead (~1.7 us per event, hits being cache
 * misses too): a small table keyed by the class mirror's address and the GC
 * epoch. Within one epoch no two live objects share an address and a mirror
 * does not move (objects move only while an epoch is odd, design.md "GC moves
 * and frees"), so a hit is the same class; a new epoch misses and asks the
 * JVM again.
 *
 * Not async-signal-safe: JVMTI callback threads.
 */
#include "agent/alloc_event.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "agent/jvm.h"
#include "watch/run_state.h"
#include "heap/heap_addresses.h"

int wasp_object_address_now(jobject object, uint64_t *addr, uint32_t *epoch)
{
    uint32_t before = wasp_gc_epoch();
    *addr = *(volatile uint64_t *)object;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    *epoch = before;
    return !(before & 1) && wasp_gc_epoch() == before;
}

/* ---- frames ----------------------------------------------------------------- */

uint32_t wasp_alloc_event_frames(jvmtiEnv *jvmti, jthread thread, wasp_rframe *out, uint32_t depth)
{
    jvmtiFrameInfo frames[WASP_ALLOC_EVENT_MAX_FRAMES];
    jint n = 0;
    if (depth > WASP_ALLOC_EVENT_MAX_FRAMES)
        depth = WASP_ALLOC_EVENT_MAX_FRAMES;
    if ((*jvmti)->GetStackTrace(jvmti, thread, 0, (jint)depth, frames, &n) != JVMTI_ERROR_NONE)
        return 0;
    for (jint i = 0; i < n; i++)
        out[i] = (wasp_rframe){.bci = (int32_t)frames[i].location, .method = frames[i].method};
    return (uint32_t)n;
}

/* ---- class names ------------------------------------------------------------- */

enum { CLASS_CACHE_BITS = 6, CLASS_NAME_MAX = 256 };

typedef struct class_entry {
    uint64_t mirror; /* address of the class mirror, colour bits stripped; 0: empty */
    uint32_t epoch;
    char name[CLASS_NAME_MAX];
} class_entry;

static struct {
    pthread_mutex_t lock;
    class_entry e[1u << CLASS_CACHE_BITS];
} classes = {.lock = PTHREAD_MUTEX_INITIALIZER};

static class_entry *class_slot(uint64_t mirror)
{
    return &classes.e[(mirror >> 3) * 0x9e3779b97f4a7c15ull >> (64 - CLASS_CACHE_BITS)];
}

void wasp_alloc_event_class(jclass klass, char *out, size_t len)
{
    uint64_t mirror;
    uint32_t epoch;
    int keyed = wasp_object_address_now(klass, &mirror, &epoch);
    mirror &= wasp_heap_addresses.address_mask;
    keyed = keyed && mirror != 0;
    if (keyed) {
        pthread_mutex_lock(&classes.lock);
        const class_entry *c = class_slot(mirror);
        int hit = c->mirror == mirror && c->epoch == epoch;
        if (hit)
            snprintf(out, len, "%s", c->name);
        pthread_mutex_unlock(&classes.lock);
        if (hit)
            return;
    }
    char name[CLASS_NAME_MAX] = "";
    wasp_jvm_class_name(klass, name, sizeof name);
    if (!name[0])
        return; /* the JVM could not say: out stays as it is */
    snprintf(out, len, "%s", name);
    if (keyed && strlen(name) + 1 < sizeof name) { /* not cut short */
        pthread_mutex_lock(&classes.lock);
        class_entry *c = class_slot(mirror);
        c->mirror = mirror;
        c->epoch = epoch;
        memcpy(c->name, name, sizeof name);
        pthread_mutex_unlock(&classes.lock);
    }
}
