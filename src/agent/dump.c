/*
 * Writing the profile: every thread's records (sampling stopped first) are
 * turned into one wasp_profile — jmethodIDs resolved to names and lines, leaf
 * instructions formatted, native leaves named by symbol — and written
 * atomically. Not async-signal-safe; runs once, at the end of the run.
 */
#include "agent/dump.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/alloc.h"
#include "agent/jvm.h"
#include "agent/log.h"
#include "agent/threads.h"
#include "isa/isa.h"
#include "watch/engine.h"
#include "watch/handler.h"
#include "watch/runtime.h"

/* jmethodID -> resolved names, so each method is asked about once. */
typedef struct method_entry {
    void *method;
    uint32_t name, file;
} method_entry;

typedef struct method_cache {
    method_entry *e;
    size_t cap, n;
} method_cache;

static method_entry *method_lookup(method_cache *c, wasp_profile *p, void *m)
{
    if (c->n * 2 >= c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 1024;
        method_entry *e = calloc(cap, sizeof *e);
        if (!e)
            return NULL;
        for (size_t i = 0; i < c->cap; i++) {
            if (!c->e[i].method)
                continue;
            size_t j = ((uintptr_t)c->e[i].method >> 3) & (cap - 1);
            while (e[j].method)
                j = (j + 1) & (cap - 1);
            e[j] = c->e[i];
        }
        free(c->e);
        c->e = e;
        c->cap = cap;
    }
    size_t j = ((uintptr_t)m >> 3) & (c->cap - 1);
    while (c->e[j].method && c->e[j].method != m)
        j = (j + 1) & (c->cap - 1);
    if (!c->e[j].method) {
        char name[1024], file[512];
        wasp_jvm_method_names((jmethodID)m, name, sizeof name, file, sizeof file);
        c->e[j].method = m;
        c->e[j].name = wasp_profile_intern_string(p, name);
        c->e[j].file = file[0] ? wasp_profile_intern_string(p, file) : 0;
        c->n++;
    }
    return &c->e[j];
}

static const char *agct_reason(int status)
{
    switch (status) {
    case 0: return "no Java frames (thread in native or VM code)";
    case -1: return "class loading events not enabled";
    case -2: return "garbage collection in progress";
    case -3: return "unknown frame, not Java";
    case -4: return "stack not walkable, not Java";
    case -5: return "unknown Java frame";
    case -6: return "stack not walkable";
    case -7: return "unknown thread state";
    case -8: return "deoptimization in progress";
    case -9: return "at a safepoint";
    case -100: return "no stack walker (AsyncGetCallTrace unavailable)";
    default: return "stack walk failed";
    }
}

/* A frame for a leaf PC outside Java code: a native symbol or a JVM stub. */
static int leaf_native_frame(wasp_profile *p, uint64_t pc, wasp_frame *f)
{
    char buf[512];
    Dl_info info;
    if (dladdr((void *)(uintptr_t)pc, &info) && info.dli_fname) {
        const char *lib = strrchr(info.dli_fname, '/');
        lib = lib ? lib + 1 : info.dli_fname;
        if (info.dli_sname)
            snprintf(buf, sizeof buf, "%s", info.dli_sname);
        else /* a hidden symbol: the offset still lets addr2line name it */
            snprintf(buf, sizeof buf, "+0x%llx",
                     (unsigned long long)(pc - (uint64_t)(uintptr_t)info.dli_fbase));
        f->kind = WASP_FRAME_NATIVE;
        f->name = wasp_profile_intern_string(p, buf);
        f->file = wasp_profile_intern_string(p, lib);
        f->line = -1;
        return 1;
    }
    const char *stub = wasp_jvm_code_name(pc);
    if (stub && strcmp(stub, "Interpreter") != 0) {
        f->kind = WASP_FRAME_STUB;
        f->name = wasp_profile_intern_string(p, stub);
        f->file = 0;
        f->line = -1;
        return 1;
    }
    return 0;
}

/* Java frames (captured leaf first) as profile frame ids, root first, into
 * ids; a failed walk (status) becomes one explanatory frame. Returns the count. */
