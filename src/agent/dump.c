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
#include <sys/random.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent_part.h"
#include "agent/alloc.h"
#include "agent/chain_dump.h"
#include "agent/code_map_load.h"
#include "agent/fd_budget.h"
#include "agent/java_names.h"
#include "agent/jvm.h"
#include "agent/log.h"
#include "agent/native_symbols.h"
#include "agent/threads.h"
#include "agent/cpu_lines_dump.h"
#include "profile/group.h"
#include "profile/thread_frame.h"
#include "watch/handler_part.h"
#include "heap/class_site.h"
#include "heap/klass_set.h"
#include "isa/isa.h"
#include "watch/engine.h"
#include "watch/handler.h"
#include "watch/sampler_period.h"
#include "watch/mechanisms.h"
#include "watch/session.h"

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

/* A context whose stack found no room in its thread's records: not a failed
 * walk (a real program's stacks once filled the table within seconds, and
 * its samples showed as "no stack walker" at the top of every analysis). */
enum { NOT_RECORDED = -101 };

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
    case -8: return "thread exiting";
    case -9: return "deoptimization in progress";
    case -10: return "at a safepoint";
    case -100: return "no stack walker (AsyncGetCallTrace unavailable)";
    case NOT_RECORDED: return "not recorded: the thread's table of stacks was full (dropped.table_full)";
    default: return "stack walk failed";
    }
}

/* The libraries' symbols, read when a native leaf is first named and again
 * (a few times at most: each read opens every library) when a PC lies in a
 * library mapped since, such as a JNI library loaded late. */
static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;
static wasp_native_symbols *symbols;
static int symbol_reads;

static int reread_symbols(void)
{
    if (symbol_reads >= 8)
        return 0;
    symbol_reads++;
    wasp_native_symbols_close(symbols);
    symbols = wasp_native_symbols_open();
    return symbols != NULL;
}

/* Exported symbols only: when elfutils cannot read the library. */
static void dladdr_name(const Dl_info *info, uint64_t pc, char *name, size_t namelen, char *lib,
                        size_t liblen)
{
    const char *slash = strrchr(info->dli_fname, '/');
    snprintf(lib, liblen, "%s", slash ? slash + 1 : info->dli_fname);
    if (info->dli_sname)
        snprintf(name, namelen, "%s", info->dli_sname);
    else
        snprintf(name, namelen, "+0x%llx",
                 (unsigned long long)(pc - (uint64_t)(uintptr_t)info->dli_fbase));
}

/* Function and library of a PC in a mapped library; 0 for JIT code and stubs. */
static int native_name(uint64_t pc, char *name, size_t namelen, char *lib, size_t liblen)
{
    pthread_mutex_lock(&symbols_lock);
    if (!symbols)
        reread_symbols();
    int found = wasp_native_symbols_name(symbols, pc, name, namelen, lib, liblen);
    Dl_info info;
    if (!found && dladdr((void *)(uintptr_t)pc, &info) && info.dli_fname) {
        if (reread_symbols())
            found = wasp_native_symbols_name(symbols, pc, name, namelen, lib, liblen);
        if (!found) {
            dladdr_name(&info, pc, name, namelen, lib, liblen);
            found = 1;
        }
    }
    pthread_mutex_unlock(&symbols_lock);
    return found;
}

/* A frame for a leaf PC outside Java code: a native function (by its ELF
 * symbol, hidden ones too) or a JVM stub. */
