/*
 * Lock activity in the agent. Before sampling starts it finds libjvm's text
 * and, in it, the monitor-enter slow paths by their ELF symbols
 * (agent/native_symbols.h; slow_path.c), for the handler (records.h). When
 * the run stops each thread's records are kept with their classes as found
 * (Klass*); at the end the classes are named from the JVM's loaded classes
 * (agent/java_names.c) and the records go into the profile with their Java
 * contexts alone (a slow-path sample's native leaf is dropped, and kept as
 * the entry's "where"), so that a monitorenter's fast and slow paths share
 * one context. A slow-path sample knows the object when the handler found it
 * (the monitor the thread announced, or its registers: handler.c); otherwise its samples go
 * to the classes the same context's compare-and-swaps locked, in their
 * proportions, or to an unknown class. Not for signal handlers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent_part.h"
#include "agent/java_layout_load.h"
#include "agent/java_names.h"
#include "agent/log.h"
#include "agent/native_symbols.h"
#include "agent/vmstructs.h"
#include "analysis/locks/agent_blocked.h"
#include "analysis/locks/agent_estimate.h"
#include "analysis/locks/profile.h"
#include "analysis/locks/records.h"
#include "analysis/locks/slow_path.h"
#include "profile/part.h"

typedef struct raw_lock {
    uint64_t klass;
    uint32_t ctx, kind; /* ctx: the profile's, Java frames only */
    double samples;
} raw_lock;

static raw_lock *raw;
static uint32_t nraw, cap_raw;
static char func_names[WASP_LOCK_FUNCS][96];

typedef struct slow_fn {
    uint64_t lo, hi;
    char name[96];
} slow_fn;

typedef struct scan {
    wasp_lock_code code;
    slow_fn fn[WASP_LOCK_FUNCS];
    uint32_t n;
} scan;

