/*
 * Object replicas (OJXPerf) in the handler. Two sources of comparisons, both
 * through watchpoints:
 *  - samples: a sampled field of a tracked object is compared with the same
 *    field of the site's previously sampled object (snapshots.c) when that
 *    field is next accessed;
 *  - births (no watchpoint): a tracked object allocated by this thread is
 *    read once built, at a later birth of its site, and one word of it is
 *    compared with the site's previous object (births.h). Short-lived
 *    objects, which samples rarely hit twice, are compared so; so are they
 *    where no watchpoint engine works.
 * Comparisons are recorded per site and comparing context: "same" and
 * "different" (t->rec's replicas table, first and second number), and of
 * the same those whose words were zero (third: space allocated and not
 * written, which reads as a copy but is fixed otherwise). So are,
 * with neither, the places where a site's objects are accessed: a sampled
 * access's context, one a thread per PLACE_GAP_NS at most. The summary
 * counts the CPU samples at their lines as the replicas' cost; the
 * comparisons' own places alone were a lottery where watchpoints are few
 * (page protection arms a few a run: the births' comparisons, which have no
 * access, were 99.5% of ReplicaKMeans's).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler.
 */
#include "watch/handler_part.h"
#include "analysis/replicas/births.h"
#include "analysis/replicas/comparisons.h"
#include "analysis/replicas/snapshots.h"
#include "common/clock.h"
#include "watch/run_state.h"
#include "heap/heap_addresses.h"

enum {
    REPLICA_SNAPS = 64,
    REPLICA_BIRTHS = 64,
    C_ARMED = 0,
    C_COMPARED = 1,
    C_BIRTH_COMPARED = 2,
    C_PLACES = 3
};
/* Births are looked at no more often than once per BIRTH_GAP_NS (two reads
 * and a context each: a bounded cost whatever the allocation rate), and a
 * pending object is read BIRTH_SETTLE_NS after its birth at the earliest,
 * when the program has long built it. An access's place is kept no more
 * often than once per PLACE_GAP_NS for its site (PLACE_SITES sites a
 * thread, by site number) and once per PLACE_MIN_GAP_NS in all (a context
 * each: at most half of what -e objects captures at a 1 ms period, enough
 * to find every line that touches a site often). One gap for every site
 * let an untracked class's accesses take the places of a tracked site's
 * few (ReplicaRing: its copies' reads, 1 in 20 of them tracked, were
 * missed in 1 run of 3, and their line's CPU with them). */
static const uint64_t BIRTH_GAP_NS = 250000, BIRTH_SETTLE_NS = 1000000, PLACE_GAP_NS = 10000000,
                      PLACE_MIN_GAP_NS = 2000000;
enum { PLACE_SITES = 16 };

/* When a site's next access place may be kept (site 0 with next_ns 0: any). */
typedef struct place_gap {
    uint32_t site;
    uint64_t next_ns;
} place_gap;

/* Per thread: the last sampled field of each site, and each site's pending
 * birth (small hash tables by site). */
typedef struct replica_thread {
    wasp_replica_snap snaps[REPLICA_SNAPS];
    wasp_birth_slot births[REPLICA_BIRTHS];
    uint64_t next_birth_ns; /* monotonic time before which births are not looked at */
    uint64_t next_place_ns; /* ... and accesses' places not kept, any site's */
    place_gap places[PLACE_SITES]; /* ... this site's, by site number */
} replica_thread;

/* A comparison: equal or not, and when equal whether the words were zero. */
static void record(wasp_thread *t, uint32_t site, uint32_t ctx, int same, int zero)
{
    wasp_records_site(&t->rec, WASP_ID_replicas, site, ctx, same ? 1.0 : 0.0, same ? 0.0 : 1.0,
                      same && zero ? 1.0 : 0.0);
    t->rec.part_counters[WASP_ID_replicas][C_COMPARED]++;
}

/* The sampled access's place, with no comparison: a record of (0, 0). Wall
 * time from the vDSO, as births read it. Returns the context captured (0:
 * none), which a comparison of the same sample uses too. */
static uint32_t keep_place(wasp_thread *t, replica_thread *rt, const wasp_sample_view *v,
                           const wasp_object_hit *h)
{
    uint64_t now = wasp_clock_ns(CLOCK_MONOTONIC);
    uint32_t site = h->obj.site;
    place_gap *gap = &rt->places[site % PLACE_SITES];
    if (now < rt->next_place_ns || (gap->site == site && now < gap->next_ns))
        return 0;
    rt->next_place_ns = now + PLACE_MIN_GAP_NS;
    gap->site = site;
    gap->next_ns = now + PLACE_GAP_NS;
    uint32_t ctx = wasp_capture_context(t, v->uc, h->at, h->insn, h->acc.len);
    if (ctx && wasp_records_site(&t->rec, WASP_ID_replicas, h->obj.site, ctx, 0.0, 0.0, 0.0) == 0)
        t->rec.part_counters[WASP_ID_replicas][C_PLACES]++;
    return ctx;
}

