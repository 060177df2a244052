/*
 * Profiled threads (see threads.h). Runs in JVMTI callbacks, never in a
 * signal handler. Thread state is published to the handler through the
 * registry in wasp_rt with release stores, and never freed while the handler
 * could still see it (only after quiescing, when the profile is written).
 */
#include "agent/threads.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/dump.h"
#include "agent/log.h"
#include "watch/handler.h"
#include "watch/runtime.h"
#include "watch/slots.h"

static pthread_key_t self_key;
/* Serialises thread end (which frees a thread's state) with the end of the
 * run (which walks every thread's state). Never taken in a handler. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t seed;
static int warned_slots, warned_source, warned_full;

void wasp_threads_init(const wasp_options *o)
{
    pthread_key_create(&self_key, NULL);
    seed = o->seed ? o->seed : ((uint64_t)time(NULL) * 2654435761u) ^ (uint64_t)getpid();
}

static double thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void discard(wasp_thread *t)
{
    wasp_records_free(&t->rec);
    free(t->scratch);
    free(t);
}

void wasp_thread_begin(JNIEnv *env, const char *name)
{
    if (!wasp_rt.sampling || pthread_getspecific(self_key))
        return;
    uint32_t index = __atomic_fetch_add(&wasp_rt.nthreads, 1, __ATOMIC_ACQ_REL);
    if (index >= WASP_MAX_THREADS) {
        if (!warned_full++)
            wasp_log("more than %u threads: later threads are not profiled", WASP_MAX_THREADS);
        return;
    }
    wasp_thread *t = calloc(1, sizeof *t);
    if (!t)
        return;
    t->index = index;
    t->tid = gettid();
    t->jni_env = env;
    t->sample_fd = -1;
    t->rng = (seed ^ ((uint64_t)t->tid * 0x9e3779b97f4a7c15ull)) | 1;
    t->epoch = __atomic_load_n(&wasp_rt.epoch, __ATOMIC_ACQUIRE);
    t->cpu_ns_start = (uint64_t)(thread_cpu_now() * 1e9);
    snprintf(t->name, sizeof t->name, "%s", name ? name : "?");
    t->scratch = calloc(wasp_rt.max_frames, sizeof *t->scratch);
    if (!t->scratch || wasp_records_init(&t->rec, wasp_rt.max_frames) != 0) {
        wasp_log("thread '%s' not profiled: out of memory for its tables", t->name);
        discard(t);
        return;
    }
    char err[256] = "";
    if (wasp_slots_open(t, wasp_rt.nslots, err, sizeof err) == 0) {
        if (!warned_slots++)
            wasp_log("debug registers unavailable (%s): threads are not profiled", err);
        discard(t);
        return;
    }
    /* Publish before the first signal can arrive. */
    __atomic_store_n(&wasp_rt.threads[index], t, __ATOMIC_RELEASE);
    t->active = 1;
    if (wasp_rt.source->open_thread(wasp_rt.source, t, err, sizeof err) != 0) {
        t->active = 0;
        wasp_slots_close(t);
        if (!warned_source++)
            wasp_log("address sampling unavailable (%s): thread '%s' and later ones are not "
                     "profiled",
                     err, t->name);
        return; /* stays in the registry (empty) so the index is never reused */
    }
    pthread_setspecific(self_key, t);
}

static void quiet(wasp_thread *t)
{
    t->active = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* A handler that already started on that thread finishes in microseconds. */
    for (int spins = 0; t->in_handler && spins < 100000; spins++)
        sched_yield();
    wasp_rt.source->close_thread(wasp_rt.source, t);
    wasp_thread_release_slots(t);
    wasp_slots_close(t);
}

void wasp_thread_finish(void)
{
    wasp_thread *t = pthread_getspecific(self_key);
    if (!t)
        return;
    pthread_setspecific(self_key, NULL);
    double used = thread_cpu_now() - (double)t->cpu_ns_start / 1e9;
    pthread_mutex_lock(&registry_lock);
    quiet(t);
    t->cpu_ns_start = (uint64_t)(used * 1e9) | (1ull << 63); /* finished: holds CPU used */
    __atomic_store_n(&wasp_rt.threads[t->index], NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&registry_lock);
    /* Keep its measurements, not its tables: long-running programs start
     * threads without end. Nothing else can reach t any more: no handler (this
     * thread is here and its events are closed), nor the end of the run (t is
     * out of the registry). Folding happens outside the lock because it asks
     * the JVM for method names. */
    wasp_dump_fold_thread(t);
    discard(t);
}

void wasp_threads_stop_all(void (*visit)(const wasp_thread *t))
{
    pthread_mutex_lock(&registry_lock);
    uint32_t n = wasp_rt.nthreads < WASP_MAX_THREADS ? wasp_rt.nthreads : WASP_MAX_THREADS;
    for (uint32_t i = 0; i < n; i++) {
        wasp_thread *t = __atomic_load_n(&wasp_rt.threads[i], __ATOMIC_ACQUIRE);
        if (!t)
            continue;
        if (!(t->cpu_ns_start >> 63))
            quiet(t);
        if (visit)
            visit(t);
    }
    pthread_mutex_unlock(&registry_lock);
}

double wasp_thread_cpu_seconds(const wasp_thread *t)
{
    if (t->cpu_ns_start >> 63)
        return (double)(t->cpu_ns_start & ~(1ull << 63)) / 1e9;
    /* Still running: its CPU time so far, from /proc. */
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)t->tid);
    FILE *f = fopen(path, "r");
    unsigned long long ns = 0;
    if (f) {
        if (fscanf(f, "%llu", &ns) != 1)
            ns = 0;
        fclose(f);
    }
    double s = (double)ns / 1e9 - (double)t->cpu_ns_start / 1e9;
    return s > 0 ? s : 0;
}