static int by_address(const void *a, const void *b)
{
    const slow_fn *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* One of libjvm's functions: its text's extent, and a slow path kept. */
static void libjvm_function(const char *name, uint64_t addr, uint64_t size, void *arg)
{
    scan *s = arg;
    if (!s->code.jvm_hi || addr < s->code.jvm_lo)
        s->code.jvm_lo = addr;
    if (addr + size > s->code.jvm_hi)
        s->code.jvm_hi = addr + size;
    char readable[96];
    if (s->n < WASP_LOCK_FUNCS && wasp_lock_slow_path_name(name, readable, sizeof readable)) {
        slow_fn *f = &s->fn[s->n++];
        f->lo = addr;
        f->hi = addr + size;
        memcpy(f->name, readable, sizeof f->name);
    }
}

/* libjvm's code and its slow paths into the handler's table: how many.
 * The symbols are read as for naming native frames (agent/native_symbols.h:
 * sorted once, separate debug files by build ID). */
static int find_slow_paths(char *why, size_t len)
{
    static scan s;
    memset(&s, 0, sizeof s);
    wasp_native_symbols *syms = wasp_native_symbols_open();
    if (!syms) {
        snprintf(why, len, "elfutils cannot read this process's libraries");
        return -1;
    }
    int found = wasp_native_symbols_each(syms, "libjvm.so", libjvm_function, &s);
    wasp_native_symbols_close(syms);
    if (found != 0 || !s.code.jvm_hi) {
        snprintf(why, len, "libjvm.so's symbols not found");
        return -1;
    }
    qsort(s.fn, s.n, sizeof s.fn[0], by_address);
    for (uint32_t i = 0; i < s.n; i++) {
        s.code.lo[i] = s.fn[i].lo;
        s.code.hi[i] = s.fn[i].hi;
        memcpy(func_names[i], s.fn[i].name, sizeof func_names[i]);
    }
    s.code.n = s.n;
    wasp_lock_code_ranges = s.code;
    return (int)s.n;
}

static int setup(const wasp_options *o, char *why, size_t len)
{
    (void)o;
    free(raw);
    raw = NULL;
    nraw = cap_raw = 0;
    memset(&wasp_lock_code_ranges, 0, sizeof wasp_lock_code_ranges);
    char reason[200];
    int n = find_slow_paths(reason, sizeof reason);
    if (n < 0)
        wasp_log("locks: %s; slow-path acquisitions are not counted", reason);
    else if (n == 0)
        wasp_log("locks: no monitor-enter slow path among libjvm's symbols; not counted");
    else
        wasp_log("locks: %d monitor-enter slow-path functions in libjvm", n);
    uint64_t off = 0;
    if (wasp_vm_field("JavaThread", "_current_pending_monitor", &off, NULL) == 0 && off)
        wasp_lock_code_ranges.pending_monitor_offset = off;
    (void)why, (void)len;
    wasp_locks_estimate_setup(); /* without it, no acquisitions estimated: it logs why */
    wasp_locks_blocked_start(); /* without it, no blocked time: it logs why */
    return 0;
}

static void stop(jvmtiEnv *jvmti, JNIEnv *env, const wasp_options *o)
{
    (void)jvmti, (void)env, (void)o;
    wasp_locks_blocked_stop();
}

/* Names are built once for every analysis that finds classes by their
 * headers, by the agent when sampling stops, and freed after the profile is
 * written; built here only when they are not yet (java_names.h). */
/* The profile context of ctx without a native or stub leaf frame and
 * without its instruction: the acquiring Java context. */
static uint32_t java_context(wasp_profile *p, uint32_t ctx)
{
    const wasp_context *c = &p->contexts[ctx];
    uint32_t n = c->nframes;
    if (n > 1 && p->frames[p->frame_refs[c->first + n - 1]].kind != WASP_FRAME_JAVA)
        n--;
    uint32_t ids[4096];
    if (n > sizeof ids / sizeof ids[0])
        return UINT32_MAX;
    memcpy(ids, &p->frame_refs[c->first], n * sizeof ids[0]);
    return wasp_profile_intern_context(p, ids, n, 0);
}

/* Is a frame the lock's machinery rather than the program: the park, the
 * AbstractQueuedSynchronizer's acquire, ReentrantLock.lock? */
static int lock_machinery(const char *name)
{
    static const char *const prefixes[] = {"java.util.concurrent.locks.", "jdk.internal.misc.Unsafe.",
                                           "sun.misc.Unsafe."};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

/* A blocked thread's acquiring context: its Java frames without the lock's
 * machinery at the leaf: the program's call that took the lock. */
static uint32_t blocked_context(wasp_profile *p, uint32_t ctx)
{
    const wasp_context *c = &p->contexts[ctx];
    uint32_t n = c->nframes;
    while (n > 1) {
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + n - 1]];
        if (f->kind == WASP_FRAME_JAVA && !lock_machinery(p->strings[f->name]))
            break;
        n--;
    }
    uint32_t ids[4096];
    if (n == c->nframes || n > sizeof ids / sizeof ids[0])
        return ctx;
    memcpy(ids, &p->frame_refs[c->first], n * sizeof ids[0]); /* interning may move them */
    return wasp_profile_intern_context(p, ids, n, 0);
}

static void fold_thread(wasp_dump *d, const wasp_thread *t, int id)
{
    const wasp_lock_thread *lt = t->part_state[id];
    wasp_profile *p = wasp_dump_profile(d);
    for (uint32_t i = 0; lt && i < WASP_LOCK_SLOTS; i++) {
        const wasp_lock_rec *r = &lt->recs[i];
        if (!r->ctx)
            continue;
        uint32_t ctx = wasp_dump_context(d, &t->rec, r->ctx - 1);
        if (ctx == UINT32_MAX || (ctx = java_context(p, ctx)) == UINT32_MAX)
            continue;
        if (wasp_grow(&raw, &cap_raw, nraw + 1, sizeof *raw) != 0)
            return;
        raw[nraw++] = (raw_lock){r->klass, ctx, r->kind, r->samples};
    }
}

