/*
 * Profiled threads (see threads.h). Runs in JVMTI callbacks, never in a
 * signal handler. Thread state is published to the handler through the
 * registry (watch/thread_registry.h). A thread that ends frees its own state
 * (its handler runs only on it, and is quiet by then). When a session ends,
 * every state left is taken out of the registry and its tables freed; the
 * small struct itself waits in a graveyard until the next session starts,
 * because a handler that loaded it from the registry just before may still
 * read its `active` flag.
 *
 * A thread's thread-local value is a token (its registry index + 1, and a
 * serial number above), not a pointer: after a session ends the token finds
 * nothing, and when its index is handed to another thread the serial no
 * longer matches, so no state of an earlier session, with another session's
 * analyses, nor another thread's, is ever used again.
 */
#include "agent/threads.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "agent/fd_budget.h"
#include "agent/java_thread_names.h"
#include "agent/log.h"
#include "watch/caller_chain.h"
#include "watch/handler.h"
#include "watch/handler_part.h"
#include "watch/mechanisms.h"
#include "watch/run_state.h"
#include "watch/session.h"
#include "watch/slots.h"
#include "watch/thread_registry.h"

static pthread_key_t self_key;
/* A token: index + 1 in the low 24 bits (WASP_MAX_THREADS is 2^20), a
 * serial above them. */
#define TOKEN_INDEX ((uintptr_t)0xffffff)
static uintptr_t token_serial;
static pthread_once_t self_key_once = PTHREAD_ONCE_INIT;
/* Serialises thread end (which frees a thread's state) with the end of the
 * run (which walks every thread's state). Never taken in a handler. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t seed;
static int warned_slots, warned_source, warned_full;
static void (*thread_ended)(const wasp_thread *t);
/* Samples of threads that ended, and of running ones before a snapshot
 * cleared their counters (under registry_lock): the progress count goes on. */
static uint64_t ended_samples;
static wasp_thread *graveyard;  /* retired at the last session's end (retired_next) */

static void make_self_key(void)
{
    pthread_key_create(&self_key, NULL);
}

/* The calling thread's state in this session, from its token; NULL when it
 * has none (never profiled, or its session ended). */
static wasp_thread *self_state(void)
{
    uintptr_t token = (uintptr_t)pthread_getspecific(self_key);
    wasp_thread *t = token ? wasp_thread_at((uint32_t)((token - 1) & TOKEN_INDEX)) : NULL;
    return t && t->token == token ? t : NULL;
}

static void free_tables(wasp_thread *t)
{
    wasp_records_free(&t->rec);
    if (t->part_state_map)
        munmap(t->part_state_map, t->part_state_len);
    t->part_state_map = NULL;
    for (int id = 0; id < WASP_ANALYSES; id++)
        t->part_state[id] = NULL;
    free(t->scratch);
    t->scratch = NULL;
    wasp_chain_thread_free(t->chain);
    t->chain = NULL;
    wasp_slots_free(t);
}

static void discard(wasp_thread *t)
{
    free_tables(t);
    free(t);
}

void wasp_threads_init(const wasp_options *o, void (*on_end)(const wasp_thread *t))
{
    pthread_once(&self_key_once, make_self_key);
    pthread_mutex_lock(&registry_lock);
    while (graveyard) {
        wasp_thread *next = graveyard->retired_next;
        free(graveyard);
        graveyard = next;
    }
    ended_samples = 0;
    warned_slots = warned_source = warned_full = 0;
    pthread_mutex_unlock(&registry_lock);
    wasp_fd_budget_start();
    thread_ended = on_end;
    seed = o->seed ? o->seed : ((uint64_t)time(NULL) * 2654435761u) ^ (uint64_t)getpid();
}

