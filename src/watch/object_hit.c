/*
 * Finding the object a sample touched (see object_hit.h).
 *
 * A CPU-time sample lands just after the instruction that held the thread up
 * (a cache miss, most often): for the cost of objects, that access — the one
 * ending at the interrupted PC — is the one to blame. When none ends there
 * with a memory operand, the thread's next access is taken, as the watchpoint
 * analyses do.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler.
 */
#include "watch/object_hit.h"

#include "heap/class_site.h"
#include "heap/heap_addresses.h"
#include "heap/heap_area.h"
#include "heap/java_object.h"
#include "heap/klass_set.h"
#include "heap/recent_objects.h"
#include "heap/site_kind.h"
#include "heap/tracked.h"
#include "watch/run_state.h"

/* An object allocation tracking did not see (under min_size, or skipped by
 * its sampling): its class, from its header, stands for its site
 * (heap/class_site.h), and the report says the site is a class. Samples
 * that clear an object its own allocation is making are left out at dump
 * (analysis/objects/agent.c), as tracked objects never see them. 1 with
 * h->obj filled. */
static int class_site(wasp_thread *t, wasp_object_hit *h)
{
    wasp_java_object o;
    if (!wasp_java_found(wasp_java_object_find(h->acc.addr, &h->acc, wasp_object_hit_recent(t), &o)))
        return 0;
    int32_t slot = wasp_klass_set_slot(o.klass);
    if (slot < 0 || o.size > UINT32_MAX)
        return 0;
    /* The map's addresses are masked (ZGC colours): so is the object's start. */
    h->obj.start = o.start & wasp_heap_addresses.address_mask;
    h->obj.size = (uint32_t)o.size;
    h->obj.site = wasp_class_site((uint32_t)slot);
    h->remote = 0; /* the remote check is the map's (attribute.c) */
    return 1;
}

wasp_recent_objects *wasp_object_hit_recent(wasp_thread *t)
{
    if (wasp_heap_addresses.moves_concurrently)
        return NULL;
    wasp_recent_objects_sync(&t->recent_objects, wasp_gc_epoch());
    return &t->recent_objects;
}

int wasp_object_hit_access(const wasp_sample_view *v, wasp_object_hit *h, int *rc)
{
    const int any = WASP_ACCESS_LOAD | WASP_ACCESS_STORE;
    *rc = 1;
    if (wasp_view_prev(v, any, &h->acc, &h->at, h->insn)) {
        h->executed = 1;
        return 1;
    }
    if ((*rc = wasp_view_find(v, any, &h->acc, &h->at)) == 1) {
        wasp_view_insn(v, h->at, h->acc.len, h->insn);
        h->executed = v->s->executed;
        return 1;
    }
    return 0;
}

wasp_obj_result wasp_object_hit_find(wasp_thread *t, const wasp_sample_view *v,
                                     wasp_object_hit *h, int count_miss)
{
    int rc;
    h->no_object = 0;
    if (!wasp_object_hit_access(v, h, &rc)) {
        if (count_miss)
            wasp_view_count_miss(t, rc);
        return WASP_OBJ_MISS;
    }
    t->rec.counters[WASP_C_OBJ_SAMPLES]++;
    wasp_obj_result r = wasp_objects_attribute(
        wasp_objects.objmap, h->acc.addr & wasp_heap_addresses.address_mask,
        wasp_gc_epoch(),
        __atomic_load_n(&wasp_objects.objmap_epoch, __ATOMIC_ACQUIRE), wasp_objects.numa_nodes, &h->obj,
        &h->remote);
    if (r == WASP_OBJ_HIT &&
        !wasp_site_kind_fits(h->obj.site, (h->acc.addr & wasp_heap_addresses.address_mask) - h->obj.start,
                             h->acc.size, h->acc.float_size)) {
        t->rec.counters[WASP_C_OBJ_MISMATCHED]++;
        return WASP_OBJ_MISS;
    }
    if (r != WASP_OBJ_HIT && class_site(t, h)) {
        t->rec.counters[WASP_C_OBJ_BY_CLASS]++;
        return WASP_OBJ_HIT;
    }
    if (r == WASP_OBJ_MISS) {
        if (wasp_heap_area_off_heap(h->acc.addr, v->regs.gpr[4]))
            t->rec.counters[WASP_C_OBJ_OFF_HEAP]++; /* a subset of unattributed */
        else
            h->no_object = 1;
    }
    if (r != WASP_OBJ_HIT)
        t->rec.counters[r == WASP_OBJ_STALE ? WASP_C_OBJ_STALE : WASP_C_OBJ_UNATTRIBUTED]++;
    return r;
}