static uint32_t java_frames(wasp_profile *p, method_cache *mc, const wasp_rframe *frames,
                            uint32_t nframes, int status, uint32_t *ids, uint32_t cap)
{
    uint32_t n = 0;
    if (nframes == 0) {
        char buf[160];
        snprintf(buf, sizeof buf, "[stack unavailable: %s]", agct_reason(status));
        wasp_frame f = {.kind = WASP_FRAME_UNKNOWN, .name = wasp_profile_intern_string(p, buf),
                        .file = 0, .line = -1};
        ids[n++] = wasp_profile_intern_frame(p, &f);
        return n;
    }
    for (int i = (int)nframes - 1; i >= 0 && n < cap; i--) {
        const wasp_rframe *rf = &frames[i];
        method_entry *m = method_lookup(mc, p, rf->method);
        wasp_frame f = {.kind = WASP_FRAME_JAVA, .name = m ? m->name : 0,
                        .file = m ? m->file : 0,
                        .line = wasp_jvm_line((jmethodID)rf->method, rf->bci)};
        ids[n++] = wasp_profile_intern_frame(p, &f);
    }
    return n;
}

static uint32_t convert_context(wasp_profile *p, method_cache *mc, const wasp_records *r,
                                uint32_t id)
{
    const wasp_rcontext *c = &r->contexts[id - 1];
    uint32_t ids[4096];
    const wasp_rtrace *t = c->trace != UINT32_MAX ? &r->traces[c->trace - 1] : NULL;
    uint32_t n = t ? java_frames(p, mc, &r->frames[t->first], t->nframes, t->status, ids, 4095)
                   : java_frames(p, mc, NULL, 0, -100, ids, 4095);
    wasp_frame leaf;
    if (leaf_native_frame(p, c->pc, &leaf))
        ids[n++] = wasp_profile_intern_frame(p, &leaf);
    /* The instruction without its address: the same access in another
     * compiled copy of the method is the same context to a developer. */
    char text[160];
    uint32_t insn = 0;
    if (c->insn_len && wasp_isa_format_att(c->insn, c->insn_len, c->pc, text, sizeof text))
        insn = wasp_profile_intern_string(p, text);
    return wasp_profile_intern_context(p, ids, n, insn);
}

/* The profile site of allocation site id (allocation contexts have no
 * instruction: JVMTI reports bytecode positions). */
static uint32_t convert_site(wasp_profile *p, method_cache *mc, const wasp_alloc_site *s)
{
    uint32_t ids[4096];
    uint32_t n;
    if (s->before_attach) {
        wasp_frame f = {.kind = WASP_FRAME_UNKNOWN,
                        .name = wasp_profile_intern_string(
                            p, "[in the heap when wasp attached: allocation path unknown]"),
                        .file = 0, .line = -1};
        ids[0] = wasp_profile_intern_frame(p, &f);
        n = 1;
    } else {
        n = java_frames(p, mc, s->frames, s->nframes, 0, ids, 4096);
    }
    uint32_t ctx = wasp_profile_intern_context(p, ids, n, 0);
    return wasp_profile_intern_site(p, ctx, wasp_profile_intern_string(p, s->class_name));
}

static void add_thread(wasp_profile *p, method_cache *mc, const wasp_thread *t)
{
    const wasp_records *r = &t->rec;
    for (uint32_t i = 0; i < r->cap_pairs && r->npairs; i++) {
        const wasp_rpair *rp = &r->pairs[i];
        if (!rp->watch_ctx)
            continue;
        uint32_t w = convert_context(p, mc, r, rp->watch_ctx);
        uint32_t tr = convert_context(p, mc, r, rp->trap_ctx);
        wasp_profile_add_pair(p, (wasp_analysis)rp->analysis, rp->flags, w, tr, rp->bytes,
                              rp->count);
    }
    for (uint32_t i = 0; i < r->cap_accesses && r->naccesses; i++) {
        const wasp_raccess *ra = &r->accesses[i];
        wasp_alloc_site site;
        if (!ra->site || wasp_alloc_site_get(ra->site - 1, &site) != 0)
            continue;
        uint32_t ps = convert_site(p, mc, &site);
        uint32_t ctx = convert_context(p, mc, r, ra->access_ctx);
        wasp_profile_add_site_access(p, ps, ctx, ra->samples, ra->remote);
    }
    for (uint32_t i = 0; i < r->cap_replicas && r->nreplicas; i++) {
        const wasp_raccess *rr = &r->replicas[i];
        wasp_alloc_site site;
        if (!rr->site || wasp_alloc_site_get(rr->site - 1, &site) != 0)
            continue;
        uint32_t ps = convert_site(p, mc, &site);
        uint32_t ctx = convert_context(p, mc, r, rr->access_ctx);
        wasp_profile_add_replica(p, ps, ctx, rr->samples, rr->remote);
    }
    for (int a = 0; a < WASP_AN_COUNT; a++)
        wasp_profile_add_totals(p, (wasp_analysis)a, &r->totals[a]);
    for (int c = 0; c < WASP_C_COUNT; c++)
        if (r->counters[c])
            wasp_profile_add_counter(p, wasp_counter_name((wasp_counter_id)c), r->counters[c]);
}