static double thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What the enabled analyses keep per thread: site tables for those that
 * need tracked objects, and each one's own state, all of it in one fresh
 * mapping: its pages are zero and take no memory until a sample writes them
 * (-e all: 280 KiB a thread, of which an idle thread touches none), and
 * they go back to the system with the thread. calloc'ed, they came from
 * chunks a former session freed, which calloc clears page by page: a JVM of
 * 1,000 threads grew by 230 MiB at its second attach, and kept it after
 * the detach. 0, or -1 out of memory. */
static int create_part_state(wasp_thread *t)
{
    uint32_t site_tables = 0;
    size_t at[WASP_ANALYSES], len = 0;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_handler_part *p = wasp_handler_part_of(id);
        at[id] = len;
        if (!wasp_session_runs(id))
            continue;
        if (p->needs & WASP_NEEDS_OBJECTS)
            site_tables |= 1u << id;
        len += (p->thread_state + 63) & ~(size_t)63;
    }
    if (len) {
        void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED)
            return -1;
        t->part_state_map = map;
        t->part_state_len = len;
        for (int id = 0; id < WASP_ANALYSES; id++)
            if (wasp_session_runs(id) && wasp_handler_part_of(id)->thread_state)
                t->part_state[id] = (char *)map + at[id];
    }
    return wasp_records_init(&t->rec, wasp_session_get()->max_frames, site_tables);
}

/* The descriptors a thread's events may take: its sampler's perf event and
 * a perf event per sampled slot of an engine that has them. */
static int fds_needed(int nslots)
{
    const wasp_mechanisms *m = wasp_chosen();
    if (nslots > WASP_SAMPLED_SLOTS)
        nslots = WASP_SAMPLED_SLOTS;
    return (m->source->uses_perf ? 1 : 0) + (m->watch ? m->watch->fds_per_slot * nslots : 0);
}

/* Those thread t's events hold now. */
static int fds_open(const wasp_thread *t)
{
    int n = t->sampler.fd >= 0;
    for (int i = 0; i < t->capacity; i++)
        n += t->slots[i].fd >= 0;
    return n;
}

/* Create and publish the state of thread tid; NULL when it stays unprofiled. */
static wasp_thread *create(pid_t tid, JNIEnv *env, const char *name)
{
    const wasp_session *s = wasp_session_get();
    wasp_source *src = wasp_chosen()->source;
    uint32_t index = wasp_registry_reserve();
    if (index >= WASP_MAX_THREADS) {
        if (!warned_full++)
            wasp_log("more than %u threads: later threads are not profiled", WASP_MAX_THREADS);
        return NULL;
    }
    wasp_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->index = index;
    uintptr_t serial = __atomic_add_fetch(&token_serial, 1, __ATOMIC_RELAXED);
    t->token = ((serial << 24) | index) + 1;
    t->tid = tid;
    t->jni_env = env; /* NULL for adopted threads: the handler asks the JVM */
    t->sampler = (wasp_sampler_thread){.index = index, .tid = tid, .fd = -1};
    t->rng = (seed ^ ((uint64_t)t->tid * 0x9e3779b97f4a7c15ull)) | 1;
    t->epoch = wasp_gc_epoch();
    snprintf(t->name, sizeof t->name, "%s", name ? name : "?");
    /* Java frames, the native frames below them, and a stub caller's return
     * address before them (watch/context.c). */
    t->scratch = calloc(s->max_frames + WASP_NATIVE_FRAMES_MAX + 1, sizeof *t->scratch);
    /* --context chain: its quadruples (watch/caller_chain.h). */
    if (s->context != WASP_CONTEXT_WALK)
        t->chain = wasp_chain_thread_new();
    if (!t->scratch || create_part_state(t) != 0 ||
        (s->context != WASP_CONTEXT_WALK && !t->chain)) {
        wasp_log("thread '%s' not profiled: out of memory for its tables", t->name);
        discard(t);
        return NULL;
    }
    char err[256] = "";
    int fds = fds_needed(s->nslots);
    if (!wasp_fd_budget_take(fds, t->name)) {
        discard(t);
        return NULL;
    }
    if (wasp_chosen()->watch && wasp_slots_open(t, s->nslots, err, sizeof err) == 0) {
        if (!warned_slots++)
            wasp_log("watchpoints unavailable (%s): threads are not profiled", err);
        wasp_fd_budget_give(fds);
        discard(t);
        return NULL;
    }
    /* Publish before the first signal can arrive. */
    wasp_registry_publish(index, t);
    t->active = 1;
    if (src->open_thread(src, &t->sampler, err, sizeof err) != 0) {
        t->active = 0;
        wasp_slots_close(t);
        wasp_fd_budget_give(fds);
        if (!warned_source++)
            wasp_log("address sampling unavailable (%s): thread '%s' and later ones are not "
                     "profiled",
                     err, t->name);
        return NULL; /* stays in the registry (empty) so the index is never reused */
    }
    t->fds_held = fds_open(t);
    wasp_fd_budget_give(fds - t->fds_held); /* what it did not open */
    return t;
}

