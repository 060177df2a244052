/*
 * Objects allocated outside TLABs (see alloc_outside.h).
 *
 * The test: at the callback the object was just allocated by this thread and
 * nothing ran since; an object allocated in a TLAB lies in that thread's
 * current TLAB, [_start, _top) (a refill for it makes it the new TLAB's
 * first object), while one allocated outside lies elsewhere (eden, a
 * humongous region, a medium or large ZGC page). When a collection runs
 * around the address read the place is unknown and the sample is counted as
 * unplaced, not guessed.
 *
 * The weight: HotSpot's sampler picks points of the thread's allocated
 * bytes with exponential gaps of mean `interval` (the overflow of one
 * allocation is carried to the next gap), and reports an object when a
 * point falls in it, once however many do. An object of s bytes is thus
 * sampled with chance p = 1 - e^(-s/interval), and weighing each sample by
 * 1/p creations and s/p bytes is unbiased (Horvitz-Thompson). JFR's
 * `weight` (the bytes since the thread's last sample) is unbiased for the
 * thread's whole stream, not for the outside-TLAB part alone.
 *
 * The cost: `ns` sums the callbacks' CPU time (the thread's CPU clock: a
 * wall clock on a loaded machine counted the time the thread waited for a
 * CPU too, 40-95 us an event on batik at a load of 10 on 2 CPUs).
 *
 * Not async-signal-safe: JVMTI callbacks and the dump.
 */
#include "agent/alloc_outside.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/alloc_event.h"
#include "agent/threads.h"
#include "common/clock.h"
#include "heap/heap_addresses.h"
#include "heap/tlab.h"
#include "heap/tracked.h"

/* Keys kept at most, and their slots: a program's large-array sites are
 * few; past that, samples are counted as `full`, the table does not grow. */
enum { MAX_KEYS = 4096, SLOTS = 2 * MAX_KEYS, MAX_FRAMES = 64 };

typedef struct key {
    wasp_alloc_site site; /* allocations, bytes: estimated creations and bytes */
    double samples, bytes_sq;
    uint64_t hash;
} key;

static struct {
    pthread_mutex_t lock;
    key keys[MAX_KEYS];
    uint32_t nkeys;
    uint32_t slot[SLOTS]; /* key index + 1 */
    wasp_alloc_outside_stats s;
    uint32_t max_frames;
    volatile int on;
} O = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t key_hash(const char *cls, const wasp_rframe *f, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = cls; *c; c++)
        h = (h ^ (uint8_t)*c) * 1099511628211ull;
    for (uint32_t i = 0; i < n; i++)
        h = ((h ^ (uint64_t)(uintptr_t)f[i].method) * 1099511628211ull ^ (uint32_t)f[i].bci) *
            1099511628211ull;
    return h;
}

/* The key for (cls, frames), created when new; NULL when the table is full
 * or out of memory. Call with O.lock held. */
static key *find_key(const char *cls, const wasp_rframe *f, uint32_t n)
{
    uint64_t h = key_hash(cls, f, n);
    uint32_t i = (uint32_t)h & (SLOTS - 1);
    for (; O.slot[i]; i = (i + 1) & (SLOTS - 1)) {
        key *k = &O.keys[O.slot[i] - 1];
        if (k->hash == h && k->site.nframes == n && strcmp(k->site.class_name, cls) == 0 &&
            wasp_rframes_equal(k->site.frames, f, n))
            return k;
    }
    if (O.nkeys == MAX_KEYS)
        return NULL;
    key *k = &O.keys[O.nkeys];
    memset(k, 0, sizeof *k);
    k->site.class_name = strdup(cls);
    k->site.frames = malloc((n ? n : 1) * sizeof *f);
    if (!k->site.class_name || !k->site.frames) {
        free(k->site.class_name);
        free(k->site.frames);
        return NULL;
    }
    if (n)
        memcpy(k->site.frames, f, n * sizeof *f);
    k->site.nframes = n;
    k->hash = h;
    O.slot[i] = ++O.nkeys;
    return k;
}

/* Is the object just allocated by the thread of env outside its TLAB? 1
 * yes, 0 no, -1 unknown. */
static int outside_tlab(JNIEnv *env, jobject object)
{
    uint64_t addr, top, end;
    uint32_t epoch;
    if (!wasp_object_address_now(object, &addr, &epoch))
        return -1;
    addr &= wasp_heap_addresses.address_mask;
    uint64_t start = wasp_tlab_start(env);
    if (!__atomic_load_n(&wasp_tlab.ready, __ATOMIC_ACQUIRE) || addr == 0)
        return -1;
    if (!wasp_tlab_room(env, &top, &end)) /* a full TLAB: its _top is its _end */
        top = *(const volatile uint64_t *)((const char *)env + wasp_tlab.top_from_env);
    return !(start && addr >= start && addr < top);
}

