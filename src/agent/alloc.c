/*
 * Allocation tracking for the objects analysis (see alloc.h).
 *
 * JVMTI SampledObjectAlloc reports about one allocation per `alloc-interval`
 * bytes (no bytecode rewriting). Each reported object of at least `min-size`
 * bytes gets an allocation site (class + allocation context), an entry in the
 * address->object map the signal handler reads, and a JNI weak reference.
 * A smaller one is not tracked, but its allocation context is counted in an
 * untracked site of its class: the samples that hit small objects are
 * attributed to their class by its header, and these say where objects of
 * that class are allocated (at most MAX_UNTRACKED_SITES such sites).
 *
 * Why this stays correct when a collector moves or frees objects, under any
 * collector: wasp never tracks copies (DJXPerf's memmove interception misses
 * collectors that copy otherwise); it asks the JVM. Every GC bumps the GC
 * epoch; map entries carry the epoch their address belongs to, and the handler
 * only accepts entries of the current epoch, so no sample is credited through
 * an address from before a collection. After each collection the keeper
 * thread resolves every weak reference again: a cleared one is a freed object
 * (dropped, so freed memory is not credited to it), a live one yields the
 * object's current address. Samples taken between the end of a GC and the
 * rebuild are counted as `objects.stale`, not guessed.
 *
 * Why the sampling interval adapts: each SampledObjectAlloc event costs the
 * allocating thread about 4-6 us inside HotSpot (the slow allocation path, a
 * state transition, JNI handles) before wasp does anything. A thread
 * allocating 2.4 GB/s at the default 256 KiB interval takes ~10000 events a
 * second, 6-9% of its time. The keeper therefore measures the event rate
 * every 100 ms and, above `alloc-rate` events per second, multiplies the
 * interval by the power of two that brings the rate under the cap (and halves
 * it back, not below `alloc-interval`, once the rate falls under a quarter of
 * the cap). The profile records the largest interval used.
 *
 * Not async-signal-safe: JVMTI callbacks and the keeper thread.
 */
#include "agent/alloc.h"
#include "heap/site_kind.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/alloc_event.h"
#include "agent/alloc_outside.h"
#include "agent/java_names.h"
#include "agent/jvm.h"
#include "agent/log.h"
#include "agent/probe.h"
#include "agent/threads.h"
#include "common/clock.h"
#include "heap/heap_addresses.h"
#include "heap/humongous.h"
#include "heap/objmap.h"
#include "watch/handler.h"
#include "watch/handler_part.h"
#include "watch/run_state.h"
#include "heap/tracked.h"

#define KEEPER_NAME "wasp-objects"
/* When the keeper publishes new objects to the map: after PUBLISH_BATCH
 * inserts (the handler's lookups scan unpublished ones), and every
 * PUBLISH_MS anyway; every tick_ms when an analysis asked for a tick
 * (wasp_alloc_on_tick: one that must see short-lived objects alive). A fixed
 * 5 ms cadence cost about 0.8% of a CPU in wakeups on ObjectsChurn (perf),
 * for nothing when little is allocated. */
enum { PUBLISH_BATCH = 32, PUBLISH_MS = 100 };
/* Untracked sites kept at most: a program's allocation contexts of small
 * objects are many more than its large ones' (each site holds its frames). */
enum { MAX_UNTRACKED_SITES = 1u << 16 };
/* A site's kind, in its key: tracked allocations, objects found at attach,
 * sampled objects too small to track. */
enum { SITE_TRACKED = 0, SITE_BEFORE_ATTACH = 1, SITE_UNTRACKED = 2 };

typedef wasp_alloc_object tracked;

