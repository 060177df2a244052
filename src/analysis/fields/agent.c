/*
 * Java fields at sampled addresses in the agent: each thread's records are
 * kept with their classes as found (Klass*) until the run stops, when the
 * classes and fields are named from the JVM's loaded classes
 * (agent/java_names.c); then they go into the profile under those names.
 * A class the JVM does not list (unloaded, or a wrong candidate) is counted
 * and kept unnamed; so is an access whose width or kind does not fit the
 * field at its offset (naming.h): counted as fields.mismatch. A heap sample
 * with no header found whose Java frame stands at an allocation bytecode is
 * an object the JVM was still clearing: named by that bytecode's class
 * (agent/allocating_class.h), counted as fields.by_allocation; one the
 * handler named by looking again later is named "(being allocated)" too,
 * unless it is one of the JVM's fillers: a retired TLAB's unused tail, say,
 * whose header the JVM was writing at the sample.
 * Not for signal handlers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_part.h"
#include "agent/java_layout_load.h"
#include "agent/allocating_class.h"
#include "agent/jvm.h"
#include "agent/java_names.h"
#include "analysis/fields/naming.h"
#include "analysis/fields/profile.h"
#include "analysis/fields/records.h"
#include "heap/heap_area.h"
#include "heap/java_layout.h"
#include "profile/part.h"

/* The member named for a sample in an object still without its header. */
#define ALLOCATING_MEMBER "(being allocated: cleared by the JVM)"
#define FILLER_MEMBER "(the JVM's filler of unused heap space)"

typedef struct raw_field {
    uint64_t klass;
    uint32_t offset, area, ctx; /* ctx: the profile's */
    uint8_t width, float_size;
    uint8_t named_later; /* no header at the sample; found at a later look */
    uint8_t is_static;   /* klass's static field */
    double loads, stores;
    uint32_t allocating; /* the profile's string: the class being allocated, 0 */
} raw_field;

static raw_field *raw;
static uint32_t nraw, cap_raw;
/* Samples still waiting for a later look when their thread's records were
 * folded, by the reason they had (counted as the handler would have). */
static uint64_t left_no_header, left_initializing;

static int setup(const wasp_options *o, char *why, size_t len)
{
    (void)o, (void)why, (void)len;
    free(raw);
    raw = NULL;
    nraw = cap_raw = 0;
    left_no_header = left_initializing = 0;
    return 0;
}

/* The class the first Java frame of context `id` (the records' id: index
 * + 1) is allocating, as a profile string, or 0. */
static uint32_t allocating_class(wasp_dump *d, const wasp_records *rec, uint32_t id)
{
    char cls[300];
    if (!wasp_context_allocating_class(rec, id, cls, sizeof cls))
        return 0;
    return wasp_profile_intern_string(wasp_dump_profile(d), cls);
}

/* One record of the thread's (ctx: its records' context id + 1) into raw. */
static void fold_record(wasp_dump *d, const wasp_thread *t, const wasp_field_rec *r)
{
    uint32_t ctx = wasp_dump_context(d, &t->rec, r->ctx - 1);
    if (ctx == UINT32_MAX)
        return;
    if (wasp_grow(&raw, &cap_raw, nraw + 1, sizeof *raw) != 0)
        return;
    uint32_t allocating = 0;
    if (!r->klass && wasp_heap_area_in_heap(r->area))
        allocating = allocating_class(d, &t->rec, r->ctx - 1);
    raw[nraw++] = (raw_field){.klass = r->klass, .offset = r->offset, .area = r->area,
                              .ctx = ctx, .width = r->width, .float_size = r->float_size,
                              .named_later = r->allocating, .is_static = r->is_static,
                              .loads = r->loads,
                              .stores = r->stores, .allocating = allocating};
}