static void on_object(wasp_thread *t, const wasp_sample_view *v, const wasp_object_hit *h)
{
    replica_thread *rt = t->part_state[WASP_ID_replicas];
    uint32_t place = keep_place(t, rt, v, h);
    uint64_t field;
    int len;
    wasp_watch_span(h->acc.addr, h->acc.size, &field, &len);
    /* The field's value as the sampled access leaves it: memory, unless it is
     * a store that has not run yet — then the value it is about to store. */
    int ok;
    uint64_t value = wasp_read_value(field, len, &ok);
    if (!h->executed && (h->acc.kind & WASP_ACCESS_STORE)) {
        ok = h->acc.has_src && h->acc.size <= 8 && field == h->acc.addr;
        value = h->acc.src;
    }
    uint64_t waddr, v1;
    uint8_t wlen;
    uint32_t epoch = wasp_gc_epoch();
    /* The map compares masked addresses (ZGC colours); a watchpoint needs the
     * address the program uses, so work from the object's base as seen here. */
    uint64_t base = field - ((field & wasp_heap_addresses.address_mask) - h->obj.start);
    /* Contents only: the header (mark word, class, array length — 16 bytes
     * with compressed class pointers) is the same for every object of a
     * site, or differs for reasons that are not the program's data. */
    if (field - base < 16)
        return;
    wasp_replica_action act =
        wasp_replica_sample(rt->snaps, REPLICA_SNAPS, h->obj.site, epoch, base, h->obj.size,
                            field, (uint8_t)len, value, ok, &waddr, &wlen, &v1);
    if (act == WASP_REPLICA_DIFFERENT) {
        record(t, h->obj.site,
               place ? place : wasp_capture_context(t, v->uc, h->at, h->insn, h->acc.len), 0, 0);
        return;
    }
    if (act != WASP_REPLICA_WATCH)
        return;
    wasp_watch_epoch_check(t);
    wasp_slot *slot = wasp_watch_claim(t, WASP_ID_replicas, waddr, wlen, 1);
    if (!slot)
        return;
    slot->watch.v1 = v1;
    slot->tag = h->obj.site;
    slot->state = WASP_SLOT_ARMED; /* any access to the field is the comparison */
    t->rec.part_counters[WASP_ID_replicas][C_ARMED]++;
}

static void on_birth(wasp_thread *t, const wasp_birth *b)
{
    replica_thread *rt = t->part_state[WASP_ID_replicas];
    /* Wall time from the vDSO (a thread CPU clock read is a system call,
     * ~1.7 us here, and this runs at every tracked allocation). */
    uint64_t now = wasp_clock_ns(CLOCK_MONOTONIC);
    if (now < rt->next_birth_ns)
        return;
    rt->next_birth_ns = now + BIRTH_GAP_NS;
    uint32_t offset = 0;
    wasp_birth_verdict v =
        wasp_replica_born(rt->births, REPLICA_BIRTHS, b->site, b->addr, b->size, b->epoch, now,
                           BIRTH_SETTLE_NS, &t->rng, wasp_read_value, &offset);
    if (v == WASP_BIRTH_NONE)
        return;
    /* Compared where the site allocates again: its allocation path. */
    uint32_t trace = wasp_records_trace(&t->rec, b->frames, (int)b->nframes);
    uint32_t ctx = trace ? wasp_records_context(&t->rec, trace, 0, NULL, 0) : 0;
    record(t, b->site, ctx, v != WASP_BIRTH_DIFFERENT, v == WASP_BIRTH_ZERO);
    wasp_replica_comparisons_count(b->site);
    t->rec.part_counters[WASP_ID_replicas][C_BIRTH_COMPARED]++;
}

/* The watched field of the later object was accessed: compare what it holds
 * now with the earlier object's sampled value. */
static void on_trap(wasp_thread *t, int i, const ucontext_t *uc)
{
    wasp_slot *slot = &t->slots[i];
    int ok;
    uint64_t now = wasp_read_value(slot->addr, slot->watch.len, &ok);
    if (!ok) {
        wasp_watch_drop(t, i, WASP_C_DROP_UNREADABLE);
        return;
    }
    uint32_t ctx = wasp_watch_trap_context(t, slot, uc);
    uint8_t len = slot->watch.len;
    record(t, slot->tag, ctx, wasp_replica_same(now, slot->watch.v1, len),
           wasp_replica_same(now, 0, len));
    wasp_replica_comparisons_count(slot->tag); /* field comparisons rank --verify-top */
    wasp_watch_done(t, i);
}

const wasp_handler_part wasp_handler_replicas = {
    .needs = WASP_NEEDS_OBJECTS | WASP_NEEDS_JAVA | WASP_NEEDS_WATCH,
    .on_object = on_object,
    .on_birth = on_birth,
    .on_trap = on_trap,
    .counters = {[C_ARMED] = "replicas.armed",
                 [C_COMPARED] = "replicas.compared",
                 [C_BIRTH_COMPARED] = "replicas.birth_compared",
                 [C_PLACES] = "replicas.places"},
    .thread_state = sizeof(replica_thread),
};