static uint64_t interval_now(void)
{
    return wasp_objects.on ? wasp_alloc_interval_now() : WASP_ALLOC_OUTSIDE_INTERVAL;
}

/* The calling thread's own estimate of its bytes outside TLABs, which its
 * alloc windows need (thread_state.h). */
static void count_for_thread(double bytes)
{
    wasp_thread *t = wasp_thread_self_or_adopted();
    if (t)
        __atomic_add_fetch(&t->alloc_outside_bytes, (uint64_t)bytes, __ATOMIC_RELAXED);
}

void wasp_alloc_outside_on_object(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object,
                                  jclass klass, jlong size)
{
    if (!__atomic_load_n(&O.on, __ATOMIC_ACQUIRE) || size <= 0)
        return;
    uint64_t t0 = wasp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    int out = outside_tlab(env, object);
    wasp_rframe rf[MAX_FRAMES];
    uint32_t n = 0;
    char cls[256] = "?";
    if (out == 1) { /* the JVM calls cost only for the few outside */
        n = wasp_alloc_event_frames(jvmti, thread, rf, O.max_frames);
        wasp_alloc_event_class(klass, cls, sizeof cls);
    }
    uint64_t interval = interval_now();
    double p = -expm1(-(double)size / (double)interval), bytes = (double)size / p;
    if (out == 1)
        count_for_thread(bytes);
    pthread_mutex_lock(&O.lock);
    O.s.events++;
    O.s.unplaced += out < 0;
    key *k = out == 1 ? find_key(cls, rf, n) : NULL;
    if (k) {
        O.s.outside++;
        k->samples += 1;
        k->site.allocations += 1 / p;
        k->site.bytes += bytes;
        k->bytes_sq += bytes * bytes;
    } else if (out == 1) {
        O.s.full++;
    }
    if (interval > O.s.interval)
        O.s.interval = interval;
    O.s.ns += wasp_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
    pthread_mutex_unlock(&O.lock);
}

static void forget(void)
{
    for (uint32_t i = 0; i < O.nkeys; i++) {
        free(O.keys[i].site.class_name);
        free(O.keys[i].site.frames);
    }
    O.nkeys = 0;
    memset(O.slot, 0, sizeof O.slot);
    memset(&O.s, 0, sizeof O.s);
}

wasp_alloc_outside_stats wasp_alloc_outside_take(void (*visit)(const wasp_alloc_site *site,
                                                               double samples, double bytes_sq,
                                                               void *arg),
                                                 void *arg)
{
    pthread_mutex_lock(&O.lock);
    for (uint32_t i = 0; i < O.nkeys; i++)
        visit(&O.keys[i].site, O.keys[i].samples, O.keys[i].bytes_sq, arg);
    wasp_alloc_outside_stats s = O.s;
    forget();
    pthread_mutex_unlock(&O.lock);
    return s;
}

int wasp_alloc_outside_start(jvmtiEnv *jvmti, uint32_t max_frames, char *why, size_t len)
{
    pthread_mutex_lock(&O.lock);
    forget();
    O.max_frames = max_frames < MAX_FRAMES ? max_frames : MAX_FRAMES;
    pthread_mutex_unlock(&O.lock);
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    if (!jvmti || (*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        snprintf(why, len, "this JVM cannot report sampled allocations (JDK 11+ needed)");
        return -1;
    }
    /* The objects analysis's interval, when it runs, serves both. */
    if (!wasp_objects.on &&
        (*jvmti)->SetHeapSamplingInterval(jvmti, WASP_ALLOC_OUTSIDE_INTERVAL) != JVMTI_ERROR_NONE) {
        snprintf(why, len, "the JVM refused a heap sampling interval of %d bytes",
                 WASP_ALLOC_OUTSIDE_INTERVAL);
        return -1;
    }
    __atomic_store_n(&O.on, 1, __ATOMIC_RELEASE);
    if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                           NULL) != JVMTI_ERROR_NONE) {
        __atomic_store_n(&O.on, 0, __ATOMIC_RELEASE);
        snprintf(why, len, "the JVM refused the sampled allocation event");
        return -1;
    }
    return 0;
}

void wasp_alloc_outside_stop(jvmtiEnv *jvmti)
{
    if (!__atomic_exchange_n(&O.on, 0, __ATOMIC_ACQ_REL))
        return;
    if (jvmti && !wasp_objects.on)
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                           NULL);
}