static struct {
    pthread_mutex_t lock;   /* sites, site index, tracked list */
    wasp_alloc_site *sites;
    uint32_t nsites, cap_sites;
    uint32_t *index;        /* open addressing over sites, cap_index slots (id + 1) */
    uint32_t cap_index;
    tracked *objs;
    size_t nobjs, cap_objs;
    uint32_t min_size, max_frames;
    wasp_alloc_tick_fn tick; /* an analysis's work on the keeper (atomic) */
    uint32_t tick_ms;        /* ... every tick_ms at the most */
    uint64_t interval, base_interval, max_interval_used; /* adaptive sampling */
    uint32_t rate_cap;          /* events per second; 0: no cap */
    uint64_t events;            /* SampledObjectAlloc events so far (atomic) */
    uint64_t events_written;    /* ... of which an earlier snapshot's profile holds */
    uint64_t window_events;     /* events at the start of the rate window */
    long long window_start_ms;
    uint32_t unpublished;   /* inserts since the keeper last published (T.lock) */
    uint32_t nuntracked;    /* untracked sites (T.lock) */
    uint64_t untracked_full; /* small objects not counted: MAX_UNTRACKED_SITES reached */
    volatile int count_untracked; /* an analysis takes them (wasp_alloc_take_untracked) */
    /* The keeper's wake-ups. Semaphores, not a JVMTI raw monitor: the GC
     * finish event runs on the VM thread inside a safepoint, and a Java
     * thread that holds a raw monitor stops for that safepoint inside the
     * monitor functions (their entry into the VM), so the VM thread would wait
     * for it forever (seen with ZGC: every thread stopped, the VM thread in
     * RawMonitorEnter). sem_post takes no lock anyone can hold. */
    sem_t wake, stopped;
    int sems_ready;
    volatile int running, stopping, rebuild_wanted, publish_wanted;
} T = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- sites ---------------------------------------------------------------- */

static int site_kind(const wasp_alloc_site *s)
{
    return s->untracked ? SITE_UNTRACKED : s->before_attach ? SITE_BEFORE_ATTACH : SITE_TRACKED;
}

static uint64_t site_hash(const char *cls, const wasp_rframe *f, uint32_t n, int kind)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
    for (const char *c = cls; *c; c++)
        h = (h ^ (uint8_t)*c) * 1099511628211ull;
    for (uint32_t i = 0; i < n; i++) {
        h = (h ^ (uint64_t)(uintptr_t)f[i].method) * 1099511628211ull;
        h = (h ^ (uint32_t)f[i].bci) * 1099511628211ull;
    }
    return h;
}

static int site_equal(const wasp_alloc_site *s, const char *cls, const wasp_rframe *f, uint32_t n,
                      int kind)
{
    return s->nframes == n && site_kind(s) == kind && strcmp(s->class_name, cls) == 0 &&
           wasp_rframes_equal(s->frames, f, n);
}

static int grow_index(void)
{
    uint32_t cap = T.cap_index ? T.cap_index * 2 : 1024;
    uint32_t *idx = calloc(cap, sizeof *idx);
    if (!idx)
        return -1;
    for (uint32_t id = 0; id < T.nsites; id++) {
        const wasp_alloc_site *s = &T.sites[id];
        uint32_t i = (uint32_t)site_hash(s->class_name, s->frames, s->nframes, site_kind(s)) &
                     (cap - 1);
        while (idx[i])
            i = (i + 1) & (cap - 1);
        idx[i] = id + 1;
    }
    free(T.index);
    T.index = idx;
    T.cap_index = cap;
    return 0;
}

/* The site id for (class, frames, kind), created when new; UINT32_MAX on
 * OOM, or when an untracked one would pass MAX_UNTRACKED_SITES. Call with
 * T.lock held. */
static uint32_t intern_site(const char *cls, const wasp_rframe *f, uint32_t n, int kind)
{
    if ((T.nsites + 1) * 2 > T.cap_index && grow_index() != 0)
        return UINT32_MAX;
    uint32_t i = (uint32_t)site_hash(cls, f, n, kind) & (T.cap_index - 1);
    for (; T.index[i]; i = (i + 1) & (T.cap_index - 1))
        if (site_equal(&T.sites[T.index[i] - 1], cls, f, n, kind))
            return T.index[i] - 1;
    if (kind == SITE_UNTRACKED && T.nuntracked >= MAX_UNTRACKED_SITES)
        return UINT32_MAX;
    if (T.nsites == T.cap_sites) {
        uint32_t cap = T.cap_sites ? T.cap_sites * 2 : 256;
        wasp_alloc_site *s = realloc(T.sites, cap * sizeof *s);
        if (!s)
            return UINT32_MAX;
        T.sites = s;
        T.cap_sites = cap;
    }
    wasp_alloc_site *s = &T.sites[T.nsites];
    memset(s, 0, sizeof *s);
    s->class_name = strdup(cls);
    s->frames = malloc((n ? n : 1) * sizeof *f);
    if (!s->class_name || !s->frames) {
        free(s->class_name);
        free(s->frames);
        return UINT32_MAX;
    }
    if (n)
        memcpy(s->frames, f, n * sizeof *f);
    s->nframes = n;
    s->before_attach = kind == SITE_BEFORE_ATTACH;
    s->untracked = kind == SITE_UNTRACKED;
    T.nuntracked += kind == SITE_UNTRACKED;
    wasp_site_kind_set(T.nsites, cls); /* before any object of it is in the map */
    T.index[i] = ++T.nsites;
    return T.nsites - 1;
}

