/*
 * The session's background thread (see snapshots.h): a JVMTI agent thread
 * that wakes every tick and has the agent fold or write the profile so far.
 * An agent thread, not a plain pthread: folding names methods and classes
 * through JVMTI, which answers only threads the JVM knows.
 * Not async-signal-safe.
 */
#include "agent/snapshots.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "agent/jvm.h"

#define THREAD_NAME "wasp-folds"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
/* Each start is a generation: a thread of an ended session that wakes late
 * (wasp detach, then attach) sees another generation and ends. */
static uint64_t generation;
static uint64_t every_ns, tick_ns;
static wasp_snapshot_fn write_fn;

static void init_cond(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &a);
    pthread_condattr_destroy(&a);
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static struct timespec after(uint64_t ns)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t sum = (uint64_t)t.tv_nsec + ns % 1000000000ull;
    t.tv_sec += (time_t)(ns / 1000000000ull + sum / 1000000000ull);
    t.tv_nsec = (long)(sum % 1000000000ull);
    return t;
}

static void JNICALL run(jvmtiEnv *jvmti, JNIEnv *env, void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    uint64_t mine = generation, last_due = now_ns();
    while (generation == mine) {
        struct timespec until = after(tick_ns);
        while (generation == mine && pthread_cond_timedwait(&wake, &lock, &until) == 0)
            ;
        if (generation != mine)
            break;
        uint64_t now = now_ns();
        int due = every_ns && now - last_due >= every_ns;
        if (due)
            last_due = now;
        wasp_snapshot_fn fn = write_fn;
        pthread_mutex_unlock(&lock);
        /* This thread never returns to Java: the local references a write
         * makes (JVMTI's jclasses) are freed with their frame, or never (the
         * soak counted ~24 handle blocks leaked a snapshot). */
        int framed = (*env)->PushLocalFrame(env, 64) == 0;
        fn(jvmti, env, due);
        if (framed)
            (*env)->PopLocalFrame(env, NULL);
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
}

int wasp_snapshots_start(jvmtiEnv *jvmti, JNIEnv *env, uint64_t snapshot_ns, uint64_t tick,
                         wasp_snapshot_fn fn, char *why, size_t len)
{
    pthread_once(&once, init_cond);
    jthread thread = wasp_jvm_new_thread(env, THREAD_NAME);
    if (!thread) {
        snprintf(why, len, "cannot create wasp's background thread");
        return -1;
    }
    pthread_mutex_lock(&lock);
    generation++;
    every_ns = snapshot_ns;
    tick_ns = snapshot_ns && snapshot_ns < tick ? snapshot_ns : tick;
    write_fn = fn;
    pthread_mutex_unlock(&lock);
    if ((*jvmti)->RunAgentThread(jvmti, thread, run, NULL, JVMTI_THREAD_MIN_PRIORITY) !=
        JVMTI_ERROR_NONE) {
        wasp_snapshots_stop();
        snprintf(why, len, "cannot start wasp's background thread");
        return -1;
    }
    return 0;
}

void wasp_snapshots_stop(void)
{
    pthread_once(&once, init_cond);
    pthread_mutex_lock(&lock);
    generation++;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
}