static int leaf_native_frame(wasp_profile *p, uint64_t pc, wasp_frame *f)
{
    char name[512], lib[256];
    if (native_name(pc, name, sizeof name, lib, sizeof lib)) {
        f->kind = WASP_FRAME_NATIVE;
        f->name = wasp_profile_intern_string(p, name);
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

/* A Java frame, interned. */
static uint32_t java_frame(wasp_profile *p, method_cache *mc, void *method, int32_t bci)
{
    method_entry *m = method_lookup(mc, p, method);
    wasp_frame f = {.kind = WASP_FRAME_JAVA, .name = m ? m->name : 0, .file = m ? m->file : 0,
                    .line = wasp_jvm_line((jmethodID)method, bci)};
    return wasp_profile_intern_frame(p, &f);
}

/* Java frames (captured leaf first; native frames below them among them) as
 * profile frame ids, root first, into ids; a failed walk (status) becomes
 * one explanatory frame. Returns the count. */
static uint32_t java_frames(wasp_profile *p, method_cache *mc, const wasp_rframe *frames,
                            uint32_t nframes, int status, uint32_t *ids, uint32_t cap)
{
    uint32_t n = 0;
    if (nframes == 0) {
        char buf[160];
        snprintf(buf, sizeof buf, WASP_UNWALKED_PREFIX ": %s]", agct_reason(status));
        wasp_frame f = {.kind = WASP_FRAME_UNKNOWN, .name = wasp_profile_intern_string(p, buf),
                        .file = 0, .line = -1};
        ids[n++] = wasp_profile_intern_frame(p, &f);
        return n;
    }
    for (int i = (int)nframes - 1; i >= 0 && n < cap; i--) {
        const wasp_rframe *rf = &frames[i];
        if (rf->bci == WASP_RFRAME_CALLER_AT)
            continue; /* read with the frame it places, next */
        if (rf->bci < 0 && i > 0 && frames[i - 1].bci == WASP_RFRAME_CALLER_AT) {
            /* A stub's caller the walk named without a position: the call
             * as the method's debug records place it (watch/context.c). */
            enum { INLINED_MAX = 64 };
            wasp_rframe at[INLINED_MAX];
            int k = wasp_code_map_caller_frames(
                (jmethodID)rf->method, (uint64_t)(uintptr_t)frames[i - 1].method, at, INLINED_MAX);
            for (int j = k - 1; j >= 0 && n < cap; j--)
                ids[n++] = java_frame(p, mc, at[j].method, at[j].bci);
            if (k > 0)
                continue;
        }
        if (rf->bci == WASP_RFRAME_NATIVE) {
            /* A return address: the call is the instruction before it. One
             * that names no function (a frame pointer chain gone astray)
             * is left out. */
            wasp_frame f;
            if (leaf_native_frame(p, (uint64_t)(uintptr_t)rf->method - 1, &f))
                ids[n++] = wasp_profile_intern_frame(p, &f);
            continue;
        }
        ids[n++] = java_frame(p, mc, rf->method, rf->bci);
    }
    return n;
}

/* A CallerChaining context (pc, depth) expanded through the calling-context
 * tree (agent/chain_dump.h), root first, with a frame saying where the
 * chain ended when it did not reach its root. */
static uint32_t chain_frames(wasp_profile *p, method_cache *mc, const wasp_rframe *marks,
                             uint32_t *ids, uint32_t cap)
{
    enum { MAX = 1024 };
    wasp_rframe frames[MAX];
    char end[WASP_CHAIN_END_TEXT] = "";
    int n = wasp_chain_expand(marks, frames, MAX, end, sizeof end);
    uint32_t k = 0;
    if (end[0]) {
        wasp_frame f = {.kind = WASP_FRAME_UNKNOWN, .name = wasp_profile_intern_string(p, end),
                        .file = 0, .line = -1};
        ids[k++] = wasp_profile_intern_frame(p, &f);
    }
    if (n <= 0)
        return k ? k : java_frames(p, mc, NULL, 0, -100, ids, cap);
    return k + java_frames(p, mc, frames, (uint32_t)n, 0, ids + k, cap - k);
}

/* root: the thread's frame (thread_frame.h), UINT32_MAX for none. */
static uint32_t convert_context(wasp_profile *p, method_cache *mc, const wasp_records *r,
                                uint32_t id, uint32_t root)
{
    const wasp_rcontext *c = &r->contexts[id - 1];
    uint32_t all[4096];
    uint32_t *ids = all + (root != UINT32_MAX);
    const wasp_rtrace *t = c->trace != UINT32_MAX ? &r->traces[c->trace - 1] : NULL;
    uint32_t n;
    if (t && wasp_chain_is_context(&r->frames[t->first], t->nframes))
        n = chain_frames(p, mc, &r->frames[t->first], ids, 4094);
    else
        n = t ? java_frames(p, mc, &r->frames[t->first], t->nframes, t->status, ids, 4094)
              : java_frames(p, mc, NULL, 0, NOT_RECORDED, ids, 4094);
    wasp_frame leaf;
    if (leaf_native_frame(p, c->pc, &leaf))
        ids[n++] = wasp_profile_intern_frame(p, &leaf);
    /* The instruction without its address: the same access in another
     * compiled copy of the method is the same context to a developer. */
    char text[160];
    uint32_t insn = 0;
    if (c->insn_len && wasp_isa_format_att(c->insn, c->insn_len, c->pc, text, sizeof text))
        insn = wasp_profile_intern_string(p, text);
    if (root != UINT32_MAX)
        all[0] = root;
    return wasp_profile_intern_context(p, all, n + (root != UINT32_MAX), insn);
}

struct wasp_dump {
    wasp_profile *p;
    method_cache *mc;
    const wasp_dump_info *info;
    uint32_t thread; /* the frame of the thread being folded, UINT32_MAX: none */
};

wasp_profile *wasp_dump_profile(wasp_dump *d)
{
    return d->p;
}

const wasp_dump_info *wasp_dump_settings(wasp_dump *d)
{
    return d->info;
}

void wasp_dump_java_frame(wasp_dump *d, const wasp_rframe *rf, wasp_frame *out)
{
    method_entry *m = method_lookup(d->mc, d->p, rf->method);
    *out = (wasp_frame){.kind = WASP_FRAME_JAVA, .name = m ? m->name : 0, .file = m ? m->file : 0,
                        .line = wasp_jvm_line((jmethodID)rf->method, rf->bci)};
}

uint32_t wasp_dump_context(wasp_dump *d, const wasp_records *r, uint32_t id)
{
    return convert_context(d->p, d->mc, r, id, d->thread);
}

/* Allocation contexts have no instruction: JVMTI reports bytecode positions. */
uint32_t wasp_dump_alloc_context(wasp_dump *d, const wasp_alloc_site *s)
{
    uint32_t ids[4096];
    uint32_t n;
    if (s->before_attach) {
        wasp_frame f = {.kind = WASP_FRAME_UNKNOWN,
                        .name = wasp_profile_intern_string(
                            d->p, "[in the heap when wasp attached: allocation path unknown]"),
                        .file = 0, .line = -1};
        ids[0] = wasp_profile_intern_frame(d->p, &f);
        n = 1;
    } else {
        n = java_frames(d->p, d->mc, s->frames, s->nframes, 0, ids, 4096);
    }
    return wasp_profile_intern_context(d->p, ids, n, 0);
}

uint32_t wasp_dump_alloc_site(wasp_dump *d, const wasp_alloc_site *s)
{
    uint32_t ctx = wasp_dump_alloc_context(d, s);
    if (ctx == UINT32_MAX)
        return UINT32_MAX;
    return wasp_profile_intern_site(d->p, ctx, wasp_profile_intern_string(d->p, s->class_name));
}

/* The class of a class site whose name is not known yet: its Klass*. */
#define CLASS_PLACEHOLDER "a class at 0x"

/* A class site (heap/class_site.h): the class of untracked objects, named
 * from the JVM's loaded classes when the names are built, else by its
 * address until wasp_dump_name_class_sites renames it. */
static uint32_t class_site(wasp_dump *d, uint32_t site)
{
    uint64_t klass = wasp_klass_set_at(wasp_class_site_slot(site));
    if (!klass)
        return UINT32_MAX;
    char placeholder[64];
    const char *name = wasp_java_class_name(klass);
    if (!name) {
        snprintf(placeholder, sizeof placeholder, CLASS_PLACEHOLDER "%llx", (unsigned long long)klass);
        name = placeholder;
    }
    wasp_frame f = {.kind = WASP_FRAME_UNKNOWN,
                    .name = wasp_profile_intern_string(d->p, WASP_CLASS_SITE_FRAME),
                    .file = 0,
                    .line = -1};
    uint32_t frame = wasp_profile_intern_frame(d->p, &f);
    uint32_t ctx = wasp_profile_intern_context(d->p, &frame, 1, 0);
    return wasp_profile_intern_site(d->p, ctx, wasp_profile_intern_string(d->p, name));
}

uint32_t wasp_dump_site(wasp_dump *d, uint32_t alloc_site)
{
    if (wasp_is_class_site(alloc_site))
        return class_site(d, alloc_site);
    wasp_alloc_site s;
    return wasp_alloc_site_get(alloc_site, &s) == 0 ? wasp_dump_alloc_site(d, &s) : UINT32_MAX;
}

/* Class sites folded before the names were built (threads that ended
 * early) get their names now; a class the JVM did not list keeps a
 * placeholder ("a class at 0x..."). */
static void name_class_sites(wasp_profile *p)
{
    size_t plen = strlen(CLASS_PLACEHOLDER);
    for (uint32_t i = 0; i < p->nsites; i++) {
        const char *cls = p->strings[p->sites[i].class_name];
        if (strncmp(cls, CLASS_PLACEHOLDER, plen) != 0)
            continue;
        const char *name = wasp_java_class_name(strtoull(cls + plen, NULL, 16));
        if (name)
            p->sites[i].class_name = wasp_profile_intern_string(p, name);
    }
}

void wasp_dump_site_table(wasp_dump *d, const wasp_records *r, int id,
                          void (*add)(wasp_profile *p, uint32_t site, uint32_t ctx,
                                      const wasp_rsite *e),
                          int (*keep)(wasp_dump *d, const wasp_records *r, const wasp_rsite *e))
{
    const wasp_rsite *table = r->sites[id];
    for (uint32_t i = 0; table && i < r->cap_sites && r->nsites[id]; i++) {
        const wasp_rsite *e = &table[i];
        if (!e->site || (keep && !keep(d, r, e)))
            continue;
        uint32_t site = wasp_dump_site(d, e->site - 1);
        if (site == UINT32_MAX)
            continue;
        add(d->p, site, wasp_dump_context(d, r, e->access_ctx), e);
    }
}

/* A run id, so that merging the same profile twice can be refused. */
static void set_run_id(wasp_profile *p)
{
    uint64_t r[2] = {0, 0};
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r[0] = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        r[1] = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)p;
    }
    char id[40];
    snprintf(id, sizeof id, "%016llx%016llx", (unsigned long long)r[0], (unsigned long long)r[1]);
    wasp_profile_set_meta(p, "run_id", id);
}

