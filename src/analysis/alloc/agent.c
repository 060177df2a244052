/*
 * Object creation from sampled header stores in the agent: each thread's
 * records are kept with their classes as found (Klass*) until the run stops,
 * when the agent has named the classes from the JVM's loaded classes
 * (agent/java_names.c, for every analysis); then they go into
 * the profile under those names, with the bytes their creations stand for
 * when creations were sampled by bytes (section ALBY). A class the JVM does not list (unloaded, or
 * a wrong candidate) is counted, not reported. Objects allocated outside
 * TLABs, which the TLAB watches never see, come from JVMTI's allocation
 * samples (agent/alloc_outside.h) and join the same keys. Not for signal
 * handlers.
 */
#include <stdlib.h>

#include "agent/agent_part.h"
#include "agent/alloc_outside.h"
#include "agent/jvm.h"
#include "agent/log.h"
#include "agent/java_layout_load.h"
#include "agent/java_names.h"
#include "analysis/alloc/profile.h"
#include "analysis/alloc/records.h"
#include "profile/part.h"

typedef struct raw_alloc {
    uint64_t klass;
    uint32_t ctx; /* the profile's */
    double samples, weight, bytes, bytes_sq;
} raw_alloc;

static raw_alloc *raw;
static uint32_t nraw, cap_raw;

static void forget(void)
{
    free(raw);
    raw = NULL;
    nraw = cap_raw = 0;
}

static int setup(const wasp_options *o, char *why, size_t len)
{
    (void)why, (void)len;
    forget();
    char no[256];
    if (wasp_alloc_outside_start(wasp_jvmti, o->max_frames, no, sizeof no) != 0)
        wasp_log("alloc: %s: objects allocated outside TLABs are not counted", no);
    return 0;
}

static void stop(jvmtiEnv *jvmti, JNIEnv *env, const wasp_options *o)
{
    (void)env, (void)o;
    wasp_alloc_outside_stop(jvmti);
}

/* The outside-TLAB samples, as creations and bytes of their keys. */
typedef struct outside_fold {
    wasp_dump *d;
    wasp_profile *p;
    int add;            /* bytes are recorded: add them */
    double scale;       /* creations weight -> samples, as the TLAB catches' */
    double bytes;       /* all outside bytes counted */
} outside_fold;

static void add_outside(const wasp_alloc_site *s, double samples, double bytes_sq, void *arg)
{
    outside_fold *f = arg;
    f->bytes += s->bytes;
    uint32_t ctx = wasp_dump_alloc_context(f->d, s);
    if (!f->add || ctx == UINT32_MAX)
        return;
    wasp_alloc_entry e = {wasp_profile_intern_string(f->p, s->class_name), ctx,
                          s->allocations * f->scale};
    wasp_alloc_bytes b = {e.cls, ctx, s->bytes, samples, bytes_sq};
    if (wasp_profile_add_alloc(f->p, &e) == 0)
        (void)wasp_profile_add_alloc_outside(f->p, &b);
}

/* Add the outside-TLAB samples (agent/alloc_outside.h) and their counters. */
static void fold_outside(wasp_dump *d, wasp_profile *p, int has_bytes, double scale)
{
    outside_fold f = {d, p, has_bytes, scale, 0};
    wasp_alloc_outside_stats s = wasp_alloc_outside_take(add_outside, &f);
    wasp_profile_add_counter(p, "alloc.outside_events", s.events);
    wasp_profile_add_counter(p, "alloc.outside_samples", s.outside);
    wasp_profile_add_counter(p, "alloc.outside_unplaced", s.unplaced);
    wasp_profile_add_counter(p, "alloc.outside_full", s.full);
    wasp_profile_add_counter(p, "alloc.outside_ns", s.ns);
    wasp_profile_add_counter(p, "alloc.outside_bytes", has_bytes ? (uint64_t)f.bytes : 0);
    if (s.interval)
        wasp_profile_set_meta_rounded(p, "alloc.outside_interval", (double)s.interval, "%.0f");
}

static void fold_thread(wasp_dump *d, const wasp_thread *t, int id)
{
    const wasp_alloc_thread *at = t->part_state[id];
    for (uint32_t i = 0; at && i < WASP_ALLOC_SLOTS; i++) {
        const wasp_alloc_rec *r = &at->recs[i];
        uint32_t ctx = r->ctx ? wasp_dump_context(d, &t->rec, r->ctx - 1) : UINT32_MAX;
        if (ctx == UINT32_MAX)
            continue;
        if (wasp_grow(&raw, &cap_raw, nraw + 1, sizeof *raw) != 0)
            return;
        raw[nraw++] = (raw_alloc){r->klass, ctx, r->samples, r->weight, r->bytes,
                                  r->bytes_sq};
    }
}

static void finish(wasp_dump *d, int id)
{
    (void)id;
    wasp_profile *p = wasp_dump_profile(d);
    wasp_java_layout_blind_meta(p, "alloc");
    double unnamed = 0, samples = 0, weight = 0;
    int named = wasp_java_names_ready(); /* built by the agent when sampling stopped */
    int has_bytes = 0;
    for (uint32_t i = 0; i < nraw; i++)
        samples += raw[i].samples, weight += raw[i].weight, has_bytes |= raw[i].bytes > 0;
    /* Each creation counts as its weight, scaled so that they add up to the
     * creations sampled: the profile's numbers stay sampled creations, and
     * the shares are the weighted ones. */
    double scale = weight > 0 ? samples / weight : 0;
    for (uint32_t i = 0; i < nraw; i++) {
        const char *cls = named ? wasp_java_class_name(raw[i].klass) : NULL;
        wasp_alloc_entry e = {cls ? wasp_profile_intern_string(p, cls) : WASP_NOID, raw[i].ctx,
                              raw[i].weight * scale};
        if (!cls || wasp_profile_add_alloc(p, &e) != 0) {
            unnamed += raw[i].samples;
            continue;
        }
        /* Bytes as estimated, not scaled: weight x size sums to the bytes
         * the threads allocated (docs/alloc.md, "Bytes"). */
        wasp_alloc_bytes b = {e.cls, e.ctx, raw[i].bytes, raw[i].samples, raw[i].bytes_sq};
        if (raw[i].bytes > 0)
            (void)wasp_profile_add_alloc_bytes(p, &b);
    }
    wasp_profile_set_meta_rounded(p, "alloc_unnamed_classes", unnamed, "%.0f");
    /* Only beside bytes from the TLAB watches: alone they are not the
     * program's bytes (a PMU's store samples have none). */
    fold_outside(d, p, has_bytes, scale);
    forget();
}

const wasp_agent_part wasp_agent_alloc = {
    .setup = setup,
    .stop = stop,
    .fold_thread = fold_thread,
    .finish = finish,
};
