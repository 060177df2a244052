/*
 * The JVMTI agent's lifecycle: options, capabilities and events, starting and
 * stopping threads, GC epochs, and writing the profile — when the VM dies
 * (normal exit, System.exit, SIGTERM/SIGINT) or, for an agent loaded into a
 * running JVM (wasp attach), when told to stop (wasp detach), after which the
 * JVM runs on with nothing of wasp left active.
 *
 * Failures never take the JVM down: bad options stop a JVM before it runs
 * (one message naming the option); a machine that refuses perf events runs
 * the program unprofiled with one message saying what is missing.
 * Not async-signal-safe (JVMTI callbacks only).
 */
#include <dlfcn.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent_part.h"
#include "agent/alloc.h"
#include "agent/alloc_dump.h"
#include "agent/census.h"
#include "agent/chain_dump.h"
#include "agent/code_map_load.h"
#include "agent/cpu_lines_dump.h"
#include "agent/dump.h"
#include "agent/exit_hook.h"
#include "agent/jvm.h"
#include "agent/vmstructs.h"
#include "agent/log.h"
#include "agent/options.h"
#include "agent/probe.h"
#include "agent/progress.h"
#include "agent/recompile.h"
#include "agent/snapshots.h"
#include "common/attach_refusal.h"
#include "common/clock.h"
#include "agent/threads.h"
#include "agent/vmflags.h"
#include "agent/frame_anchor_load.h"
#include "agent/tlab_load.h"
#include "heap/tlab.h"
#include "agent/java_layout_load.h"
#include "agent/java_names.h"
#include "catalog/names.h"
#include "isa/isa.h"
#include "sample/signal.h"
#include "watch/interpreter.h"
#include "watch/budget.h"
#include "watch/caller_chain.h"
#include "watch/pc_hist.h"
#include "watch/sampler_period.h"
#include "watch/engine.h"
#include "watch/handler.h"
#include "watch/handler_part.h"
#include "watch/mechanisms.h"
#include "watch/run_state.h"
#include "watch/session.h"
#include "heap/klass_set.h"
#include "heap/tracked.h"

static wasp_options opts;
static wasp_dump_info dump_info;
static int dumped;      /* the profile of this session is written */
static int active;      /* a session is running (between start and stop) */
static int attached;    /* loaded into a running JVM */
/* Serialises profile writes: a snapshot (the snapshot thread, wasp dump)
 * with another, and with the session's end. */
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
/* This thread is writing a profile (it holds wasp's locks): an exit the JVM
 * makes on it meanwhile (an allocation failing inside a JVMTI call) must not
 * wait for them. */
static _Thread_local int writing;

static void background(jvmtiEnv *jvmti, JNIEnv *env, int due);
/* The background thread's tick, and the least time between folds. */
enum { TICK_NS = 250000000, FOLD_GAP_NS = 1000000000 };
static void stop_and_write_locked(jvmtiEnv *jvmti, JNIEnv *env, const char *ended);

/* The analyses among `enabled` (a bit per id) whose handler parts need `need`. */
static uint32_t needing_of(uint32_t enabled, unsigned need)
{
    uint32_t ids = 0;
    for (int id = 0; id < WASP_ANALYSES; id++)
        if ((enabled & (1u << id)) && (wasp_handler_part_of(id)->needs & need))
            ids |= 1u << id;
    return ids;
}

/* The same, of the session running (watch/session.h). */
static uint32_t needing(unsigned need)
{
    return needing_of(wasp_session_get()->enabled, need);
}

/* Turn analyses of the session being set up off (before sampling starts),
 * with one log line. */
static void turn_off(wasp_session *s, uint32_t ids, const char *why)
{
    ids &= s->enabled;
    if (!ids)
        return;
    char names[256];
    wasp_analysis_ids_format(ids, names, sizeof names);
    wasp_log("%s: %s off", why, names);
    s->enabled &= ~ids;
}

/* Every watch goes, when the engine keeps any (GC start, end of the run). */
static void drop_all_watches(void)
{
    const wasp_watch_engine *e = wasp_chosen()->watch;
    if (e && e->drop_all)
        e->drop_all();
}

static void JNICALL on_gc_start(jvmtiEnv *jvmti)
{
    (void)jvmti;
    wasp_gc_epoch_bump();
    /* Objects move: no watch survives (and no page stays protected while
     * the collector copies). */
    drop_all_watches();
}

static void JNICALL on_gc_finish(jvmtiEnv *jvmti)
{
    wasp_gc_epoch_bump();
    if (wasp_objects.on)
        wasp_alloc_on_gc_finish(jvmti);
}

static void JNICALL on_class_load(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass)
{
    /* Enabled only because AsyncGetCallTrace needs it. */
    (void)jvmti, (void)env, (void)thread, (void)klass;
}