static void set_meta_num(wasp_profile *p, const char *key, double v, const char *fmt)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    wasp_profile_set_meta(p, key, buf);
}

struct site_visit {
    wasp_profile *p;
    method_cache mc;
};

static void add_site_allocs(uint32_t id, const wasp_alloc_site *s, void *arg)
{
    (void)id;
    struct site_visit *v = arg;
    wasp_profile_add_site_allocs(v->p, convert_site(v->p, &v->mc, s), s->allocations, s->bytes);
}

/* Everything gathered so far: threads fold in here when they end (so their
 * tables can be freed) and the live ones when the profile is written. */
static struct {
    pthread_mutex_t lock;
    wasp_profile *profile;
    method_cache methods;
    uint32_t threads, busy;
    double cpu;
} acc = {.lock = PTHREAD_MUTEX_INITIALIZER};

void wasp_dump_fold_thread(const wasp_thread *t)
{
    if (!t->rec.pairs)
        return;
    double s = wasp_thread_cpu_seconds(t);
    pthread_mutex_lock(&acc.lock);
    if (!acc.profile)
        acc.profile = wasp_profile_new();
    if (acc.profile) {
        add_thread(acc.profile, &acc.methods, t);
        acc.threads++;
        acc.cpu += s;
        acc.busy += s >= 0.1;
    }
    pthread_mutex_unlock(&acc.lock);
}

/* Which watchpoint engine ran, what it cost, and what it passed over. */
static void add_watch_meta(wasp_profile *p, const wasp_dump_info *info)
{
    if (info->watch_passed_over[0])
        wasp_profile_set_meta(p, "watch_passed_over", info->watch_passed_over);
    if (!wasp_rt.watch)
        return;
    wasp_profile_set_meta(p, "watch", wasp_rt.watch->name);
    wasp_profile_set_meta(p, "watch_detail", wasp_rt.watch->what);
    set_meta_num(p, "watch_budget", info->watch_budget, "%g");
    set_meta_num(p, "watch_event_us", (double)wasp_rt.watch_event_ns / 1000.0, "%.1f");
    if (wasp_rt.watch == &wasp_page_engine) {
        wasp_page_stats st;
        wasp_page_stats_get(&st);
        wasp_profile_add_counter(p, "watch.faults", st.faults);
        wasp_profile_add_counter(p, "watch.stepped_over", st.stepped);
        wasp_profile_add_counter(p, "watch.emulated", st.emulated);
        wasp_profile_add_counter(p, "watch.foreign_faults", st.foreign);
        wasp_profile_add_counter(p, "watch.pages_released", st.released);
        wasp_profile_add_counter(p, "watch.protect_failed", st.protect_failed);
        set_meta_num(p, "watch_emulated_us", (double)st.cost_emulated_ns / 1000.0, "%.1f");
        set_meta_num(p, "watch_stepped_us", (double)st.cost_stepped_ns / 1000.0, "%.1f");
    }
}