void wasp_alloc_each_site(void (*visit)(uint32_t id, const wasp_alloc_site *site, void *arg),
                          void *arg)
{
    pthread_mutex_lock(&T.lock);
    for (uint32_t id = 0; id < T.nsites; id++)
        visit(id, &T.sites[id], arg);
    pthread_mutex_unlock(&T.lock);
}

void wasp_alloc_take_sites(void (*visit)(uint32_t id, const wasp_alloc_site *site, void *arg),
                           void *arg, uint64_t *events)
{
    pthread_mutex_lock(&T.lock);
    for (uint32_t id = 0; id < T.nsites; id++) {
        if (T.sites[id].untracked)
            continue;
        visit(id, &T.sites[id], arg);
        T.sites[id].allocations = T.sites[id].bytes = 0;
    }
    uint64_t all = __atomic_load_n(&T.events, __ATOMIC_RELAXED);
    *events = all - T.events_written;
    T.events_written = all;
    pthread_mutex_unlock(&T.lock);
}

void wasp_alloc_count_untracked(void)
{
    T.count_untracked = 1;
}

uint64_t wasp_alloc_take_untracked(void (*visit)(const wasp_alloc_site *site, void *arg), void *arg)
{
    pthread_mutex_lock(&T.lock);
    for (uint32_t id = 0; id < T.nsites; id++) {
        wasp_alloc_site *s = &T.sites[id];
        if (!s->untracked || !(s->allocations > 0))
            continue;
        visit(s, arg);
        s->allocations = s->bytes = 0;
    }
    uint64_t full = T.untracked_full;
    T.untracked_full = 0;
    pthread_mutex_unlock(&T.lock);
    return full;
}

int wasp_alloc_site_get(uint32_t id, wasp_alloc_site *out)
{
    pthread_mutex_lock(&T.lock);
    int ok = id < T.nsites;
    if (ok)
        *out = T.sites[id];
    pthread_mutex_unlock(&T.lock);
    return ok ? 0 : -1;
}

/* ---- the allocation event --------------------------------------------------- */

/* Append o to the tracked objects. */
static int append_tracked(tracked o)
{
    if (T.nobjs == T.cap_objs) {
        size_t cap = T.cap_objs ? T.cap_objs * 2 : 4096;
        tracked *grown = realloc(T.objs, cap * sizeof *grown);
        if (!grown)
            return -1;
        T.objs = grown;
        T.cap_objs = cap;
    }
    T.objs[T.nobjs++] = o;
    return 0;
}

static int track(JNIEnv *env, jobject object, uint32_t site, uint32_t size)
{
    jweak ref = (*env)->NewWeakGlobalRef(env, object);
    if (!ref)
        return -1;
    if (append_tracked((tracked){.ref = ref, .site = site, .size = size}) != 0) {
        (*env)->DeleteWeakGlobalRef(env, ref);
        return -1;
    }
    return 0;
}

/* Track a G1 humongous object by its address (heap/humongous.h). */
static int track_by_address(uint64_t addr, uint64_t klass, uint32_t site, uint32_t size)
{
    return append_tracked((tracked){.addr = addr, .klass = klass, .site = site, .size = size});
}

/* Register object under site: weak reference (a G1 humongous object: its
 * address), counts, map entry. Call with T.lock held. When the object's
 * address cannot be read safely (a collection around the read), it is still
 * tracked by its weak reference and the next rebuild of the map places it.
 * Returns 1 with *addr and *epoch when it is in the map now, 0 when only
 * tracked, -1 when not tracked. */
static int register_object(JNIEnv *env, jobject object, uint32_t site, uint32_t size,
                           uint64_t *addr, uint32_t *epoch)
{
    if (site == UINT32_MAX)
        return -1;
    int placed = wasp_object_address_now(object, addr, epoch);
    uint64_t klass = placed ? wasp_humongous_klass(*addr, size) : 0;
    if ((klass ? track_by_address(*addr, klass, site, size) : track(env, object, site, size)) != 0)
        return -1;
    T.sites[site].allocations += 1;
    T.sites[site].bytes += (double)size;
    if (!placed ||
        wasp_objmap_insert(wasp_objects.objmap, *addr & wasp_heap_addresses.address_mask, size, site,
                           *epoch) != 0)
        return 0;
    T.unpublished++;
    return 1;
}