/* A thread's records: each enabled analysis's, its counters, the core ones. */
static void add_thread(wasp_dump *d, const wasp_thread *t)
{
    const wasp_records *r = &t->rec;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        if (!wasp_session_runs(id))
            continue;
        const wasp_agent_part *part = wasp_agent_part_of(id);
        if (part->fold_thread)
            part->fold_thread(d, t, id);
        const wasp_handler_part *hp = wasp_handler_part_of(id);
        for (int k = 0; k < WASP_PART_COUNTERS; k++)
            if (hp->counters[k] && r->part_counters[id][k])
                wasp_profile_add_counter(d->p, hp->counters[k], r->part_counters[id][k]);
    }
    for (int c = 0; c < WASP_C_COUNT; c++)
        if (r->counters[c])
            wasp_profile_add_counter(d->p, wasp_counter_name((wasp_counter_id)c), r->counters[c]);
}

/* What was gathered since the last write (the segment): threads fold in
 * here when they end (so their tables can be freed), and the live ones when
 * a profile is written (a snapshot clears their records after). */
static struct {
    pthread_mutex_t lock;
    wasp_profile *profile;
    method_cache methods;
    uint32_t ended, ended_busy; /* threads folded at their end */
    uint32_t live, live_busy;   /* ... and by the write, still running */
    double cpu;                 /* their CPU seconds in the segment */
    double kernel;              /* ... of which in the kernel */
} acc = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The session's earlier segments, for the next write (only the writer
 * touches it: writes are serialised by the agent). */