int wasp_dump_write(const wasp_dump_info *info)
{
    wasp_threads_stop_all(wasp_dump_fold_thread);
    pthread_mutex_lock(&acc.lock);
    wasp_profile *p = acc.profile ? acc.profile : wasp_profile_new();
    acc.profile = NULL;
    uint32_t profiled = acc.threads, busy = acc.busy;
    double cpu = acc.cpu;
    free(acc.methods.e);
    memset(&acc.methods, 0, sizeof acc.methods);
    pthread_mutex_unlock(&acc.lock);
    if (!p)
        return -1;
    /* The core counters are always there, zero included: "0 samples" says
     * something a missing counter does not. */
    static const wasp_counter_id core[] = {WASP_C_SAMPLES, WASP_C_SAMPLES_MEMORY, WASP_C_ARMED,
                                           WASP_C_TRAPPED, WASP_C_CLASSIFIED};
    for (size_t i = 0; i < sizeof core / sizeof core[0]; i++)
        wasp_profile_add_counter(p, wasp_counter_name(core[i]), 0);

    if (wasp_rt.tracking || wasp_profile_get_counter(p, "objects.samples")) {
        struct site_visit v = {.p = p, .mc = {0}};
        wasp_alloc_each_site(add_site_allocs, &v);
        free(v.mc.e);
        static const wasp_counter_id obj[] = {WASP_C_OBJ_SAMPLES, WASP_C_OBJ_UNATTRIBUTED,
                                              WASP_C_OBJ_STALE};
        for (size_t i = 0; i < sizeof obj / sizeof obj[0]; i++)
            wasp_profile_add_counter(p, wasp_counter_name(obj[i]), 0);
        wasp_profile_add_counter(p, "objects.alloc_events", wasp_alloc_events());
        wasp_profile_set_meta(p, "objects.metric",
                              wasp_rt.source == &wasp_pmu_source
                                  ? wasp_rt.source->detail
                                  : "software address samples weighted by thread CPU time");
        set_meta_num(p, "objects.min_size", info->min_size, "%.0f");
        set_meta_num(p, "objects.sampling_interval", info->alloc_interval, "%.0f");
        if (wasp_alloc_max_interval() > info->alloc_interval)
            set_meta_num(p, "objects.sampling_interval_max", (double)wasp_alloc_max_interval(),
                         "%.0f");
        set_meta_num(p, "numa_nodes", wasp_rt.numa_nodes > 0 ? wasp_rt.numa_nodes : 1, "%.0f");
        uint32_t nchecks;
        const wasp_alloc_check *checks = wasp_alloc_checks(&nchecks);
        method_cache mc = {0};
        for (uint32_t i = 0; i < nchecks; i++) {
            wasp_alloc_site site;
            if (wasp_alloc_site_get(checks[i].site, &site) != 0 || checks[i].pairs == 0)
                continue;
            wasp_replica_check c = {.site = convert_site(p, &mc, &site),
                                    .pairs = checks[i].pairs,
                                    .identical = checks[i].identical,
                                    .alpha = checks[i].alpha,
                                    .false_positive = checks[i].false_positive};
            wasp_profile_set_replica_check(p, &c);
        }
        free(mc.e);
    }
    wasp_profile_set_meta(p, "events", info->events);
    wasp_profile_set_meta(p, "sampler", info->sampler);
    wasp_profile_set_meta(p, "sampler_detail", info->sampler_detail);
    wasp_profile_set_meta(p, "period", info->period);
    if (info->sampler_passed_over[0])
        wasp_profile_set_meta(p, "sampler_passed_over", info->sampler_passed_over);
    uint64_t raised = wasp_handler_max_period();
    if (raised > info->period_ns && wasp_rt.source != &wasp_pmu_source)
        set_meta_num(p, "period_max_us", (double)raised / 1000.0, "%.0f");
    add_watch_meta(p, info);
    if (info->disabled_reason[0])
        wasp_profile_set_meta(p, "disabled_reason", info->disabled_reason);
    wasp_profile_set_meta(p, "java_command", wasp_jvm_property("sun.java.command", "?"));
    char jvm[512];
    snprintf(jvm, sizeof jvm, "%s %s", wasp_jvm_property("java.vm.name", "?"),
             wasp_jvm_property("java.vm.version", "?"));
    wasp_profile_set_meta(p, "jvm", jvm);
    set_meta_num(p, "pid", (double)getpid(), "%.0f");
    double wall = (double)(time(NULL) - info->start_time);
    set_meta_num(p, "duration_seconds", wall, "%.0f");
    set_meta_num(p, "threads", profiled, "%.0f");
    set_meta_num(p, "busy_threads", busy, "%.0f");
    set_meta_num(p, "cpu_seconds", cpu, "%.3f");
    uint64_t samples = wasp_profile_get_counter(p, "samples");
    uint64_t classified = wasp_profile_get_counter(p, "classified");
    if (cpu > 0) {
        set_meta_num(p, "samples_per_second", (double)samples / cpu, "%.1f");
        set_meta_num(p, "classified_per_cpu_second", (double)classified / cpu, "%.1f");
    }
    char err[512];
    int rc = wasp_profile_write(p, info->path, err, sizeof err);
    if (rc == 0)
        wasp_log("profile written to %s (%u threads, %llu samples, %llu pairs classified)",
                 info->path, profiled, (unsigned long long)samples,
                 (unsigned long long)classified);
    else
        wasp_log("could not write the profile: %s", err);
    wasp_profile_free(p);
    return rc;
}