static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass)
{
    (void)env, (void)thread;
    wasp_thread *self = wasp_agent_enter();
    wasp_jvm_prepare_class(jvmti, klass);
    wasp_agent_leave(self);
}

/* The callback runs on the allocating thread, in the JVM's allocation slow
 * path: its stack walks and lookups are wasp's cost, which would otherwise
 * count at the line that allocated (-e replicas --alloc-interval 0 put 11%
 * of ReplicaKMeans's samples there). */
static void JNICALL on_sampled_object(jvmtiEnv *jvmti, JNIEnv *env, jthread thread,
                                      jobject object, jclass klass, jlong size)
{
    wasp_thread *self = wasp_agent_enter();
    wasp_alloc_on_object(jvmti, env, thread, object, klass, size);
    wasp_agent_leave(self);
}

static void JNICALL on_code(jvmtiEnv *jvmti, const char *name, const void *addr, jint length)
{
    (void)jvmti;
    wasp_jvm_add_code(name, addr, length);
}

static void begin_thread(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    int named = thread && (*jvmti)->GetThreadInfo(jvmti, thread, &info) == JVMTI_ERROR_NONE;
    const char *name = named && info.name ? info.name : "?";
    if (strncmp(name, "wasp-", 5) != 0) /* wasp's own threads are not the program */
        wasp_thread_begin(env, name);
    if (named) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
        if (info.thread_group)
            (*env)->DeleteLocalRef(env, info.thread_group);
        if (info.context_class_loader)
            (*env)->DeleteLocalRef(env, info.context_class_loader);
    }
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    begin_thread(jvmti, env, thread);
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    (void)jvmti, (void)env, (void)thread;
    wasp_thread_finish();
}

/* Whether this attach turned DebugNonSafepoints on: its detach turns it off
 * again, leaving the JVM as it was. */
static bool lines_turned_on;

/* DebugNonSafepoints, so that compiled code maps to exact lines rather than
 * the nearest safepoint's. At load (wasp run) nothing is compiled yet; at an
 * attach the code compiled without it keeps coarse lines
 * (agent/exact_code.h). */
static void exact_lines_on(jvmtiEnv *jvmti)
{
    jvmtiPhase phase = JVMTI_PHASE_ONLOAD;
    int was = 1;
    lines_turned_on = false;
    if (wasp_vm_get_bool_flag("DebugNonSafepoints", &was) != 0 ||
        wasp_vm_set_bool_flag("DebugNonSafepoints", 1) != 0) {
        wasp_log("cannot turn on DebugNonSafepoints: lines in JIT code may be off by a few; "
                 "add -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints");
        return;
    }
    if ((*jvmti)->GetPhase(jvmti, &phase) == JVMTI_ERROR_NONE && phase == JVMTI_PHASE_LIVE &&
        !was) {
        lines_turned_on = true;
        wasp_log("the code the JIT compiled before this attach has lines at its safepoints "
                 "only (the JVM runs without -XX:+DebugNonSafepoints): samples there may count "
                 "at a loop's header rather than the line in its body; code compiled from now "
                 "on has exact lines%s",
                 opts.recompile ? "" : " (wasp attach --recompile has the rest compiled again)");
    }
    wasp_code_map_lines_turned_on(lines_turned_on);
}

/* --recompile (agent/recompile.h): only where this attach turned the lines
 * on; with the flag on from the start every method is exact already. */
static void recompile(JNIEnv *env)
{
    char how[256];
    int on = 0;
    if (!lines_turned_on && wasp_vm_get_bool_flag("DebugNonSafepoints", &on) == 0 && on)
        wasp_log("recompile: not needed, the JVM runs with DebugNonSafepoints: compiled code "
                 "has exact lines");
    else if (!lines_turned_on)
        wasp_log("recompile: not done: DebugNonSafepoints is off, so code compiled again would "
                 "have lines at safepoints only too");
    else if (wasp_recompile_all(wasp_jvmti, env, how, sizeof how) != 0)
        wasp_log("recompile: %s; code compiled before this attach keeps lines at safepoints "
                 "only", how);
    else
        wasp_log("recompile: %s; the program runs slower while its hot methods compile again, "
                 "with exact lines", how);
}

/* At the detach: DebugNonSafepoints as the attach found it. */
static void exact_lines_off(void)
{
    if (lines_turned_on && wasp_vm_set_bool_flag("DebugNonSafepoints", 0) == 0)
        wasp_log("DebugNonSafepoints is off again, as this attach found it");
    lines_turned_on = false;
    wasp_code_map_lines_turned_on(false);
}

/* --context chain: the compiled methods, as they come and go and those
 * already there (agent/code_map_load.h). Without them every sample is
 * walked, counted as chain.walked.not_compiled. */