static struct {
    wasp_profile *done; /* the last profile written, all segments so far */
    uint32_t ended, ended_busy;
    double cpu, kernel;
    /* The watch engine's counter figures at the last write (they count
     * from the session's start; each segment adds its part). */
    char figure_names[16][64];
    double figure_values[16];
    int nfigures;
    uint64_t folds; /* fold_only writes */
} session;

static int record_threads; /* threads=1 (wasp_dump_record_threads) */

void wasp_dump_record_threads(int on)
{
    record_threads = on;
}

void wasp_dump_fold_thread(const wasp_thread *t)
{
    if (!t->rec.pairs)
        return;
    /* Its quadruples first: its own contexts are expanded with them. */
    wasp_chain_harvest(t);
    double s = t->cpu_mark_s - t->cpu_folded_s; /* CPU since the last fold */
    int ended = (int)(t->cpu_ns_start >> 63), busy = t->cpu_mark_s >= 0.1;
    pthread_mutex_lock(&acc.lock);
    if (!acc.profile)
        acc.profile = wasp_profile_new();
    if (acc.profile) {
        /* threads=1: the thread's contexts under its frame (thread_frame.h). */
        wasp_dump d = {.p = acc.profile, .mc = &acc.methods, .info = NULL,
                       .thread = record_threads ? wasp_profile_thread_frame(acc.profile, t->name)
                                                : UINT32_MAX};
        add_thread(&d, t);
        if (ended) {
            acc.ended++;
            acc.ended_busy += busy;
        } else {
            acc.live++;
            acc.live_busy += busy;
        }
        acc.cpu += s > 0 ? s : 0;
        double k = t->kernel_mark_s - t->kernel_folded_s;
        acc.kernel += k > 0 ? k : 0;
    }
    pthread_mutex_unlock(&acc.lock);
}