/* The thread's CPU seconds in the kernel so far (/proc's stime, in clock
 * ticks), 0 when unreadable. The perf sampler samples user code only: the
 * report says how much of the CPU it could not see. */
static double task_kernel_seconds(pid_t tid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    const char *after = strrchr(line, ')'); /* the name may hold spaces */
    unsigned long long utime, stime;
    long ticks = sysconf(_SC_CLK_TCK);
    /* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
    if (!after || ticks <= 0 ||
        sscanf(after + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
               &stime) != 2)
        return 0;
    return (double)stime / (double)ticks;
}

static double kernel_since_start(const wasp_thread *t)
{
    double k = task_kernel_seconds(t->tid) - t->kernel_start_s;
    return k > 0 ? k : 0; /* 0 when /proc could not be read */
}

void wasp_thread_begin(JNIEnv *env, const char *name)
{
    if (!wasp_sampling() || self_state())
        return;
    wasp_thread *t = create(gettid(), env, name);
    if (t) {
        t->cpu_ns_start = (uint64_t)(thread_cpu_now() * 1e9);
        t->kernel_start_s = task_kernel_seconds(t->tid);
        pthread_setspecific(self_key, (void *)t->token);
    }
}

/* JVM-internal threads by their kernel name (15 characters at most): never
 * profiled, GC threads above all. Application threads carry their Java name. */