static void chain_events(jvmtiEnv *jvmti, jvmtiEventMode mode)
{
    if (mode == JVMTI_ENABLE)
        wasp_code_map_reset(); /* an earlier session's map is stale by now */
    jvmtiError a = (*jvmti)->SetEventNotificationMode(jvmti, mode,
                                                      JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, mode, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, NULL);
    if (mode != JVMTI_ENABLE)
        return;
    wasp_code_map_existing_begin();
    jvmtiError g = a == JVMTI_ERROR_NONE
                       ? (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD)
                       : a;
    wasp_code_map_existing_end();
    if (g != JVMTI_ERROR_NONE)
        wasp_log("context chain: this JVM does not report its compiled methods; every context "
                 "is walked");
}

/* Everything that needs the live phase: jmethodIDs for the classes loaded
 * so far, names of generated code, thread events, the objects keeper. */
static void start_live(jvmtiEnv *jvmti, JNIEnv *env)
{
    const wasp_watch_engine *engine = wasp_chosen()->watch;
    if (engine && engine->set_heap) {
        uint64_t lo, hi;
        if (wasp_probe_heap_range(&lo, &hi) == 0) {
            engine->set_heap(lo, hi);
            if (getenv("WASP_DEBUG"))
                wasp_log("%s engine: Java heap at [0x%llx, 0x%llx)", engine->name,
                         (unsigned long long)lo, (unsigned long long)hi);
        } else {
            wasp_log("cannot find the Java heap's address range (VMStructs, /proc/self/maps): "
                     "the %s watchpoint engine arms nothing", engine->name);
        }
    }
    if (needing(WASP_NEEDS_JAVA)) {
        char why[256], names[256];
        wasp_analysis_ids_format(needing(WASP_NEEDS_JAVA), names, sizeof names);
        wasp_klass_set_clear(); /* no handler finds an object before the layout is read */
        if (wasp_java_layout_load(env, why, sizeof why) != 0)
            /* By their headers: objects still finds the objects it tracks. */
            wasp_log("cannot read HotSpot's object layout (%s): %s find no objects by their "
                     "headers", why,
                     names);
    }
    uint64_t const_method, code_size, const_method_size;
    if (wasp_vm_field("Method", "_constMethod", &const_method, NULL) == 0 &&
        wasp_vm_field("ConstMethod", "_code_size", &code_size, NULL) == 0 &&
        wasp_vm_type_size("ConstMethod", &const_method_size) == 0)
        wasp_interpreter_set_layout(const_method, code_size, const_method_size);
    /* (else the interpreter's samples count at the bytecode their frame saved) */
    char anchor_why[256];
    if (wasp_frame_anchor_load(env, anchor_why, sizeof anchor_why) != 0)
        wasp_log("threads in the JVM's runtime may have no Java frames in their contexts: %s",
                 anchor_why);
    if (needing(WASP_NEEDS_TLAB)) {
        char why[256], names[256];
        wasp_analysis_ids_format(needing(WASP_NEEDS_TLAB), names, sizeof names);
        if (wasp_tlab_load(env, why, sizeof why) != 0)
            wasp_log("cannot find the threads' allocation buffers (%s): %s sample no creations",
                     why, names);
        else if (!wasp_tlab.has_counts)
            wasp_log("VMStructs lacks the TLAB counts (ThreadLocalAllocBuffer::_number_of_refills, "
                     "_desired_size, Thread::_allocated_bytes): %s weigh no catch by coverage, "
                     "and over-count what threads create slowly (docs/alloc.md, step 5)",
                     names);
    }
    wasp_jvm_prepare_loaded_classes(jvmti, env);
    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
    /* Every context mode: the CPU samples by line need them too
     * (cpu_lines_dump.h). */
    chain_events(jvmti, JVMTI_ENABLE);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL);
    char why[256];
    if (wasp_snapshots_start(jvmti, env, opts.snapshot_ns, TICK_NS, background, why, sizeof why) !=
        0)
        wasp_log("%s: the profile is written at the end only, and a thread whose tables fill "
                 "drops samples (dropped.table_full)",
                 why);
    if (wasp_alloc_start(jvmti, env, why, sizeof why) != 0) {
        /* Sampling runs already: the handler parts stay, and find no
         * tracked object. */
        char names[256];
        wasp_analysis_ids_format(needing(WASP_NEEDS_OBJECTS), names, sizeof names);
        wasp_log("%s: %s find no objects", why, names);
    }
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    if (!wasp_sampling())
        return;
    start_live(jvmti, env);
    begin_thread(jvmti, env, thread);
}

/* The events a profiling session listens to from its start (thread events
 * follow once the VM is live). */