/* A counter figure's growth since the last write of the session (its
 * segment's part: the profiles of earlier segments hold the rest). */
static double figure_since_last(const wasp_watch_figure *f)
{
    int i = 0;
    while (i < session.nfigures && strcmp(session.figure_names[i], f->name) != 0)
        i++;
    if (i == session.nfigures) {
        if (i == 16)
            return f->value;
        snprintf(session.figure_names[i], sizeof session.figure_names[i], "%s", f->name);
        session.figure_values[i] = 0;
        session.nfigures++;
    }
    double d = f->value - session.figure_values[i];
    session.figure_values[i] = f->value;
    return d > 0 ? d : 0;
}

/* Which watchpoint engine ran, what it cost, and what it passed over. */
static void add_watch_meta(wasp_profile *p, const wasp_dump_info *info)
{
    if (info->watch_passed_over[0])
        wasp_profile_set_meta(p, "watch_passed_over", info->watch_passed_over);
    const wasp_mechanisms *m = wasp_chosen();
    if (!m->watch)
        return;
    wasp_profile_set_meta(p, "watch", m->watch->name);
    wasp_profile_set_meta(p, "watch_detail", m->watch->what);
    wasp_profile_set_meta_rounded(p, "watch_budget", info->watch_budget, "%g");
    wasp_profile_set_meta_rounded(p, "watch_event_us", (double)m->watch_event_ns / 1000.0, "%.1f");
    if (m->string_watch_share > 0)
        wasp_profile_set_meta_rounded(p, "watch_string_slowdown", 1.0 / (1.0 - m->string_watch_share),
                                      "%.1f");
    wasp_watch_figure fig[16];
    int nfig = m->watch->figures ? m->watch->figures(fig, 16) : 0;
    for (int i = 0; i < nfig; i++)
        if (fig[i].per_event)
            wasp_profile_set_meta_rounded(p, fig[i].name, fig[i].value, "%.1f");
        else
            wasp_profile_add_counter(p, fig[i].name, (uint64_t)figure_since_last(&fig[i]));
}