/* Ask the keeper to publish now. */
static void wake_keeper_to_publish(void)
{
    __atomic_store_n(&T.publish_wanted, 1, __ATOMIC_RELEASE);
    sem_post(&T.wake);
}

/* Wait on sem for at most ms milliseconds. */
static void wait_ms(sem_t *sem, long ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (sem_clockwait(sem, CLOCK_MONOTONIC, &until) != 0 && errno == EINTR)
        ;
}

/* A sampled object too small to track: where its class is allocated. */
static void count_untracked(const char *cls, const wasp_rframe *rf, uint32_t n, uint32_t size)
{
    pthread_mutex_lock(&T.lock);
    uint32_t site = intern_site(cls, rf, n, SITE_UNTRACKED);
    if (site == UINT32_MAX) {
        T.untracked_full++;
    } else {
        T.sites[site].allocations += 1;
        T.sites[site].bytes += (double)size;
    }
    pthread_mutex_unlock(&T.lock);
}

void JNICALL wasp_alloc_on_object(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object,
                                  jclass klass, jlong size)
{
    wasp_alloc_outside_on_object(jvmti, env, thread, object, klass, size); /* -e alloc's */
    __atomic_fetch_add(&T.events, 1, __ATOMIC_RELAXED);
    if (!T.running || size < 0 || size > WASP_ALLOC_MAX_SIZE ||
        (size < (jlong)T.min_size && !T.count_untracked))
        return;
    wasp_rframe rf[WASP_ALLOC_EVENT_MAX_FRAMES];
    uint32_t n = wasp_alloc_event_frames(jvmti, thread, rf, T.max_frames);
    char cls[256] = "?";
    wasp_alloc_event_class(klass, cls, sizeof cls);
    if (size < (jlong)T.min_size) {
        count_untracked(cls, rf, n, (uint32_t)size);
        return;
    }

    uint64_t addr;
    uint32_t epoch;
    pthread_mutex_lock(&T.lock);
    uint32_t site = intern_site(cls, rf, n, 0);
    int placed = register_object(env, object, site, (uint32_t)size, &addr, &epoch);
    int publish = T.unpublished == PUBLISH_BATCH; /* once per batch */
    pthread_mutex_unlock(&T.lock);
    if (publish)
        wake_keeper_to_publish();
    /* The object is new and this is its thread: analyses may watch it from
     * its first write (replicas compare short-lived objects so). A thread
     * that ran before an attach is adopted, not registered at its start. */
    if (placed == 1)
        wasp_handler_object_born(wasp_thread_self_or_adopted(),
                                 &(wasp_birth){.addr = addr, .size = (uint32_t)size, .site = site,
                                               .epoch = epoch, .frames = rf, .nframes = n});
}

int wasp_alloc_track_existing(JNIEnv *env, jobject object, const char *class_name, uint32_t size)
{
    if (!T.running || size < T.min_size || size > WASP_ALLOC_MAX_SIZE)
        return -1;
    pthread_mutex_lock(&T.lock);
    uint64_t addr;
    uint32_t epoch;
    int rc = register_object(env, object, intern_site(class_name, NULL, 0, SITE_BEFORE_ATTACH), size,
                             &addr, &epoch);
    pthread_mutex_unlock(&T.lock);
    return rc < 0 ? -1 : 0;
}

uint32_t wasp_alloc_min_size(void)
{
    return T.min_size;
}

/* ---- the keeper: publishes new entries, rebuilds after collections ---------- */

/* Where a weakly referenced object is now: 1 with *addr, 0 when it was
 * collected.
 *
 * Resolving a weak reference through JNI (NewLocalRef) is a strong read: while
 * G1, ZGC or Shenandoah mark concurrently, it marks the object and everything
 * it references live for that cycle. Resolving every tracked object after each
 * collection kept whole HashMap tables alive through a marking cycle (the
 * remark pause went from 1 ms to 140 ms on bench/BenchMix). Where objects move
 * only inside pauses (Serial, Parallel, G1), the handle's slot is read
 * directly instead: HotSpot tags a weak handle with bit 0 and the slot holds
 * the object's address, updated by the collector when it moves the object and
 * cleared when it frees it. A read that races a pause is discarded by the
 * caller's epoch check. Collectors that move objects concurrently need their
 * load barrier, so they keep the JNI path. */