/* The profile's string for klass's name ("" when it has none), adding the
 * samples of a class not named to *unnamed. */
static uint32_t class_string(wasp_profile *p, uint64_t klass, int named, double samples,
                             uint64_t *unnamed)
{
    const char *cls = named ? wasp_java_class_name(klass) : NULL;
    if (!cls)
        *unnamed += (uint64_t)samples;
    return wasp_profile_intern_string(p, cls ? cls : "");
}

static void finish(wasp_dump *d, int id)
{
    (void)id;
    wasp_profile *p = wasp_dump_profile(d);
    wasp_java_layout_blind_meta(p, "locks");
    uint64_t unnamed = 0;
    int named = wasp_java_names_ready();
    const uint32_t none = wasp_profile_intern_string(p, "");
    /* Compare-and-swaps first: they name the classes slow paths go to. */
    for (uint32_t i = 0; i < nraw; i++) {
        const raw_lock *r = &raw[i];
        if (r->kind >= WASP_LOCK_SLOW)
            continue;
        wasp_lock_entry e = {class_string(p, r->klass, named, r->samples, &unnamed), none, r->ctx,
                             r->kind == WASP_LOCK_ACQUIRE ? r->samples : 0,
                             r->kind == WASP_LOCK_RELEASE ? r->samples : 0, 0};
        wasp_profile_add_lock(p, &e);
    }
    uint32_t nfast;
    const wasp_lock_entry *fast = wasp_profile_locks(p, &nfast);
    for (uint32_t i = 0; i < nraw; i++) {
        const raw_lock *r = &raw[i];
        if (r->kind < WASP_LOCK_SLOW || r->kind - WASP_LOCK_SLOW >= WASP_LOCK_FUNCS)
            continue;
        uint32_t where = wasp_profile_intern_string(p, func_names[r->kind - WASP_LOCK_SLOW]);
        if (r->klass) { /* the handler found the object being entered */
            wasp_lock_entry e = {class_string(p, r->klass, named, r->samples, &unnamed), where,
                                 r->ctx, 0, 0, r->samples};
            wasp_profile_add_lock(p, &e);
            fast = wasp_profile_locks(p, &(uint32_t){0});
            continue;
        }
        double acquired = 0;
        for (uint32_t k = 0; k < nfast; k++)
            if (fast[k].ctx == r->ctx && fast[k].where == none)
                acquired += fast[k].acquire;
        /* Shares by class of the same context's acquisitions (entries are
         * added below with where != none, so fast[0..nfast) stays them). */
        for (uint32_t k = 0; k < nfast && acquired > 0; k++) {
            if (fast[k].ctx != r->ctx || fast[k].where != none || !(fast[k].acquire > 0))
                continue;
            wasp_lock_entry e = {fast[k].cls, where, r->ctx, 0, 0,
                                 r->samples * fast[k].acquire / acquired};
            wasp_profile_add_lock(p, &e);
            fast = wasp_profile_locks(p, &(uint32_t){0}); /* may have moved */
        }
        if (!(acquired > 0)) {
            wasp_lock_entry e = {none, where, r->ctx, 0, 0, r->samples};
            wasp_profile_add_lock(p, &e);
            fast = wasp_profile_locks(p, &(uint32_t){0});
        }
    }
    wasp_profile_set_meta_rounded(p, "locks_unnamed_classes", (double)unnamed, "%.0f");
    wasp_locks_estimate_meta(p);
    wasp_locks_blocked_finish(d, blocked_context);
    free(raw);
    raw = NULL;
    nraw = cap_raw = 0;
}

const wasp_agent_part wasp_agent_locks = {
    .setup = setup,
    .stop = stop,
    .fold_thread = fold_thread,
    .finish = finish,
};