/* ", 12 pairs classified" when pair analyses ran, else "". */
static const char *pairs_note(int watching, uint64_t classified)
{
    static char buf[64];
    buf[0] = 0;
    if (watching)
        snprintf(buf, sizeof buf, ", %llu pair%s classified", (unsigned long long)classified,
                 classified == 1 ? "" : "s");
    return buf;
}

static int counts_samples(const char *key)
{
    size_t n = strlen(key), suffix = strlen("_unnamed_classes");
    return n >= suffix && strcmp(key + n - suffix, "_unnamed_classes") == 0;
}

/* The segment's metadata over the session's: the newest describe it, but
 * meta that counts (samples of classes left unnamed) is the segments' sum. */
static void take_meta(wasp_profile *done, const wasp_profile *seg)
{
    for (uint32_t i = 0; i < seg->nmeta; i++) {
        const wasp_kv *kv = &seg->meta[i];
        double before;
        if (kv->numeric && counts_samples(kv->key) &&
            wasp_profile_get_meta_num(done, kv->key, &before))
            wasp_profile_set_meta_rounded(done, kv->key, before + kv->number, "%.0f");
        else if (kv->numeric)
            wasp_profile_set_meta_num(done, kv->key, kv->number);
        else
            wasp_profile_set_meta(done, kv->key, kv->value);
    }
}

/* Past max contexts, the session's profile keeps the heaviest max/2 and
 * merges the others into one entry per kind of context (group.h): the
 * half left free makes the next pruning many segments away. Says so in the
 * profile (a counter, and a warning the report prints). */
static wasp_profile *bound_contexts(wasp_profile *p, uint32_t max)
{
    if (max == 0 || p->ncontexts <= max)
        return p;
    uint32_t pruned = 0, before = p->ncontexts;
    wasp_profile *q = wasp_profile_prune(p, max / 2, &pruned);
    if (!q) {
        wasp_log("out of memory pruning the profile's %u calling contexts: it keeps them all",
                 before);
        return p;
    }
    wasp_profile_free(p);
    wasp_profile_add_counter(q, "profile.pruned_contexts", pruned);
    char text[320];
    snprintf(text, sizeof text,
             "the profile reached --max-contexts %u calling contexts: %llu of the lightest were "
             "merged into entries named \"%s\" (totals and shares are exact; only their detail "
             "is gone)",
             max, (unsigned long long)wasp_profile_get_counter(q, "profile.pruned_contexts"),
             WASP_PRUNED_FRAME);
    wasp_profile_set_meta(q, "warning.pruned", text);
    wasp_log("the profile's %u calling contexts passed max-contexts=%u: the %u lightest merged "
             "into one entry per kind, %u left",
             before, max, pruned, q->ncontexts);
    return q;
}

/* The segment's profile seg joins the session's earlier ones: merged into
 * them (a copy of the segment, not of the whole session, each time: a long
 * session's snapshots would otherwise copy it all every interval). Returns
 * the session's profile so far; seg is freed, or is it. */
static wasp_profile *join_earlier(wasp_profile *seg, uint32_t max_contexts)
{
    wasp_profile *done = session.done;
    if (!done) /* the first segment: many threads' tables may hold more than the bound */
        return bound_contexts(seg, max_contexts);
    session.done = NULL;
    wasp_profile_remove_meta(done, "snapshot"); /* a snapshot's mark must not outlive it */
    if (wasp_profile_merge(done, seg) != 0) {
        wasp_log("out of memory joining this profile to the earlier snapshots': it holds the "
                 "time since the last snapshot only");
        wasp_profile_free(done);
        return seg;
    }
    take_meta(done, seg);
    done->merged = 1; /* one run in segments, not profiles merged */
    wasp_profile_free(seg);
    return bound_contexts(done, max_contexts);
}

