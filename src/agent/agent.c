/*
 * The JVMTI agent's lifecycle: options, capabilities and events, choosing
 * the address source, starting and stopping threads, GC epochs, and writing
 * the profile when the VM dies (normal exit, System.exit, SIGTERM/SIGINT).
 *
 * Failures never take the JVM down: bad options stop the JVM before it runs
 * (one message naming the option); a machine that refuses perf events runs
 * the program unprofiled with one message saying what is missing.
 * Not async-signal-safe (JVMTI callbacks only).
 */
#include <dlfcn.h>
#include <errno.h>
#include <jvmti.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/dump.h"
#include "agent/jvm.h"
#include "agent/log.h"
#include "agent/options.h"
#include "agent/threads.h"
#include "agent/vmflags.h"
#include "isa/isa.h"
#include "sample/signal.h"
#include "watch/handler.h"
#include "watch/runtime.h"

static wasp_options opts;
static wasp_dump_info dump_info;
static int dumped;

static void JNICALL on_gc_start(jvmtiEnv *jvmti)
{
    (void)jvmti;
    __atomic_add_fetch(&wasp_rt.epoch, 1, __ATOMIC_RELEASE);
}

static void JNICALL on_gc_finish(jvmtiEnv *jvmti)
{
    (void)jvmti;
    __atomic_add_fetch(&wasp_rt.epoch, 1, __ATOMIC_RELEASE);
}

static void JNICALL on_class_load(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass)
{
    /* Enabled only because AsyncGetCallTrace needs it. */
    (void)jvmti, (void)env, (void)thread, (void)klass;
}

static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass)
{
    (void)env, (void)thread;
    wasp_jvm_prepare_class(jvmti, klass);
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
    wasp_thread_begin(env, named && info.name ? info.name : "?");
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

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    wasp_jvm_prepare_loaded_classes(jvmti, env);
    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL);
    begin_thread(jvmti, env, thread);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *env)
{
    (void)jvmti, (void)env;
    if (__atomic_exchange_n(&dumped, 1, __ATOMIC_ACQ_REL))
        return;
    __atomic_store_n(&wasp_rt.sampling, 0, __ATOMIC_RELEASE);
    wasp_dump_write(&dump_info);
}

static void events_string(uint32_t events, char *buf, size_t len)
{
    buf[0] = 0;
    for (int a = 0; a < WASP_AN_COUNT; a++) {
        if (!(events & (1u << a)))
            continue;
        if (buf[0])
            strncat(buf, "+", len - strlen(buf) - 1);
        strncat(buf, wasp_analysis_name((wasp_analysis)a), len - strlen(buf) - 1);
    }
}

static void setup_clients(const wasp_options *o)
{
    for (int a = 0; a < WASP_AN_COUNT; a++) {
        if (!(o->events & (1u << a)))
            continue;
        const wasp_analysis_client *c = wasp_analysis_client_for((wasp_analysis)a);
        if (c->samples & WASP_ACCESS_STORE)
            wasp_rt.store_clients[wasp_rt.nstore_clients++] = c;
        else
            wasp_rt.load_clients[wasp_rt.nload_clients++] = c;
    }
}

/* Can this thread open the events every profiled thread needs? */
static int probe_perf(char *why, size_t len)
{
    static uint64_t target;
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_BREAKPOINT;
    a.size = sizeof a;
    a.bp_type = HW_BREAKPOINT_W;
    a.bp_addr = (uint64_t)(uintptr_t)&target;
    a.bp_len = 8;
    a.sample_period = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    wasp_perf_signal_attr(&a, 0);
    int fd = wasp_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    int err = errno, paranoid = -1;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &paranoid) != 1)
            paranoid = -1;
        fclose(f);
    }
    const char *what;
    if ((err == EACCES || err == EPERM) && paranoid > 2)
        what = "forbidden by kernel.perf_event_paranoid: set it to 2 or lower "
               "(sysctl -w kernel.perf_event_paranoid=2) or grant the JVM CAP_PERFMON";
    else if (err == EACCES || err == EPERM)
        what = "denied although kernel.perf_event_paranoid allows it: a seccomp filter (as in "
               "containers) or a security module blocks perf_event_open; allow it";
    else if (err == ENOSYS)
        what = "this kernel has no perf events (CONFIG_PERF_EVENTS)";
    else if (err == ENOSPC || err == EBUSY)
        what = "every debug register is taken (is a debugger attached?)";
    else
        what = "this machine exposes no usable hardware debug registers (some hypervisors hide "
               "them), or the kernel predates Linux 5.13's perf sigtrap";
    snprintf(why, len, "cannot use hardware watchpoints (perf_event_open: %s; "
             "kernel.perf_event_paranoid=%d): %s", strerror(err), paranoid, what);
    return -1;
}