static int internal_thread(const char *comm)
{
    static const char *const prefixes[] = {
        "VM Thread", "GC Thread", "G1 ", "VM Periodic", "C1 Compiler", "C2 Compiler",
        "Sweeper", "Service Thread", "Monitor Deflati", "Signal Dispatch", "Finalizer",
        "Reference Handl", "Common-Cleaner", "Notification Th", "Attach Listener", "Z",
        "Shenandoah", "VM Operation", "Parallel GC", "Concurrent", "JFR ", "wasp-",
        "process reaper",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(comm, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* CPU time a thread has used so far, from /proc (for threads other than the caller). */
static double task_cpu_seconds(pid_t tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
    FILE *f = fopen(path, "r");
    unsigned long long ns = 0;
    if (f) {
        if (fscanf(f, "%llu", &ns) != 1)
            ns = 0;
        fclose(f);
    }
    return (double)ns / 1e9;
}

/* A running thread found at attach: its name from /proc, then its Java name
 * where the JVM gives it (java_thread_names.h). */
typedef struct candidate {
    pid_t tid;
    double cpu_s;
    char name[64];
} candidate;

typedef struct candidates_found {
    candidate *c;
    int n;
} candidates_found;

static int by_tid(const void *a, const void *b)
{
    pid_t x = ((const candidate *)a)->tid, y = ((const candidate *)b)->tid;
    return (x > y) - (x < y);
}

/* f->c is sorted by tid: a JVM of 10,000 threads is 10,000 lookups. */
static void java_name(pid_t tid, const char *name, void *arg)
{
    candidates_found *f = arg;
    candidate key = {.tid = tid};
    candidate *c = bsearch(&key, f->c, (size_t)f->n, sizeof *f->c, by_tid);
    if (c)
        snprintf(c->name, sizeof c->name, "%s", name);
}

/* Busiest first: when the descriptors' budget (fd_budget.h) cannot take
 * every thread, the threads that ran most are the ones profiled. */
static int by_cpu(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->cpu_s != y->cpu_s)
        return x->cpu_s > y->cpu_s ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The running threads wasp profiles (not the JVM's own: internal_thread),
 * into *out (malloc'ed); their count, or -1. */
static int candidates(candidate **out)
{
    DIR *dir = opendir("/proc/self/task");
    if (!dir)
        return -1;
    int n = 0, cap = 0;
    candidate *c = NULL;
    pid_t self = gettid();
    for (struct dirent *e; (e = readdir(dir));) {
        pid_t tid = (pid_t)atoi(e->d_name);
        if (tid <= 0 || tid == self)
            continue;
        char path[64], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(comm, sizeof comm, f))
                comm[0] = 0;
            fclose(f);
        }
        comm[strcspn(comm, "\n")] = 0;
        if (internal_thread(comm))
            continue;
        if (n == cap) {
            candidate *grown = realloc(c, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *c);
            if (!grown)
                break; /* those found so far */
            c = grown;
        }
        c[n] = (candidate){.tid = tid, .cpu_s = task_cpu_seconds(tid)};
        snprintf(c[n].name, sizeof c[n].name, "%s", comm);
        n++;
    }
    closedir(dir);
    *out = c;
    return n;
}

int wasp_threads_adopt_existing(jvmtiEnv *jvmti, JNIEnv *env)
{
    candidate *c = NULL;
    int n = candidates(&c), adopted = 0;
    if (n > 0) {
        qsort(c, (size_t)n, sizeof *c, by_tid);
        candidates_found f = {c, n};
        if (wasp_java_thread_names(jvmti, env, java_name, &f) != 0)
            wasp_log("the running threads keep their system names (the JVM does not say "
                     "which Java thread is which): threads=1 frames name them so");
        qsort(c, (size_t)n, sizeof *c, by_cpu);
    }
    for (int i = 0; i < n; i++) {
        wasp_thread *t = create(c[i].tid, NULL, c[i].name);
        if (t) {
            t->adopted = 1;
            t->cpu_ns_start = (uint64_t)(task_cpu_seconds(c[i].tid) * 1e9);
            t->kernel_start_s = task_kernel_seconds(c[i].tid);
            adopted++;
        }
    }
    free(c);
    return adopted;
}

/* Once per state: its events closed twice could close another's. */
static void quiet(wasp_thread *t)
{
    if (t->quieted)
        return;
    t->quieted = 1;
    t->active = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* A handler that already started on that thread finishes in microseconds. */
    for (int spins = 0; t->in_handler && spins < 100000; spins++)
        sched_yield();
    wasp_source *src = wasp_chosen()->source;
    src->close_thread(src, &t->sampler);
    wasp_thread_release_slots(t);
    wasp_slots_close(t);
    wasp_fd_budget_give(t->fds_held);
    t->fds_held = 0;
}

/* A thread adopted at attach has no thread-local pointer until it first
 * asks: find it by tid. */
static wasp_thread *find_adopted(pid_t tid)
{
    uint32_t n = wasp_registry_count();
    for (uint32_t i = 0; i < n; i++) {
        wasp_thread *t = wasp_thread_at(i);
        if (t && t->adopted && t->tid == tid)
            return t;
    }
    return NULL;
}

wasp_thread *wasp_thread_self_or_adopted(void)
{
    wasp_thread *t = self_state();
    if (t)
        return t;
    t = find_adopted(gettid());
    /* Its token from now on, so the next ask is not a registry scan (the
     * token, checked by self_state, goes stale with the session). */
    if (t)
        pthread_setspecific(self_key, (void *)t->token);
    return t;
}

wasp_thread *wasp_agent_enter(void)
{
    wasp_thread *t = wasp_thread_self_or_adopted();
    if (t) {
        t->in_agent++;
        __atomic_signal_fence(__ATOMIC_SEQ_CST); /* before the callback's work */
    }
    return t;
}

void wasp_agent_leave(wasp_thread *t)
{
    if (!t)
        return;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* after it */
    t->in_agent--;
}

void wasp_thread_finish(void)
{
    /* Looked up under the lock: the end of a session may be retiring every
     * state at this moment. */
    pthread_mutex_lock(&registry_lock);
    wasp_thread *t = wasp_thread_self_or_adopted();
    pthread_setspecific(self_key, NULL);
    if (!t) {
        pthread_mutex_unlock(&registry_lock);
        return;
    }
    double used = thread_cpu_now() - (double)t->cpu_ns_start / 1e9;
    quiet(t);
    if (t->adopted) /* its start was measured from /proc, in the same clock */
        used = task_cpu_seconds(t->tid) - (double)t->cpu_ns_start / 1e9;
    t->cpu_ns_start = (uint64_t)(used * 1e9) | (1ull << 63); /* finished: holds CPU used */
    t->cpu_mark_s = used;
    t->kernel_mark_s = kernel_since_start(t);
    wasp_registry_remove(t->index);
    wasp_registry_release(t->index);
    ended_samples += t->rec.counters[WASP_C_SAMPLES];
    pthread_mutex_unlock(&registry_lock);
    /* Keep its measurements, not its tables: long-running programs start
     * threads without end. Nothing else can reach t any more: no handler (this
     * thread is here and its events are closed), nor the end of the run (t is
     * out of the registry). Folding happens outside the lock because it asks
     * the JVM for method names. */
    if (thread_ended)
        thread_ended(t);
    discard(t);
}

/* A running thread's CPU seconds and kernel seconds since it began. */
static void mark_cpu(wasp_thread *t)
{
    t->cpu_mark_s = wasp_thread_cpu_seconds(t);
    t->kernel_mark_s = kernel_since_start(t);
}

void wasp_threads_stop_all(void (*visit)(const wasp_thread *t))
{
    pthread_mutex_lock(&registry_lock);
    uint32_t n = wasp_registry_count();
    for (uint32_t i = 0; i < n; i++) {
        wasp_thread *t = wasp_thread_at(i);
        if (!t)
            continue;
        quiet(t);
        if (!(t->cpu_ns_start >> 63))
            mark_cpu(t);
        if (visit)
            visit(t);
    }
    pthread_mutex_unlock(&registry_lock);
}

/* Hold t's handler off (as quiet does, leaving its events open): 0 when
 * held, -1 when a handler of its did not finish (then nothing changed). */
static int pause_thread(wasp_thread *t)
{
    t->active = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int spins = 0; t->in_handler && spins < 100000; spins++)
        sched_yield();
    if (!t->in_handler)
        return 0;
    t->active = 1;
    return -1;
}

/* Everything t recorded goes: tables, counters, each analysis's state (its
 * initial state is all zero, as create() made it). */
static void clear_records(wasp_thread *t)
{
    wasp_records_clear(&t->rec);
    for (int id = 0; id < WASP_ANALYSES; id++) {
        size_t size = wasp_handler_part_of(id)->thread_state;
        if (t->part_state[id] && size)
            memset(t->part_state[id], 0, size);
    }
    if (t->chain)
        memset(t->chain, 0, sizeof *t->chain);
}

int wasp_threads_fold_live(void (*fold)(const wasp_thread *t))
{
    int skipped = 0;
    pthread_mutex_lock(&registry_lock);
    uint32_t n = wasp_registry_count();
    for (uint32_t i = 0; i < n; i++) {
        wasp_thread *t = wasp_thread_at(i);
        if (!t || t->quieted || !t->active)
            continue;
        if (pause_thread(t) != 0) {
            skipped++;
            continue;
        }
        /* Its watches go, as at a collection: their contexts are the
         * records' about to be cleared. */
        wasp_thread_release_slots(t);
        mark_cpu(t);
        fold(t);
        t->cpu_folded_s = t->cpu_mark_s;
        t->kernel_folded_s = t->kernel_mark_s;
        ended_samples += t->rec.counters[WASP_C_SAMPLES];
        clear_records(t);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        t->active = 1;
    }
    pthread_mutex_unlock(&registry_lock);
    return skipped;
}

/* Whether an analysis's own table of t's (its thread state) turned a
 * sample away since the last fold: its counter named "*.table_full". */
static int part_table_full(const wasp_thread *t)
{
    static const char suffix[] = ".table_full";
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_handler_part *p = wasp_handler_part_of(id);
        if (!wasp_session_runs(id))
            continue;
        for (int k = 0; k < WASP_PART_COUNTERS; k++) {
            const char *name = p->counters[k];
            size_t len = name ? strlen(name) : 0;
            if (len > sizeof suffix - 1 && !strcmp(name + len - (sizeof suffix - 1), suffix) &&
                __atomic_load_n(&t->rec.part_counters[id][k], __ATOMIC_RELAXED))
                return 1;
        }
    }
    return 0;
}

double wasp_threads_fullest(void)
{
    double most = 0;
    pthread_mutex_lock(&registry_lock);
    uint32_t n = wasp_registry_count();
    for (uint32_t i = 0; i < n; i++) {
        const wasp_thread *t = wasp_thread_at(i);
        if (!t || t->quieted || !t->rec.pairs)
            continue;
        double f = part_table_full(t) ? 1.0 : wasp_records_fill(&t->rec);
        most = f > most ? f : most;
    }
    pthread_mutex_unlock(&registry_lock);
    return most;
}

void wasp_threads_retire_all(void)
{
    pthread_mutex_lock(&registry_lock);
    uint32_t n = wasp_registry_count();
    for (uint32_t i = 0; i < n; i++) {
        wasp_thread *t = wasp_thread_at(i);
        if (!t)
            continue;
        quiet(t);
        wasp_registry_remove(i);
        wasp_registry_release(i);
        free_tables(t);
        t->retired_next = graveyard;
        graveyard = t;
    }
    ended_samples = 0;
    pthread_mutex_unlock(&registry_lock);
}

void wasp_threads_visit(void (*visit)(const wasp_thread *t))
{
    pthread_mutex_lock(&registry_lock);
    uint32_t n = wasp_registry_count();
    for (uint32_t i = 0; i < n; i++) {
        wasp_thread *t = wasp_thread_at(i);
        if (t)
            visit(t);
    }
    pthread_mutex_unlock(&registry_lock);
}

uint64_t wasp_threads_samples(void)
{
    pthread_mutex_lock(&registry_lock);
    uint64_t n = ended_samples;
    uint32_t k = wasp_registry_count();
    for (uint32_t i = 0; i < k; i++) {
        wasp_thread *t = wasp_thread_at(i);
        /* A running thread's handler counts as it goes: a torn read cannot
         * happen to an aligned 64-bit word, a late one shows next second. */
        if (t)
            n += __atomic_load_n(&t->rec.counters[WASP_C_SAMPLES], __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&registry_lock);
    return n;
}

double wasp_thread_cpu_seconds(const wasp_thread *t)
{
    if (t->cpu_ns_start >> 63)
        return (double)(t->cpu_ns_start & ~(1ull << 63)) / 1e9;
    double s = task_cpu_seconds(t->tid) - (double)t->cpu_ns_start / 1e9;
    return s > 0 ? s : 0;
}
