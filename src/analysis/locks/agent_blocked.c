/*
 * Time blocked on locks: the looking thread (agent_blocked.h). It runs in
 * the JVM as a daemon thread of the agent's own, with the agent's JVMTI
 * environment (agent.c adds can_get_current_contended_monitor for -e locks:
 * JDK 17 grants it only at start-up). Every look:
 *
 *   GetAllThreads, GetThreadState of each (a read of the thread's status, no
 *   safepoint); for each thread blocked entering a monitor or parked — at
 *   most MAX_LOOKED of them, the others represented by them (each sample
 *   weighs found/looked) — the object it waits for (GetCurrentContendedMonitor,
 *   or LockSupport.getBlocker), its class, and its Java frames
 *   (GetStackTrace: a handshake the looking thread does itself, the thread
 *   being blocked).
 *
 * Parks with no blocker and parks on a Condition (a thread waiting for a
 * signal, not for a lock: an idle pool worker) are not lock waits and are
 * left out. The table is kept under a mutex: the dump reads it after the
 * thread stopped, or, when it did not stop in time, not at all.
 *
 * Not for signal handlers.
 */
#include "analysis/locks/agent_blocked.h"

#include <dlfcn.h>
#include <errno.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/alloc_event.h"
#include "agent/jvm.h"
#include "agent/log.h"
#include "analysis/locks/profile.h"
#include "watch/records.h"
#include "watch/session.h"

enum {
    CAP = 4096,       /* (class, kind, context)s kept; a power of two */
    CLS_MAX = 192,
    MAX_LOOKED = 32,  /* blocked threads examined in one look */
    MAX_FRAMES = 128,
};

typedef struct entry {
    char cls[CLS_MAX];
    uint32_t park, ctx; /* ctx: B.rec's context id; 0: empty slot */
    double samples, seconds;
} entry;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    int started, stopping, joined;
    entry *e;
    uint32_t n;
    wasp_records rec;
    uint64_t looks, samples, dropped;
    double cpu_s, wall_s;
} B = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Waits ms, or less when told to stop: whether to stop. */
static int pause_ms(long ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += ms * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&B.lock);
    while (!B.stopping && pthread_cond_timedwait(&B.wake, &B.lock, &until) != ETIMEDOUT)
        ;
    int stop = B.stopping;
    pthread_mutex_unlock(&B.lock);
    return stop;
}

static uint64_t entry_hash(const char *cls, uint32_t park, uint32_t ctx)
{
    uint64_t h = 1469598103934665603ull ^ park ^ ((uint64_t)ctx << 1);
    for (; *cls; cls++)
        h = (h ^ (unsigned char)*cls) * 1099511628211ull;
    return h;
}

/* One sample, weighing seconds, under B.lock. */
static void add(const char *cls, uint32_t park, const wasp_rframe *f, uint32_t nf, double seconds)
{
    pthread_mutex_lock(&B.lock);
    uint32_t trace = wasp_records_trace(&B.rec, f, (int)nf);
    uint32_t ctx = trace ? wasp_records_context(&B.rec, trace, 0, NULL, 0) : 0;
    uint32_t i = (uint32_t)entry_hash(cls, park, ctx) & (CAP - 1);
    while (ctx && B.e[i].ctx && !(B.e[i].ctx == ctx && B.e[i].park == park && !strcmp(B.e[i].cls, cls)))
        i = (i + 1) & (CAP - 1);
    if (!ctx || (!B.e[i].ctx && B.n * 4 >= CAP * 3)) {
        B.dropped++;
    } else {
        entry *e = &B.e[i];
        if (!e->ctx) {
            snprintf(e->cls, sizeof e->cls, "%s", cls);
            e->park = park;
            e->ctx = ctx;
            B.n++;
        }
        e->samples += 1;
        e->seconds += seconds;
        B.samples++;
    }
    pthread_mutex_unlock(&B.lock);
}

typedef struct looker {
    JNIEnv *env;
    jvmtiEnv *jv;
    jclass lock_support;
    jmethodID get_blocker;
    uint32_t rotate, depth;
} looker;

/* The object thread t waits for (a local reference), NULL when none; with
 * *unnamed set when the JVM would not say (a sample of an unknown class). */
static jobject waited_for(looker *L, jthread t, int park, int *unnamed)
{
    jobject obj = NULL;
    if (!park) {
        jvmtiError e = (*L->jv)->GetCurrentContendedMonitor(L->jv, t, &obj);
        *unnamed = e == JVMTI_ERROR_MUST_POSSESS_CAPABILITY; /* agent.c could not add it */
        return e == JVMTI_ERROR_NONE ? obj : NULL;
    }
    obj = (*L->env)->CallStaticObjectMethod(L->env, L->lock_support, L->get_blocker, t);
    if ((*L->env)->ExceptionCheck(L->env)) {
        (*L->env)->ExceptionClear(L->env);
        return NULL;
    }
    return obj;
}