static void session_events(jvmtiEnv *jvmti, jvmtiEventMode mode)
{
    static const jvmtiEvent events[] = {
        JVMTI_EVENT_CLASS_LOAD, JVMTI_EVENT_CLASS_PREPARE, JVMTI_EVENT_DYNAMIC_CODE_GENERATED,
        JVMTI_EVENT_GARBAGE_COLLECTION_START, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH,
    };
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        (*jvmti)->SetEventNotificationMode(jvmti, mode, events[i], NULL);
}

/* Classes found by their headers are named once, for every analysis, from
 * the JVM's loaded classes (agent/java_names.h), before a profile is
 * written; wasp_java_names_free after. */
static void name_classes(jvmtiEnv *jvmti, JNIEnv *env)
{
    if (needing(WASP_NEEDS_JAVA) && wasp_java_names_build(jvmti, env) != 0)
        wasp_log("cannot ask the JVM for its loaded classes: classes found by their headers "
                 "stay unnamed");
}

/* The profile so far, while the session goes on (the background thread,
 * wasp dump): every thread's records folded and cleared, joined to the
 * earlier snapshots' (agent/dump.h), and written as `how` says. */
static int write_snapshot(jvmtiEnv *jvmti, JNIEnv *env, const wasp_dump_how *how)
{
    pthread_mutex_lock(&write_lock);
    writing = 1;
    int rc = -1;
    if (active && !__atomic_load_n(&dumped, __ATOMIC_ACQUIRE)) {
        int passed = wasp_threads_fold_live(wasp_dump_fold_thread);
        if (passed)
            wasp_log("snapshot: %d threads were in wasp's handler throughout and wait for the "
                     "next one", passed);
        name_classes(jvmti, env);
        rc = wasp_dump_write(&dump_info, needing(WASP_NEEDS_OBJECTS) ? wasp_alloc_dump : NULL,
                             how);
        wasp_java_names_free();
    }
    writing = 0;
    pthread_mutex_unlock(&write_lock);
    return rc;
}

/* The background thread's tick: the snapshot when one is due; else a fold,
 * when a thread's tables are half full (a table that fills drops samples:
 * on a real program that took seconds), at most once a second (each fold
 * names the program's methods and classes again). */
static const double FOLD_FILL = 0.5;

static void background(jvmtiEnv *jvmti, JNIEnv *env, int due)
{
    static uint64_t last_fold;
    uint64_t now = wasp_clock_ns(CLOCK_MONOTONIC);
    wasp_code_map_flush(); /* the methods compiled since the last tick */
    if (due) {
        write_snapshot(jvmti, env, &(wasp_dump_how){.quiet = 1});
        last_fold = now;
    } else if (now - last_fold >= FOLD_GAP_NS && wasp_threads_fullest() >= FOLD_FILL) {
        write_snapshot(jvmti, env, &(wasp_dump_how){.fold_only = 1});
        last_fold = now;
    }
}

/* Stop sampling everywhere, write the profile, and leave nothing active:
 * events closed, JVMTI events off, the handler inert. ended: how the session
 * ended, in the profile's words. */
static void stop_and_write(jvmtiEnv *jvmti, JNIEnv *env, const char *ended)
{
    if (__atomic_exchange_n(&dumped, 1, __ATOMIC_ACQ_REL))
        return;
    wasp_snapshots_stop();
    pthread_mutex_lock(&write_lock); /* a snapshot being written finishes first */
    writing = 1;
    stop_and_write_locked(jvmti, env, ended);
    writing = 0;
}

/* The JVM exits at once (exit_hook.h), on a Java thread that may be inside
 * the VM: a snapshot thread blocked by a safepoint that waits for this one
 * would hold the write lock for ever, so it is waited for a while only; then
 * the last snapshot stands. */
