/*
 * Object-centric profiling (DJXPerf) in the handler: a sample that touched a
 * tracked object is credited to the object's allocation site, under the
 * calling context of the access, and counted remote when the object's page
 * sits on another NUMA node than the CPU.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler.
 */
#include "watch/handler_part.h"

#include "heap/class_site.h"

static void on_object(wasp_thread *t, const wasp_sample_view *v, const wasp_object_hit *h)
{
    uint32_t ctx = wasp_capture_context(t, v->uc, h->at, h->insn, h->acc.len);
    wasp_records_site(&t->rec, WASP_ID_objects, h->obj.site, ctx, 1.0, h->remote ? 1.0 : 0.0,
                      0.0);
}

/* Kept with its context only so the dump can tell allocation clearing
 * (agent.c); never a site of the profile. */
static void on_no_object(wasp_thread *t, const wasp_sample_view *v, const wasp_object_hit *h)
{
    uint32_t ctx = wasp_capture_context(t, v->uc, h->at, h->insn, h->acc.len);
    wasp_records_site(&t->rec, WASP_ID_objects, WASP_NO_OBJECT_SITE, ctx, 1.0, 0.0, 0.0);
}

const wasp_handler_part wasp_handler_objects = {
    .needs = WASP_NEEDS_OBJECTS | WASP_NEEDS_JAVA,
    .wants = WASP_WANTS_MISSES,
    .on_object = on_object,
    .on_no_object = on_no_object,
    /* sites by share of the accesses (ObjectsChurn 1.05x CPU at 2 ms against
     * 1.08x at 1 ms: docs/overhead-objects.md) */
    .period_ns = wasp_period_for_shares,
};
