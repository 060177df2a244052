/*
 * Object creation from sampled header stores in the agent: each thread's
 * records are kept with their classes as found (Klass*) until the run stops,
 * when the agent has named the classes from the JVM's loaded classes
 * (agent/java_names.c, for every analysis); then they go into
 * the profile under those names, with the bytes their creations stand for
 * when creations were sampled by bytes (section ALBY). A class the JVM does not list (unloaded, or
 * a wrong candidate) is counted, not reported. Not for signal handlers.
 */
#include <stdlib.h>

#include "agent/agent_part.h"
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
    (void)o, (void)why, (void)len;
    forget();
    return 0;
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
    for (uint32_t i = 0; i < nraw; i++)
        samples += raw[i].samples, weight += raw[i].weight;
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
    forget();
}

const wasp_agent_part wasp_agent_alloc = {
    .setup = setup,
    .fold_thread = fold_thread,
    .finish = finish,
};