static void on_immediate_exit(int status, int underscore)
{
    const wasp_session *s = wasp_session_get();
    JavaVM *vm = s->jvm;
    JNIEnv *env = NULL;
    if (writing || !active || __atomic_load_n(&dumped, __ATOMIC_ACQUIRE) || !vm ||
        (*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK || !env)
        return; /* no session, written already, or not a Java thread */
    if (__atomic_exchange_n(&dumped, 1, __ATOMIC_ACQ_REL))
        return;
    wasp_snapshots_stop();
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 3;
    if (pthread_mutex_timedlock(&write_lock, &until) != 0) {
        wasp_log("the JVM exits (status %d) while a snapshot is being written: the last "
                 "snapshot is the profile", status);
        return;
    }
    writing = 1;
    char ended[160];
    snprintf(ended, sizeof ended, "the JVM exited at once: %s(%d)%s", underscore ? "_exit" : "exit",
             status,
             status == 3 ? ", as -XX:+ExitOnOutOfMemoryError does" : "");
    stop_and_write_locked(wasp_jvmti, env, ended);
}

static void stop_and_write_locked(jvmtiEnv *jvmti, JNIEnv *env, const char *ended)
{
    wasp_sampling_set(false);
    wasp_progress_stop();
    wasp_alloc_stop(jvmti);
    name_classes(jvmti, env);
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_agent_part *part = wasp_agent_part_of(id);
        if (wasp_session_runs(id) && part->stop)
            part->stop(jvmti, env, &opts);
    }
    /* Every thread's chain quadruples before any context is expanded (with
     * --context walk there are none: harvesting is a no-op). */
    wasp_threads_stop_all(wasp_chain_harvest);
    wasp_threads_visit(wasp_dump_fold_thread);
    wasp_dump_how how = {.final = 1, .ended = ended};
    wasp_dump_write(&dump_info, needing(WASP_NEEDS_OBJECTS) ? wasp_alloc_dump : NULL, &how);
    wasp_java_names_free();
    drop_all_watches(); /* every thread is quiet: nothing stays watched */
    session_events(jvmti, JVMTI_DISABLE);
    chain_events(jvmti, JVMTI_DISABLE);
    exact_lines_off();
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_THREAD_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_THREAD_END, NULL);
    /* Nothing of this session reaches the next (wasp attach again): its
     * threads' states go, with the analyses they were made for. */
    wasp_threads_retire_all();
    if (needing(WASP_NEEDS_OBJECTS))
        wasp_alloc_forget(env);
    active = 0;
    pthread_mutex_unlock(&write_lock);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *env)
{
    if (active)
        stop_and_write(jvmti, env, "the JVM exited");
}

static void fill_dump_info(const wasp_options *o)
{
    dump_info.start_time = time(NULL);
    dump_info.min_size = o->min_size;
    dump_info.max_contexts = o->max_contexts;
    wasp_dump_record_threads(o->threads);
    dump_info.alloc_interval = o->alloc_interval;
    if (o->file[0])
        snprintf(dump_info.path, sizeof dump_info.path, "%s", o->file);
    else
        snprintf(dump_info.path, sizeof dump_info.path, "wasp-%d.wprof", (int)getpid());
    wasp_analysis_ids_format(wasp_session_get()->enabled, dump_info.events,
                             sizeof dump_info.events);
    const wasp_source *src = wasp_chosen()->source;
    if (src && !src->time_based)
        snprintf(dump_info.period, sizeof dump_info.period, "%llu events",
                 (unsigned long long)o->pmu_period);
    else
        snprintf(dump_info.period, sizeof dump_info.period, "%llu us CPU",
                 (unsigned long long)(o->period_ns / 1000));
    if (src) {
        snprintf(dump_info.sampler, sizeof dump_info.sampler, "%s", src->name);
        snprintf(dump_info.sampler_detail, sizeof dump_info.sampler_detail, "%s", src->detail);
    }
    dump_info.period_ns = o->period_ns;
    dump_info.watch_budget = o->watch_budget;
}

/* Capabilities one at a time: in a running JVM some may be refused, and a
 * missing one costs a feature, not the whole profile. */
static void add_capabilities(jvmtiEnv *jvmti)
{
    static const struct {
        size_t offset_bit;
        const char *what;
    } wanted[] = {{0, "line numbers"}, {1, "source file names"}, {2, "GC events"},
                  {3, "compiled-method events (exact lines in JIT code)"}};
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        jvmtiCapabilities caps;
        memset(&caps, 0, sizeof caps);
        switch (wanted[i].offset_bit) {
        case 0: caps.can_get_line_numbers = 1; break;
        case 1: caps.can_get_source_file_name = 1; break;
        case 2: caps.can_generate_garbage_collection_events = 1; break;
        /* Also makes HotSpot keep debug info at non-safepoint PCs. */
        default: caps.can_generate_compiled_method_load_events = 1; break;
        }
        if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE)
            wasp_log("this JVM refuses %s; profiling goes on without them", wanted[i].what);
    }
    /* -e locks: the object a thread blocked entering a monitor waits for
     * (analysis/locks/agent_blocked.c); JDK 17 grants it only at start-up. */
    jvmtiCapabilities monitor = {.can_get_current_contended_monitor = 1};
    if ((opts.events & (1u << WASP_ID_locks)) &&
        (*jvmti)->AddCapabilities(jvmti, &monitor) != JVMTI_ERROR_NONE)
        wasp_log("this JVM refuses the monitor a blocked thread waits for; locks: the classes of "
                 "contended monitors' blocked time are not known");
}