static int current_address(JNIEnv *env, jweak ref, uint64_t *addr)
{
    uintptr_t handle = (uintptr_t)ref;
    if (!wasp_heap_addresses.moves_concurrently && (handle & 3) == 1) {
        uint64_t oop = __atomic_load_n((const uint64_t *)(handle - 1), __ATOMIC_RELAXED);
        *addr = oop;
        return oop != 0;
    }
    jobject local = (*env)->NewLocalRef(env, ref);
    if (!local)
        return 0;
    *addr = *(volatile uint64_t *)local;
    (*env)->DeleteLocalRef(env, local);
    return 1;
}

/* Resolve every weak reference; drop the dead. Returns the live objects'
 * entries (caller frees) or NULL. Call with T.lock held. */
static wasp_obj *resolve_all(JNIEnv *env, size_t *count)
{
    wasp_obj *out = malloc((T.nobjs ? T.nobjs : 1) * sizeof *out);
    if (!out)
        return NULL;
    size_t live = 0;
    for (size_t i = 0; i < T.nobjs; i++) {
        uint64_t addr = T.objs[i].addr;
        if (!T.objs[i].ref) {
            /* by address: still there, or collected */
            if (wasp_humongous_klass(addr, T.objs[i].size) != T.objs[i].klass)
                continue;
        } else if (!current_address(env, T.objs[i].ref, &addr)) {
            /* collected: its memory is no longer the site's */
            (*env)->DeleteWeakGlobalRef(env, T.objs[i].ref);
            continue;
        }
        out[live] = (wasp_obj){addr & wasp_heap_addresses.address_mask, (uint32_t)T.objs[i].size,
                               T.objs[i].site};
        T.objs[live++] = T.objs[i];
    }
    T.nobjs = live;
    *count = live;
    return out;
}

static void rebuild(JNIEnv *env)
{
    for (;;) {
        uint32_t epoch = wasp_gc_epoch();
        if (epoch & 1)
            return; /* a collection is running; its finish wakes us again */
        pthread_mutex_lock(&T.lock);
        size_t n = 0;
        wasp_obj *objs = resolve_all(env, &n);
        int ok = objs && wasp_objmap_replace(wasp_objects.objmap, objs, n, epoch) == 0;
        pthread_mutex_unlock(&T.lock);
        free(objs);
        if (!ok)
            return;
        /* A collection during the walk makes the addresses stale: again. */
        if (wasp_gc_epoch() == epoch) {
            __atomic_store_n(&wasp_objects.objmap_epoch, epoch, __ATOMIC_RELEASE);
            return;
        }
    }
}

enum { RATE_WINDOW_MS = 100, MAX_INTERVAL = 1 << 30 };

/* Keep the event rate under the cap (see the top of this file). */
static void adapt_interval(jvmtiEnv *jvmti)
{
    long long now = wasp_mono_ms(), dt = now - T.window_start_ms;
    if (!T.rate_cap || !T.base_interval || dt < RATE_WINDOW_MS)
        return;
    uint64_t events = __atomic_load_n(&T.events, __ATOMIC_RELAXED);
    double rate = (double)(events - T.window_events) * 1000.0 / (double)dt;
    T.window_events = events;
    T.window_start_ms = now;
    uint64_t next = T.interval;
    if (rate > T.rate_cap) /* straight to the interval that meets the cap */
        while (next < MAX_INTERVAL && rate * (double)T.interval / (double)next > T.rate_cap)
            next *= 2;
    else if (rate < T.rate_cap / 4.0 && T.interval > T.base_interval)
        next = T.interval / 2 > T.base_interval ? T.interval / 2 : T.base_interval;
    if (next == T.interval ||
        (*jvmti)->SetHeapSamplingInterval(jvmti, (jint)next) != JVMTI_ERROR_NONE)
        return;
    if (next > T.max_interval_used) {
        if (T.max_interval_used == T.base_interval)
            wasp_log("objects: %.0f allocation events/s, above alloc-rate=%u: sampling fewer "
                     "allocations (one per %llu bytes, adjusted as the rate changes)",
                     rate, (unsigned)T.rate_cap, (unsigned long long)next);
        T.max_interval_used = next;
    }
    __atomic_store_n(&T.interval, next, __ATOMIC_RELAXED);
}