static int choose_source(const wasp_options *o, char *why, size_t len)
{
    char err[256] = "";
    if (o->sampler != WASP_SAMPLER_SOFT) {
        if (wasp_pmu_available() || o->pmu_event[0]) {
            if (wasp_pmu_source.init(&wasp_pmu_source, o, err, sizeof err) == 0) {
                wasp_rt.source = &wasp_pmu_source;
                return 0;
            }
            if (o->sampler == WASP_SAMPLER_PMU) {
                snprintf(why, len, "sampler=pmu: %s", err);
                return -1;
            }
            wasp_log("PMU unusable (%s); using the software sampler", err);
        } else if (o->sampler == WASP_SAMPLER_PMU) {
            snprintf(why, len,
                     "sampler=pmu: this machine has no hardware PMU (no cpu event source in "
                     "/sys/bus/event_source/devices); use sampler=soft or auto");
            return -1;
        }
    }
    wasp_soft_source.init(&wasp_soft_source, o, err, sizeof err);
    wasp_rt.source = &wasp_soft_source;
    return 0;
}

static void fill_dump_info(const wasp_options *o)
{
    dump_info.start_time = time(NULL);
    if (o->file[0])
        snprintf(dump_info.path, sizeof dump_info.path, "%s", o->file);
    else
        snprintf(dump_info.path, sizeof dump_info.path, "wasp-%d.wprof", (int)getpid());
    events_string(o->events, dump_info.events, sizeof dump_info.events);
    if (wasp_rt.source == &wasp_pmu_source)
        snprintf(dump_info.period, sizeof dump_info.period, "%llu events",
                 (unsigned long long)o->pmu_period);
    else
        snprintf(dump_info.period, sizeof dump_info.period, "%llu us CPU",
                 (unsigned long long)(o->period_ns / 1000));
    if (wasp_rt.source) {
        snprintf(dump_info.sampler, sizeof dump_info.sampler, "%s", wasp_rt.source->name);
        snprintf(dump_info.sampler_detail, sizeof dump_info.sampler_detail, "%s",
                 wasp_rt.source->detail);
    }
}

static int enable_jvmti(JavaVM *vm)
{
    jvmtiEnv *jvmti = NULL;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK || !jvmti)
        return -1;
    wasp_jvmti = jvmti;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_get_line_numbers = 1;
    caps.can_get_source_file_name = 1;
    caps.can_generate_garbage_collection_events = 1;
    /* Also makes HotSpot keep debug info at non-safepoint PCs, so samples in
     * JIT code map to their own line (DebugNonSafepoints). */
    caps.can_generate_compiled_method_load_events = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE)
        return -1;
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
    if ((*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE)
        return -1;
    static const jvmtiEvent events[] = {
        JVMTI_EVENT_VM_INIT,        JVMTI_EVENT_VM_DEATH,
        JVMTI_EVENT_CLASS_LOAD,     JVMTI_EVENT_CLASS_PREPARE,
        JVMTI_EVENT_DYNAMIC_CODE_GENERATED,
        JVMTI_EVENT_GARBAGE_COLLECTION_START, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH,
    };
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL);
    return 0;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    char err[1024];
    if (wasp_options_parse(options, &opts, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return JNI_ERR; /* the JVM stops here: never half-profiled */
    }
    wasp_log_open(opts.log);
    if (enable_jvmti(vm) != 0) {
        wasp_log("JVMTI unavailable: this JVM is not profiled");
        return JNI_OK;
    }
    wasp_rt.float_threshold = opts.float_threshold;
    wasp_rt.max_frames = opts.max_frames;
    wasp_rt.nslots = (int)opts.watchpoints;
    wasp_rt.agct = (wasp_agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    if (!wasp_rt.agct)
        wasp_log("AsyncGetCallTrace not found: contexts will have no Java frames");
    if (wasp_vm_set_bool_flag("DebugNonSafepoints", 1) != 0)
        wasp_log("cannot turn on DebugNonSafepoints: lines in JIT code may be off by a few; "
                 "add -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints");
    setup_clients(&opts);
    wasp_threads_init(&opts);

    char why[512] = "";
    wasp_perf_signal_route_init(opts.signal == WASP_SIGNAL_FASYNC);
    if (wasp_perf_fasync && opts.signal == WASP_SIGNAL_SIGTRAP)
        snprintf(why, sizeof why, "signal=sigtrap: this kernel has no perf sigtrap (Linux 5.13+)");
    else if (wasp_perf_fasync)
        wasp_log("perf events signal through F_SETSIG%s",
                 opts.signal == WASP_SIGNAL_FASYNC ? "" : " (this kernel has no perf sigtrap)");
    if (!why[0] && choose_source(&opts, why, sizeof why) == 0 && probe_perf(why, sizeof why) == 0 &&
        wasp_handler_install() != 0)
        snprintf(why, sizeof why, "cannot install the SIGTRAP handler: %m");
    fill_dump_info(&opts);
    if (why[0]) {
        snprintf(dump_info.disabled_reason, sizeof dump_info.disabled_reason, "%s", why);
        wasp_log("%s. The program runs without profiling.", why);
        return JNI_OK;
    }
    __atomic_store_n(&wasp_rt.sampling, 1, __ATOMIC_RELEASE);
    return JNI_OK;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    (void)vm;
    __atomic_store_n(&wasp_rt.sampling, 0, __ATOMIC_RELEASE);
    wasp_log_close();
}