static int enable_jvmti(JavaVM *vm)
{
    jvmtiEnv *jvmti = wasp_jvmti;
    if (!jvmti) {
        if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK || !jvmti)
            return -1;
        wasp_jvmti = jvmti;
        add_capabilities(jvmti);
    }
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.VMInit = on_vm_init;
    cb.VMDeath = on_vm_death;
    cb.ClassLoad = on_class_load;
    cb.ClassPrepare = on_class_prepare;
    cb.ThreadStart = on_thread_start;
    cb.ThreadEnd = on_thread_end;
    cb.GarbageCollectionStart = on_gc_start;
    cb.GarbageCollectionFinish = on_gc_finish;
    cb.DynamicCodeGenerated = on_code;
    cb.CompiledMethodLoad = wasp_code_map_on_load;
    cb.CompiledMethodUnload = wasp_code_map_on_unload;
    cb.SampledObjectAlloc = on_sampled_object;
    if ((*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE)
        return -1;
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    session_events(jvmti, JVMTI_ENABLE);
    return 0;
}

/* Tracked objects, for the analyses of s that need them: allocation tracking
 * and what it needs. */
static void setup_tracking(const wasp_options *o, wasp_session *s)
{
    uint32_t ids = needing_of(s->enabled, WASP_NEEDS_OBJECTS);
    char why[256];
    if (ids && wasp_alloc_init(wasp_jvmti, o, why, sizeof why) != 0)
        turn_off(s, ids, why);
}

/* Each enabled analysis's own set-up; one that fails is turned off alone. */
static void setup_parts(const wasp_options *o, wasp_session *s)
{
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_agent_part *part = wasp_agent_part_of(id);
        char why[256];
        if ((s->enabled & (1u << id)) && part->setup && part->setup(o, why, sizeof why) != 0)
            turn_off(s, 1u << id, why);
    }
}

/* The sampling period when the options name none: the shortest the enabled
 * analyses ask for with the watchpoint engine chosen (watch/handler_part.h
 * period_ns). */
static uint64_t period_asked(uint32_t enabled, const wasp_watch_engine *engine)
{
    uint64_t p = 0;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_handler_part *part = wasp_handler_part_of(id);
        if (!(enabled & (1u << id)))
            continue;
        uint64_t asked = part->period_ns ? part->period_ns(engine) : 0;
        asked = asked ? asked : WASP_PERIOD_DEFAULT_NS;
        p = p && p < asked ? p : asked;
    }
    return p ? p : WASP_PERIOD_DEFAULT_NS;
}

/* The analyses' period, once the mechanisms are chosen: the sampler was
 * proved at the common default, and no thread has opened it yet. */
static void take_asked_period(const wasp_session *s)
{
    wasp_source *src = wasp_chosen()->source;
    uint64_t p = period_asked(s->enabled, wasp_chosen()->watch);
    if (src && src->time_based && p != opts.period_ns) {
        opts.period_ns = p;
        wasp_cputime_set_period(src, p);
    }
}

/* Samplers below this period spend more time in the handler than the
 * program runs (about 10 us a sample on a VM): raised, with one log line. */
enum { PERIOD_FLOOR_NS = 100000 };

/* The sampler and, when an analysis of s watches, the watchpoint engine
 * (agent/probe.c sets them, watch/mechanisms.h): each the one the options
 * name or the best that proves itself here. An analysis whose mechanism is
 * missing is turned off with one log line; why[] is set only when nothing
 * can be profiled. Sets s's watch budget. */
static void choose_mechanisms(wasp_session *s, char *why, size_t len)
{
    uint32_t watching = needing_of(s->enabled, WASP_NEEDS_WATCH);
    if (opts.sampler != WASP_SAMPLER_PMU && opts.period_ns < PERIOD_FLOOR_NS) {
        wasp_log("period %llu us is below what the sampler can serve; using %d us",
                 (unsigned long long)(opts.period_ns / 1000), PERIOD_FLOOR_NS / 1000);
        opts.period_ns = PERIOD_FLOOR_NS;
    }
    char passed[1024] = "";
    unsigned wants = 0; /* what the analyses want sampled: a PMU picks its event by it */
    for (int id = 0; id < WASP_ANALYSES; id++)
        if (s->enabled & (1u << id))
            wants |= wasp_handler_part_of(id)->wants;
    if (wasp_probe_source(&opts, wants, passed, sizeof passed, why, len) != 0)
        return;
    if (passed[0])
        wasp_log("sampler: using %s; passed over %s", wasp_chosen()->source->name, passed);
    snprintf(dump_info.sampler_passed_over, sizeof dump_info.sampler_passed_over, "%s", passed);
    if (!watching) /* no watchpoint engine: wasp_probe_source chose none */
        return;
    char wwhy[1024] = "";
    passed[0] = 0;
    if (wasp_probe_watch(&opts, passed, sizeof passed, wwhy, sizeof wwhy) != 0) {
        if (!(s->enabled & ~watching)) {
            snprintf(why, len, "%s", wwhy);
            return;
        }
        turn_off(s, watching, wwhy);
        return;
    }
    const wasp_watch_engine *engine = wasp_chosen()->watch;
    if (passed[0])
        wasp_log("watchpoints: using %s; passed over %s", engine->name, passed);
    snprintf(dump_info.watch_passed_over, sizeof dump_info.watch_passed_over, "%s", passed);
    if (opts.watch_budget < 0)
        opts.watch_budget = engine->default_budget;
    s->watch_budget = opts.watch_budget; /* fill_dump_info records it */
}