uint64_t wasp_alloc_max_interval(void)
{
    return T.max_interval_used;
}

uint64_t wasp_alloc_interval_now(void)
{
    return __atomic_load_n(&T.interval, __ATOMIC_RELAXED);
}

uint64_t wasp_alloc_events(void)
{
    return __atomic_load_n(&T.events, __ATOMIC_RELAXED);
}

static void JNICALL keeper(jvmtiEnv *jvmti, JNIEnv *env, void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&T.stopping, __ATOMIC_ACQUIRE)) {
        wasp_alloc_tick_fn tick = __atomic_load_n(&T.tick, __ATOMIC_ACQUIRE);
        if (!T.rebuild_wanted && !T.publish_wanted)
            wait_ms(&T.wake, tick ? (long)T.tick_ms : PUBLISH_MS);
        while (sem_trywait(&T.wake) == 0) /* one pass serves every wake-up so far */
            ;
        int again = __atomic_exchange_n(&T.rebuild_wanted, 0, __ATOMIC_ACQ_REL);
        __atomic_store_n(&T.publish_wanted, 0, __ATOMIC_RELEASE);
        if (__atomic_load_n(&T.stopping, __ATOMIC_ACQUIRE))
            break;
        if (again || __atomic_load_n(&wasp_objects.objmap_epoch, __ATOMIC_ACQUIRE) !=
                         wasp_gc_epoch())
            rebuild(env);
        pthread_mutex_lock(&T.lock);
        if (wasp_objmap_publish(wasp_objects.objmap) == 0)
            T.unpublished = 0;
        pthread_mutex_unlock(&T.lock);
        if ((tick = __atomic_load_n(&T.tick, __ATOMIC_ACQUIRE)))
            tick(env);
        adapt_interval(jvmti);
    }
    __atomic_store_n(&T.running, 0, __ATOMIC_RELEASE);
    sem_post(&T.stopped);
}

void wasp_alloc_on_gc_finish(jvmtiEnv *jvmti)
{
    (void)jvmti;
    if (!T.sems_ready)
        return;
    /* On the VM thread, in a safepoint: no lock or monitor here (see T). */
    __atomic_store_n(&T.rebuild_wanted, 1, __ATOMIC_RELEASE);
    sem_post(&T.wake);
}

int wasp_alloc_is_keeper(const char *thread_name)
{
    return thread_name && strcmp(thread_name, KEEPER_NAME) == 0;
}

/* ---- lifecycle -------------------------------------------------------------- */

int wasp_alloc_init(jvmtiEnv *jvmti, const wasp_options *o, char *why, size_t len)
{
    wasp_objects.on = 0;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        snprintf(why, len, "this JVM cannot report sampled allocations (JDK 11+ needed)");
        return -1;
    }
    if ((*jvmti)->SetHeapSamplingInterval(jvmti, (jint)o->alloc_interval) != JVMTI_ERROR_NONE) {
        snprintf(why, len, "the JVM refused alloc-interval=%u", (unsigned)o->alloc_interval);
        return -1;
    }
    T.min_size = o->min_size;
    T.interval = T.base_interval = T.max_interval_used = o->alloc_interval;
    T.rate_cap = o->alloc_rate;
    T.window_events = __atomic_load_n(&T.events, __ATOMIC_RELAXED);
    T.window_start_ms = wasp_mono_ms();
    T.max_frames = o->max_frames;
    if (!wasp_objects.objmap && !(wasp_objects.objmap = wasp_objmap_new())) {
        snprintf(why, len, "out of memory for the object map");
        return -1;
    }
    if (!T.sems_ready) {
        if (sem_init(&T.wake, 0, 0) != 0 || sem_init(&T.stopped, 0, 0) != 0) {
            snprintf(why, len, "cannot create the object-map thread's semaphores");
            return -1;
        }
        T.sems_ready = 1;
    }
    wasp_objects.numa_nodes = wasp_probe_numa_nodes();
    wasp_objects.on = 1;
    return 0;
}