static int is_condition(const char *cls)
{
    size_t n = strlen(cls), k = strlen("$ConditionObject");
    return n >= k && !strcmp(cls + n - k, "$ConditionObject");
}

/* One look at every thread; dt: the seconds since the look before. */
static void look(looker *L, double dt)
{
    JNIEnv *env = L->env;
    if ((*env)->PushLocalFrame(env, 16) != 0) {
        (*env)->ExceptionClear(env);
        return;
    }
    jint n = 0;
    jthread *ts = NULL;
    if ((*L->jv)->GetAllThreads(L->jv, &n, &ts) != JVMTI_ERROR_NONE) {
        (*env)->PopLocalFrame(env, NULL);
        return;
    }
    enum { MAX_FOUND = 4096 };
    static uint32_t found[MAX_FOUND]; /* index << 1 | parked; this thread's only */
    uint32_t nfound = 0;
    for (jint i = 0; i < n && nfound < MAX_FOUND; i++) {
        jint st = 0;
        if ((*L->jv)->GetThreadState(L->jv, ts[i], &st) != JVMTI_ERROR_NONE)
            continue;
        if (st & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER)
            found[nfound++] = (uint32_t)i << 1;
        else if (st & JVMTI_THREAD_STATE_PARKED)
            found[nfound++] = (uint32_t)i << 1 | 1;
    }
    uint32_t looked = nfound < MAX_LOOKED ? nfound : MAX_LOOKED;
    double weight = looked ? dt * nfound / looked : 0;
    for (uint32_t k = 0; k < looked; k++) {
        uint32_t f = found[(L->rotate + k) % nfound];
        jthread t = ts[f >> 1];
        uint32_t park = f & 1;
        int unnamed = 0;
        jobject obj = waited_for(L, t, park, &unnamed);
        if (!obj && !unnamed)
            continue; /* it moved on, or parked with no blocker: not a lock wait */
        jclass cls = obj ? (*env)->GetObjectClass(env, obj) : NULL;
        char name[CLS_MAX] = "";
        if (cls)
            wasp_alloc_event_class(cls, name, sizeof name);
        if (!(park && is_condition(name))) {
            wasp_rframe rf[MAX_FRAMES];
            uint32_t nf = wasp_alloc_event_frames(L->jv, t, rf, L->depth);
            add(name, park, rf, nf, weight);
        }
        if (obj)
            (*env)->DeleteLocalRef(env, obj);
        if (cls)
            (*env)->DeleteLocalRef(env, cls);
    }
    L->rotate += looked;
    (*L->jv)->Deallocate(L->jv, (unsigned char *)ts);
    (*env)->PopLocalFrame(env, NULL);
}

/* The JVM once it is live, NULL when told to stop first or the JVM is gone.
 * The agent's environment says when: before the live phase GetPhase answers
 * any thread; once live it refuses a thread not attached
 * (JVMTI_ERROR_UNATTACHED_THREAD, seen on JDK 17) — both mean live. */
static JavaVM *live_vm(void)
{
    typedef jint (*created_fn)(JavaVM **, jsize, jsize *);
    created_fn created = (created_fn)dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs");
    for (;;) {
        if (pause_ms(WASP_LOCK_BLOCKED_PERIOD_MS))
            return NULL;
        jvmtiPhase ph = JVMTI_PHASE_ONLOAD;
        jvmtiError err = wasp_jvmti ? (*wasp_jvmti)->GetPhase(wasp_jvmti, &ph)
                                    : JVMTI_ERROR_INVALID_ENVIRONMENT;
        int live = err == JVMTI_ERROR_UNATTACHED_THREAD ||
                   (err == JVMTI_ERROR_NONE && ph == JVMTI_PHASE_LIVE);
        if ((err != JVMTI_ERROR_NONE && !live) || ph == JVMTI_PHASE_DEAD)
            return NULL;
        JavaVM *vm = NULL;
        jsize nvm = 0;
        if (live && created && created(&vm, 1, &nvm) == JNI_OK && nvm == 1)
            return vm;
    }
}

static int prepare(looker *L)
{
    L->jv = wasp_jvmti;
    jclass ls = (*L->env)->FindClass(L->env, "java/util/concurrent/locks/LockSupport");
    L->get_blocker = ls ? (*L->env)->GetStaticMethodID(L->env, ls, "getBlocker",
                                                       "(Ljava/lang/Thread;)Ljava/lang/Object;")
                        : NULL;
    L->lock_support = L->get_blocker ? (*L->env)->NewGlobalRef(L->env, ls) : NULL;
    if (!L->lock_support) {
        (*L->env)->ExceptionClear(L->env);
        return -1;
    }
    uint32_t depth = wasp_session_get()->max_frames;
    L->depth = depth && depth < MAX_FRAMES ? depth : MAX_FRAMES;
    return 0;
}