static void set_written_meta(wasp_profile *p, const wasp_dump_how *how)
{
    char when[64];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    wasp_profile_set_meta(p, "written_at", when);
    if (how->final) {
        wasp_profile_set_meta(p, "ended", how->ended ? how->ended : "?");
        return;
    }
    char text[256];
    snprintf(text, sizeof text,
             "the profile so far, written at %s while the program ran; if it is the last, the "
             "JVM ended without writing its final profile",
             when);
    wasp_profile_set_meta(p, "snapshot", text);
}

int wasp_dump_write(const wasp_dump_info *info, void (*extra)(wasp_dump *d),
                    const wasp_dump_how *how)
{
    pthread_mutex_lock(&acc.lock);
    wasp_profile *p = acc.profile ? acc.profile : wasp_profile_new();
    acc.profile = NULL;
    uint32_t ended = acc.ended, ended_busy = acc.ended_busy, live = acc.live,
             live_busy = acc.live_busy;
    double cpu = acc.cpu, kernel = acc.kernel;
    acc.ended = acc.ended_busy = acc.live = acc.live_busy = 0;
    acc.cpu = acc.kernel = 0;
    free(acc.methods.e);
    memset(&acc.methods, 0, sizeof acc.methods);
    pthread_mutex_unlock(&acc.lock);
    if (!p)
        return -1;
    /* The core counters are there, zero included, for the analyses that run:
     * "0 samples" says something a missing counter does not, "0 pairs" only
     * when an analysis pairs accesses. */
    int watching = 0;
    for (int id = 0; id < WASP_ANALYSES; id++)
        watching |= wasp_session_runs(id) && wasp_handler_part_of(id)->pair;
    static const wasp_counter_id core[] = {WASP_C_SAMPLES, WASP_C_SAMPLES_MEMORY, WASP_C_ARMED,
                                           WASP_C_TRAPPED, WASP_C_CLASSIFIED};
    for (size_t i = 0; i < (watching ? sizeof core / sizeof core[0] : 1); i++)
        wasp_profile_add_counter(p, wasp_counter_name(core[i]), 0);

    method_cache mc = {0};
    wasp_dump d = {.p = p, .mc = &mc, .info = info, .thread = UINT32_MAX};
    if (record_threads)
        wasp_profile_set_meta(p, WASP_THREADS_META, "1");
    if (extra)
        extra(&d);
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_agent_part *part = wasp_agent_part_of(id);
        if (wasp_session_runs(id) && part->finish)
            part->finish(&d, id);
    }
    wasp_cpu_lines_dump(&d);
    name_class_sites(p);
    free(mc.e);
    wasp_profile_set_meta(p, "events", info->events);
    wasp_profile_set_meta(p, "sampler", info->sampler);
    wasp_profile_set_meta(p, "sampler_detail", info->sampler_detail);
    wasp_profile_set_meta(p, "period", info->period);
    const wasp_source *src = wasp_chosen()->source;
    int time_based = src && src->time_based;
    if (time_based)
        wasp_profile_set_meta_rounded(p, "period_us", (double)info->period_ns / 1000.0, "%.0f");
    if (!session.done)
        set_run_id(p); /* one per session: its snapshots and its end are one run */
    if (info->sampler_passed_over[0])
        wasp_profile_set_meta(p, "sampler_passed_over", info->sampler_passed_over);
    uint64_t raised = wasp_sampler_max_period();
    if (raised > info->period_ns && time_based)
        wasp_profile_set_meta_rounded(p, "period_max_us", (double)raised / 1000.0, "%.0f");
    add_watch_meta(p, info);
    if (info->disabled_reason[0])
        wasp_profile_set_meta(p, "disabled_reason", info->disabled_reason);
    wasp_profile_set_meta(p, "java_command", wasp_jvm_property("sun.java.command", "?"));
    char jvm[512];
    snprintf(jvm, sizeof jvm, "%s %s", wasp_jvm_property("java.vm.name", "?"),
             wasp_jvm_property("java.vm.version", "?"));
    wasp_profile_set_meta(p, "jvm", jvm);
    wasp_profile_set_meta_rounded(p, "pid", (double)getpid(), "%.0f");
    p = join_earlier(p, info->max_contexts);
    /* The calling-context tree's figures are of the whole session: after the
     * join, from the joined counters. */
    wasp_chain_meta(p, how->final);
    set_written_meta(p, how);
    /* The session's numbers: its threads (those that ended in any segment,
     * and those running now), its CPU time and its whole duration. */
    session.ended += ended;
    session.ended_busy += ended_busy;
    session.cpu += cpu;
    session.kernel += kernel;
    uint32_t profiled = session.ended + live, busy = session.ended_busy + live_busy;
    cpu = session.cpu;
    double wall = (double)(time(NULL) - info->start_time);
    wasp_profile_set_meta_rounded(p, "duration_seconds", wall, "%.0f");
    wasp_profile_set_meta_rounded(p, "threads", profiled, "%.0f");
    wasp_profile_set_meta_rounded(p, "busy_threads", busy, "%.0f");
    wasp_profile_set_meta_rounded(p, "cpu_seconds", cpu, "%.3f");
    wasp_profile_set_meta_rounded(p, "cpu_kernel_seconds", session.kernel, "%.3f");
    uint64_t samples = wasp_profile_get_counter(p, "samples");
    uint64_t classified = wasp_profile_get_counter(p, "classified");
    if (cpu > 0) {
        wasp_profile_set_meta_rounded(p, "samples_per_second", (double)samples / cpu, "%.1f");
        wasp_profile_set_meta_rounded(p, "classified_per_cpu_second", (double)classified / cpu, "%.1f");
    }
    if (how->fold_only)
        session.folds++;
    if (session.folds) /* folds made for room, all session */
        wasp_profile_set_counter(p, "profile.folds", session.folds);
    uint64_t refused = wasp_fd_budget_refused();
    if (refused) { /* all session: the threads this profile lacks */
        char text[256];
        wasp_profile_set_counter(p, "threads.fd_budget", refused);
        snprintf(text, sizeof text,
                 "%llu thread%s not profiled: wasp keeps to a quarter of the file descriptors "
                 "free when profiling began, and each thread's events take some; raise the "
                 "JVM's open-file limit (ulimit -n) to profile them",
                 (unsigned long long)refused, refused == 1 ? " was" : "s were");
        wasp_profile_set_meta(p, "warning.fd_budget", text);
    }
    if (how->fold_only) {
        session.done = p;
        return 0;
    }
    const char *path = how->path ? how->path : info->path;
    char err[512];
    int rc = wasp_profile_write(p, path, err, sizeof err);
    if (rc == 0 && how->final)
        wasp_log("profile written to %s (%u thread%s, %llu sample%s%s)", path, profiled,
                 profiled == 1 ? "" : "s", (unsigned long long)samples, samples == 1 ? "" : "s",
                 pairs_note(watching, classified));
    else if (rc == 0 && !how->quiet)
        wasp_log("snapshot written to %s (%llu sample%s so far%s)", path,
                 (unsigned long long)samples, samples == 1 ? "" : "s",
                 pairs_note(watching, classified));
    else if (rc != 0)
        wasp_log("could not write the %s: %s", how->final ? "profile" : "snapshot", err);
    if (how->final) {
        wasp_profile_free(p);
        memset(&session, 0, sizeof session); /* the next session (attach again) starts afresh */
    } else {
        session.done = p;
    }
    return rc;
}