/* Everything both entry points do: returns 0 when profiling may start; else
 * why[] says why not (the program runs unprofiled). */
static int setup(JavaVM *vm, char *why, size_t len)
{
    why[0] = 0;
    memset(&dump_info, 0, sizeof dump_info);
    wasp_log_open(opts.log);
    if (enable_jvmti(vm) != 0) {
        snprintf(why, len, "JVMTI unavailable");
        return -1;
    }
    /* The session's settings, published (wasp_session_set) once the
     * analyses that cannot run are turned off and the mechanisms chosen. */
    _Static_assert((int)WASP_CONTEXT_CHOICE_CHAIN == (int)WASP_CONTEXT_CHAIN &&
                       (int)WASP_CONTEXT_CHOICE_CHAIN_CHECK == (int)WASP_CONTEXT_CHAIN_CHECK,
                   "the option's values are the runtime's");
    wasp_session s = {
        .enabled = opts.events & ((1u << WASP_ANALYSES) - 1),
        .float_threshold = opts.float_threshold,
        .max_frames = opts.max_frames,
        .context = (int)opts.context,
        .nslots = (int)opts.watchpoints,
        .agct = (wasp_agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace"),
        .jvm = vm,
    };
    if (!s.agct)
        wasp_log("AsyncGetCallTrace not found: contexts will have no Java frames");
    exact_lines_on(wasp_jvmti);
    char hook_why[256];
    if (wasp_exit_hook_install(on_immediate_exit, hook_why, sizeof hook_why) != 0)
        wasp_log("%s: a JVM that exits at once (-XX:+ExitOnOutOfMemoryError) writes no profile "
                 "(use --snapshot)", hook_why);
    wasp_probe_heap_addresses();
    wasp_sampler_period_reset();
    setup_tracking(&opts, &s);
    setup_parts(&opts, &s);
    wasp_threads_init(&opts, wasp_dump_fold_thread);

    wasp_perf_signal_route_init(opts.signal == WASP_SIGNAL_FASYNC);
    if (wasp_perf_fasync && opts.signal == WASP_SIGNAL_SIGTRAP)
        snprintf(why, len, "signal=sigtrap: this kernel has no perf sigtrap (Linux 5.13+)");
    else if (wasp_perf_fasync)
        wasp_log("perf events signal through F_SETSIG%s",
                 opts.signal == WASP_SIGNAL_FASYNC ? "" : " (this kernel has no perf sigtrap)");
    /* A period the options leave to the analyses is settled once the
     * mechanisms are chosen; the sampler is proved at the common default. */
    int asked = !opts.period_ns;
    if (asked)
        opts.period_ns = WASP_PERIOD_DEFAULT_NS;
    if (!why[0])
        choose_mechanisms(&s, why, len);
    if (asked && !why[0])
        take_asked_period(&s);
    wasp_session_set(&s);
    /* What the last session (wasp attach, detach, attach again) measured of
     * the process is not this one's. */
    wasp_budget_session_start(needing_of(s.enabled, WASP_NEEDS_WATCH));
    wasp_handler_enable(s.enabled);
    if (wasp_pc_hist_init(WASP_CPU_PC_SLOTS) != 0)
        wasp_log("out of memory for the CPU samples' table: the summary's CPU shares are "
                 "estimates");
    fill_dump_info(&opts);
    if (why[0]) {
        snprintf(dump_info.disabled_reason, sizeof dump_info.disabled_reason, "%s", why);
        return -1;
    }
    return 0;
}

/* Options that only an attach acts on, given at start-up (-agentpath; wasp
 * run refuses them): said once, then ignored, not refused, as one agent
 * string may serve both. */
static void note_attach_only_options(void)
{
    if (opts.recompile)
        wasp_log("recompile=1 is for an attach (wasp attach --recompile): at start-up the JIT "
                 "has compiled nothing yet, and what it compiles has exact lines; ignored");
    if (opts.track_existing)
        wasp_log("track-existing=1 is for an attach (wasp attach --track-existing): at "
                 "start-up there are no objects yet, and each is tracked as it is made; ignored");
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    char err[1024];
    if (wasp_options_parse(options, &opts, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return JNI_ERR; /* the JVM stops here: never half-profiled */
    }
    if (opts.action != WASP_ACTION_START) {
        fprintf(stderr, "wasp: action=%s is for an agent loaded into a running JVM "
                        "(wasp %s)\n",
                opts.action == WASP_ACTION_STOP ? "stop" : "dump",
                opts.action == WASP_ACTION_STOP ? "detach" : "dump");
        return JNI_ERR;
    }
    active = 1;
    char why[512];
    if (setup(vm, why, sizeof why) != 0) {
        wasp_log("%s. The program runs without profiling.", why);
        return JNI_OK; /* still writes a profile that says why it is empty */
    }
    note_attach_only_options();
    wasp_sampling_set(true);
    return JNI_OK;
}

/* wasp attach / wasp detach: loaded (again) into a running JVM. Returns 0 on
 * success; the attach reply carries a non-zero code: a refusal the client
 * words itself (common/attach_refusal.h), else JNI_ERR and the log says why. */
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    char err[1024];
    wasp_options o;
    if (wasp_options_parse(options, &o, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return JNI_ERR;
    }
    if (o.action == WASP_ACTION_STOP) {
        if (!active || !attached) {
            wasp_log_to(o.log, active ? "detach: this JVM was started with wasp: its profile "
                                        "ends with it"
                                      : "detach: this JVM is not being profiled by wasp");
            return active ? WASP_REFUSED_STARTED_WITH_JVM : WASP_REFUSED_NOT_PROFILED;
        }
        /* wasp detach names the log it will print; a stop without log= keeps
         * the session's log rather than falling back to stderr. */
        if (strcmp(o.log, "stderr") != 0)
            wasp_log_open(o.log);
        JNIEnv *env = NULL;
        if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
            env = NULL;
        /* The attach listener never returns to Java: the write's local
         * references go with this frame. */
        int framed = env && (*env)->PushLocalFrame(env, 64) == 0;
        stop_and_write(wasp_jvmti, env, "wasp detach");
        if (framed)
            (*env)->PopLocalFrame(env, NULL);
        /* What the session freed goes back to the system, not to malloc's
         * arenas, where it would stay in the JVM's memory (bench/attach_rss.py). */
        malloc_trim(0);
        wasp_log("detached; the JVM runs on unprofiled");
        return JNI_OK;
    }
    if (o.action == WASP_ACTION_DUMP) {
        if (!active) {
            wasp_log_to(o.log, "dump: this JVM is not being profiled by wasp");
            return WASP_REFUSED_NOT_PROFILED;
        }
        JNIEnv *env = NULL;
        if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
            env = NULL;
        /* The session keeps its own log; wasp dump reads what it was told here. */
        const char *path = o.file[0] ? o.file : dump_info.path;
        int framed = env && (*env)->PushLocalFrame(env, 64) == 0; /* as at detach */
        int rc = write_snapshot(wasp_jvmti, env, &(wasp_dump_how){.path = path, .quiet = 1});
        if (framed)
            (*env)->PopLocalFrame(env, NULL);
        char msg[WASP_PATH_MAX + 128];
        snprintf(msg, sizeof msg,
                 rc == 0 ? "dump: the profile so far is in %s; profiling goes on"
                         : "dump: could not write %s (the session's log says why)",
                 path);
        wasp_log_to(o.log, msg);
        return rc == 0 ? JNI_OK : JNI_ERR;
    }
    if (active) {
        wasp_log_to(o.log, "attach: this JVM is already being profiled by wasp");
        return WASP_REFUSED_ALREADY_PROFILED;
    }
    opts = o;
    char why[512];
    if (setup(vm, why, sizeof why) != 0) {
        exact_lines_off(); /* the JVM as it was */
        wasp_log("%s. Nothing is profiled.", why);
        return JNI_ERR;
    }
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK || !env) {
        exact_lines_off();
        wasp_log("attach: no JNI environment on the attach thread. Nothing is profiled.");
        return JNI_ERR;
    }
    active = attached = 1;
    dumped = 0;
    wasp_sampling_set(true);
    start_live(wasp_jvmti, env);
    if (wasp_objects.on && opts.track_existing) {
        char how[160];
        long found = wasp_census_run(wasp_jvmti, env, how, sizeof how);
        if (found < 0)
            wasp_log("objects already in the heap are not tracked: %s", how);
        else
            wasp_log("tracking %ld objects already in the heap (of at least %u bytes; %s)", found,
                     (unsigned)opts.min_size, how);
    }
    if (opts.recompile)
        recompile(env);
    int n = wasp_threads_adopt_existing(wasp_jvmti, env);
    wasp_log("attached: profiling %d running threads and those started from now on; "
             "the profile goes to %s", n, dump_info.path);
    wasp_progress_start(dump_info.path);
    return JNI_OK;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    (void)vm;
    wasp_sampling_set(false);
    wasp_log_close();
}