static int start_keeper(jvmtiEnv *jvmti, JNIEnv *env, char *why, size_t len)
{
    jthread thread = wasp_jvm_new_thread(env, KEEPER_NAME);
    if (!thread) {
        snprintf(why, len, "cannot create the object-map thread");
        return -1;
    }
    /* Accesses are checked against arrays' elements past this JVM's array
     * headers (heap/site_kind.h). */
    uint32_t headers[4];
    if (wasp_java_array_headers(env, headers) != 0)
        wasp_log("cannot read every array class's header size: 16 bytes assumed where unread");
    wasp_site_kind_set_headers(headers);
    /* The map describes the heap from now on. */
    __atomic_store_n(&wasp_objects.objmap_epoch, wasp_gc_epoch(), __ATOMIC_RELEASE);
    while (sem_trywait(&T.stopped) == 0) /* an earlier session's */
        ;
    T.stopping = 0;
    T.running = 1;
    if ((*jvmti)->RunAgentThread(jvmti, thread, keeper, NULL, JVMTI_THREAD_NORM_PRIORITY) !=
        JVMTI_ERROR_NONE) {
        T.running = 0;
        snprintf(why, len, "cannot start the object-map thread");
        return -1;
    }
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    return 0;
}

int wasp_alloc_start(jvmtiEnv *jvmti, JNIEnv *env, char *why, size_t len)
{
    if (!wasp_objects.on)
        return 0;
    if (start_keeper(jvmti, env, why, len) == 0)
        return 0;
    /* Sampling may run already: the handler finds no tracked object. */
    wasp_objects.on = 0;
    return -1;
}

void wasp_alloc_stop(jvmtiEnv *jvmti)
{
    if (!wasp_objects.on)
        return;
    wasp_objects.on = 0;
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                       NULL);
    __atomic_store_n(&T.stopping, 1, __ATOMIC_RELEASE);
    sem_post(&T.wake);
    /* Bounded: the keeper wakes for the post. At VM death agent threads may
     * already be gone, so do not wait long. */
    if (__atomic_load_n(&T.running, __ATOMIC_ACQUIRE))
        wait_ms(&T.stopped, 200);
}

void wasp_alloc_forget(JNIEnv *env)
{
    if (__atomic_load_n(&T.running, __ATOMIC_ACQUIRE)) {
        wasp_log("objects: the object-map thread has not ended yet; its sites stay until the "
                 "next session starts");
        return;
    }
    pthread_mutex_lock(&T.lock);
    for (size_t i = 0; env && i < T.nobjs; i++)
        if (T.objs[i].ref)
            (*env)->DeleteWeakGlobalRef(env, T.objs[i].ref);
    T.nobjs = 0;
    for (uint32_t id = 0; id < T.nsites; id++) {
        free(T.sites[id].class_name);
        free(T.sites[id].frames);
    }
    T.nsites = 0;
    T.nuntracked = 0;
    T.untracked_full = 0;
    T.count_untracked = 0; /* until the next session's analysis asks again */
    if (T.index)
        memset(T.index, 0, T.cap_index * sizeof *T.index);
    T.unpublished = 0;
    __atomic_store_n(&T.events, 0, __ATOMIC_RELAXED);
    T.events_written = 0;
    pthread_mutex_unlock(&T.lock);
    /* Site ids start again from 0: no entry of this session may be found
     * under the next one's sites. A new epoch voids every entry, the empty
     * replacement frees them. */
    wasp_gc_epoch_bump();
    wasp_gc_epoch_bump();
    if (wasp_objects.objmap)
        wasp_objmap_replace(wasp_objects.objmap, NULL, 0, wasp_gc_epoch());
}

/* ---- what analyses do with the tracked objects ------------------------------- */

void wasp_alloc_on_tick(wasp_alloc_tick_fn fn, uint32_t ms)
{
    T.tick_ms = ms ? ms : PUBLISH_MS;
    __atomic_store_n(&T.tick, fn, __ATOMIC_RELEASE);
}

uint32_t wasp_alloc_site_count(void)
{
    pthread_mutex_lock(&T.lock);
    uint32_t n = T.nsites;
    pthread_mutex_unlock(&T.lock);
    return n;
}

void wasp_alloc_each_object(uint32_t site, int (*visit)(wasp_alloc_object *o, void *arg),
                            void *arg)
{
    pthread_mutex_lock(&T.lock);
    for (size_t i = T.nobjs; i-- > 0;)
        if (T.objs[i].site == site && visit(&T.objs[i], arg))
            break;
    pthread_mutex_unlock(&T.lock);
}
