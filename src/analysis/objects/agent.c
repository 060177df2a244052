/*
 * Object-centric profiling (DJXPerf) in the agent: each thread's samples per
 * allocation site and access context into the profile. The sites themselves
 * come from allocation tracking (agent/alloc_dump.c); where the classes of
 * untracked (small) objects are allocated, from the allocation samples of
 * objects under min-size (agent/alloc.h, untracked sites). Not for signal
 * handlers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_part.h"
#include "agent/alloc.h"
#include "agent/allocating_class.h"
#include "agent/java_names.h"
#include "analysis/objects/profile.h"
#include "heap/class_site.h"
#include "heap/klass_set.h"
#include "profile/part.h"

/* Class-site entries whose sample stood at an allocation bytecode, kept
 * until the classes have names (a thread that ended early is folded before
 * the agent names them). Guarded by the dump's lock, like every fold. */
typedef struct pending_entry {
    uint32_t slot;       /* the class site's klass-set slot */
    uint32_t allocating; /* profile string: the class that bytecode allocates */
    uint32_t site, ctx;  /* profile ids */
    double a, b;
} pending_entry;
static pending_entry *pending;
static uint32_t npending, cap_pending;
/* Samples clearing a new object in which no object was found. */
static uint64_t clearing_unfound;

/* A class site's sample taken at a bytecode allocating that very class is
 * the allocation clearing the new object (C2 writes a new array's header,
 * then zeroes its body): the allocation's work, which tracked objects never
 * see (their allocation event comes after it). Such samples are counted
 * (objects.clearing), not attributed; the decision waits for class names
 * (finish). Samples in no object found at an allocation bytecode are counted
 * apart (objects.clearing_unfound, a subset of objects.unattributed). */
static int keep_now(wasp_dump *d, const wasp_records *r, const wasp_rsite *e)
{
    char allocating[300];
    if (e->site - 1 == WASP_NO_OBJECT_SITE) {
        /* No object found, its frame at an allocation: the object being
         * made, before its header (the JVM's slow path) or past the header
         * search's reach. Counted; never a site. */
        if (wasp_context_allocating_class(r, e->access_ctx, allocating, sizeof allocating))
            clearing_unfound += (uint64_t)llround(e->a);
        return 0;
    }
    if (!wasp_is_class_site(e->site - 1))
        return 1;
    if (!wasp_context_allocating_class(r, e->access_ctx, allocating, sizeof allocating))
        return 1;
    uint32_t site = wasp_dump_site(d, e->site - 1);
    uint32_t ctx = wasp_dump_context(d, r, e->access_ctx);
    if (site == UINT32_MAX || wasp_grow(&pending, &cap_pending, npending + 1, sizeof *pending) != 0)
        return 1;
    pending[npending++] = (pending_entry){
        .slot = wasp_class_site_slot(e->site - 1),
        .allocating = wasp_profile_intern_string(wasp_dump_profile(d), allocating),
        .site = site, .ctx = ctx, .a = e->a, .b = e->b};
    return 0;
}

static int setup(const wasp_options *o, char *why, size_t len)
{
    (void)o, (void)why, (void)len;
    free(pending);
    pending = NULL;
    npending = cap_pending = 0;
    clearing_unfound = 0;
    wasp_alloc_count_untracked();
    return 0;
}

static void add_access(wasp_profile *p, uint32_t site, uint32_t ctx, const wasp_rsite *e)
{
    wasp_profile_add_site_access(p, site, ctx, e->a, e->b);
}

static void fold_thread(wasp_dump *d, const wasp_thread *t, int id)
{
    wasp_dump_site_table(d, &t->rec, id, add_access, keep_now);
}

/* An untracked site: where objects of its class, too small to track, were
 * allocated. The tracker's lock is held (wasp_dump_alloc_context is safe). */
static void add_untracked(const wasp_alloc_site *s, void *arg)
{
    wasp_dump *d = arg;
    wasp_profile *p = wasp_dump_profile(d);
    uint32_t ctx = wasp_dump_alloc_context(d, s);
    if (ctx != UINT32_MAX)
        wasp_profile_add_untracked_alloc(p, wasp_profile_intern_string(p, s->class_name), ctx,
                                         s->allocations, s->bytes);
}

static void finish(wasp_dump *d, int id)
{
    (void)id;
    wasp_profile *p = wasp_dump_profile(d);
    uint64_t full = wasp_alloc_take_untracked(add_untracked, d);
    if (full)
        wasp_profile_add_counter(p, "objects.untracked_sites_full", full);
    uint64_t clearing = 0;
    for (uint32_t i = 0; i < npending; i++) {
        const pending_entry *e = &pending[i];
        const char *cls = wasp_java_class_name(wasp_klass_set_at(e->slot));
        if (cls && strcmp(cls, p->strings[e->allocating]) == 0)
            clearing += (uint64_t)llround(e->a);
        else
            wasp_profile_add_site_access(p, e->site, e->ctx, e->a, e->b);
    }
    wasp_profile_add_counter(p, "objects.clearing", clearing);
    wasp_profile_add_counter(p, "objects.clearing_unfound", clearing_unfound);
    clearing_unfound = 0; /* the next snapshot's segment counts its own */
    free(pending);
    pending = NULL;
    npending = cap_pending = 0;
}

const wasp_agent_part wasp_agent_objects = {
    .setup = setup, .fold_thread = fold_thread, .finish = finish};