static void fold_thread(wasp_dump *d, const wasp_thread *t, int id)
{
    const wasp_field_thread *ft = t->part_state[id];
    for (uint32_t i = 0; ft && i < WASP_FIELD_SLOTS; i++)
        if (ft->recs[i].ctx)
            fold_record(d, t, &ft->recs[i]);
    /* Samples the thread's next sample never looked at again (its last
     * ones): unnamed, under their heap area. */
    for (uint32_t i = 0; ft && i < WASP_FIELD_PENDING; i++) {
        const wasp_field_pending *pe = &ft->pending[i];
        if (!pe->ctx)
            continue;
        wasp_field_rec r = {.area = pe->area, .ctx = pe->ctx,
                            .loads = (pe->acc.kind & WASP_ACCESS_LOAD) != 0,
                            .stores = (pe->acc.kind & WASP_ACCESS_STORE) != 0};
        fold_record(d, t, &r);
        if (pe->why == WASP_FIELD_C_INITIALIZING)
            left_initializing++;
        else
            left_no_header++;
    }
}

/* Where this JVM's header words end (the layout is read before sampling
 * starts; without it, the compressed class pointers' layout). */
static wasp_field_header header_layout(void)
{
    const wasp_java_layout *l = &wasp_java;
    if (!__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE))
        return (wasp_field_header){12, 12};
    return (wasp_field_header){l->klass_offset + (l->compressed_klass ? 4 : 8), l->length_offset};
}

static void finish(wasp_dump *d, int id)
{
    (void)id;
    wasp_profile *p = wasp_dump_profile(d);
    wasp_java_layout_blind_meta(p, "fields");
    uint64_t unnamed = 0, mismatched = 0, by_allocation = 0;
    int named = wasp_java_names_ready(); /* built by the agent when sampling stopped */
    wasp_field_header h = header_layout();
    for (uint32_t i = 0; i < nraw; i++) {
        const raw_field *r = &raw[i];
        const char *cls = r->klass && named ? wasp_java_class_name(r->klass) : NULL;
        if (r->klass && !cls)
            unnamed += (uint64_t)(r->loads + r->stores);
        char member[300] = "";
        if (cls && r->named_later) {
            /* Its header was not there yet at the sample: the JVM was
             * clearing it (any field's offset is not an access to it), or
             * writing a filler over space it left unused. */
            snprintf(member, sizeof member, "%s",
                     wasp_field_is_filler(cls) ? FILLER_MEMBER : ALLOCATING_MEMBER);
        } else if (cls) {
            uint32_t n;
            const wasp_java_field *f = r->is_static ? wasp_java_static_fields(r->klass, &n)
                                                    : wasp_java_fields(r->klass, &n);
            wasp_field_fit fit =
                r->is_static
                    ? wasp_field_static_member(f, n, r->offset, r->width, r->float_size, member,
                                               sizeof member)
                    : wasp_field_member(cls, f, n, &h, r->offset, r->width, r->float_size, member,
                                        sizeof member);
            if (fit == WASP_FIT_MISMATCH) {
                /* Not an access to this object's field: not the object's. */
                mismatched += (uint64_t)(r->loads + r->stores);
                cls = NULL;
            }
        }
        wasp_field_entry e = {
            .cls = wasp_profile_intern_string(p, cls ? cls : ""),
            .member = wasp_profile_intern_string(p, cls ? member : ""),
            .offset = cls && !r->named_later ? r->offset : 0, /* the object, not a member */
            .area = r->area,
            .ctx = r->ctx,
            .loads = r->loads,
            .stores = r->stores,
        };
        if (!r->klass && r->allocating) {
            /* Its bytes belong to the object being allocated, not a field. */
            e.cls = r->allocating;
            e.member = wasp_profile_intern_string(p, ALLOCATING_MEMBER);
            by_allocation += (uint64_t)(r->loads + r->stores);
        }
        wasp_profile_add_field(p, &e);
    }
    wasp_profile_set_meta_rounded(p, "fields_unnamed_classes", (double)unnamed, "%.0f");
    if (mismatched)
        wasp_profile_add_counter(p, "fields.mismatch", mismatched);
    if (by_allocation)
        wasp_profile_add_counter(p, "fields.by_allocation", by_allocation);
    if (left_no_header)
        wasp_profile_add_counter(p, "fields.no_header", left_no_header);
    if (left_initializing)
        wasp_profile_add_counter(p, "fields.initializing", left_initializing);
    left_no_header = left_initializing = 0; /* the next snapshot's segment counts its own */
    free(raw);
    raw = NULL;
    nraw = cap_raw = 0;
}

const wasp_agent_part wasp_agent_fields = {
    .setup = setup,
    .fold_thread = fold_thread,
    .finish = finish,
};