static void *run(void *arg)
{
    (void)arg;
    JavaVM *vm = live_vm();
    if (!vm)
        return NULL;
    looker L = {0};
    /* "wasp-": a thread of wasp's own, not sampled (agent.c). */
    JavaVMAttachArgs args = {JNI_VERSION_1_8, (char *)"wasp-locks", NULL};
    if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&L.env, &args) != JNI_OK) {
        wasp_log("locks: cannot attach the thread that looks for blocked threads; blocked time "
                 "is not measured");
        return NULL;
    }
    if (prepare(&L) != 0) {
        wasp_log("locks: no LockSupport.getBlocker; blocked time is not measured");
    } else {
        double start = now(CLOCK_MONOTONIC), last = start, cpu0 = now(CLOCK_THREAD_CPUTIME_ID);
        while (!pause_ms(WASP_LOCK_BLOCKED_PERIOD_MS)) {
            double t = now(CLOCK_MONOTONIC);
            look(&L, t - last);
            last = t;
            B.looks++;
        }
        B.cpu_s = now(CLOCK_THREAD_CPUTIME_ID) - cpu0;
        B.wall_s = now(CLOCK_MONOTONIC) - start;
        (*L.env)->DeleteGlobalRef(L.env, L.lock_support);
    }
    (*vm)->DetachCurrentThread(vm);
    return NULL;
}

int wasp_locks_blocked_start(void)
{
    wasp_locks_blocked_stop();
    free(B.e);
    wasp_records_free(&B.rec);
    memset(&B.rec, 0, sizeof B.rec);
    B.n = 0;
    B.looks = B.samples = B.dropped = 0;
    B.cpu_s = B.wall_s = 0;
    B.stopping = B.joined = 0;
    B.e = calloc(CAP, sizeof *B.e);
    if (!B.e || wasp_records_init(&B.rec, MAX_FRAMES, 0) != 0 ||
        pthread_create(&B.thread, NULL, run, NULL) != 0) {
        wasp_log("locks: out of memory or threads; blocked time is not measured");
        free(B.e);
        B.e = NULL;
        return -1;
    }
    B.started = 1;
    return 0;
}

void wasp_locks_blocked_stop(void)
{
    if (!B.started)
        return;
    pthread_mutex_lock(&B.lock);
    B.stopping = 1;
    pthread_cond_broadcast(&B.wake);
    pthread_mutex_unlock(&B.lock);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    /* A look holds up nothing of the JVM's, but the JVM may be going down. */
    B.joined = pthread_timedjoin_np(B.thread, NULL, &until) == 0;
    if (!B.joined)
        wasp_log("locks: the thread looking for blocked threads did not stop; its samples are "
                 "left out");
    B.started = 0;
}

void wasp_locks_blocked_finish(wasp_dump *d, uint32_t (*java_context)(wasp_profile *, uint32_t))
{
    wasp_profile *p = wasp_dump_profile(d);
    if (!B.e || !B.joined)
        return;
    wasp_profile_set_meta_num(p, "locks_blocked_period_ms", WASP_LOCK_BLOCKED_PERIOD_MS);
    wasp_profile_set_meta_num(p, "locks_blocked_looks", (double)B.looks);
    wasp_profile_set_meta_rounded(p, "locks_blocked_cpu_ms", B.cpu_s * 1e3, "%.1f");
    wasp_profile_set_meta_rounded(p, "locks_blocked_wall_s", B.wall_s, "%.3f");
    if (B.dropped)
        wasp_profile_set_meta_num(p, "locks_blocked_dropped", (double)B.dropped);
    uint32_t monitor = wasp_profile_intern_string(p, WASP_LOCK_MONITOR);
    uint32_t park = wasp_profile_intern_string(p, WASP_LOCK_PARK);
    for (uint32_t i = 0; i < CAP; i++) {
        const entry *e = &B.e[i];
        if (!e->ctx)
            continue;
        uint32_t ctx = wasp_dump_context(d, &B.rec, e->ctx);
        if (ctx == UINT32_MAX || (ctx = java_context(p, ctx)) == UINT32_MAX)
            continue;
        wasp_lock_blocked b = {wasp_profile_intern_string(p, e->cls), e->park ? park : monitor, ctx, 0,
                               e->samples, e->seconds};
        wasp_profile_add_lock_blocked(p, &b);
    }
    free(B.e);
    B.e = NULL;
    wasp_records_free(&B.rec);
    memset(&B.rec, 0, sizeof B.rec);
}
