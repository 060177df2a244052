/*
 * The page-protection watchpoint engine (see engine.h), for machines whose
 * debug registers do not trap.
 *
 * Arming protects the watched page: PROT_NONE, or PROT_READ when only stores
 * count and the page's loads have proved costlier than its stores
 * (weigh_readable). Any thread's access to a protected page faults into our
 * SIGSEGV handler. On a PROT_NONE page, a move or arithmetic with a memory
 * operand is emulated there (wasp_isa_emulate); any other access opens the
 * page, sets the trap flag and returns: the instruction runs once and a
 * single-step SIGTRAP follows, after which the page is protected again. When
 * the faulting thread owns a watch on the page and the decoded access
 * overlapped the watched bytes (and is of a kind the watch wants), the access
 * is reported, once emulated or stepped, as that watch's trap — after the
 * access, with the PC past it, as a debug register would report it. Every
 * other access is stepped over (emulated or stepped) and counted.
 *
 * Faults that are not on our pages go to the handler installed before ours
 * (HotSpot's: implicit null checks, safepoint polls, stack banging and
 * SafeFetch depend on it) untouched.
 *
 * Invariants that keep the JVM alive:
 *  - a page is protected by us only while it has a record here; a record is
 *    kept (as a tombstone) after its page is opened again, so a fault that
 *    raced with the opening is retried, never passed to HotSpot; when the
 *    tombstone has gone to another page meanwhile, a heap fault on a page
 *    that is readable now is retried too (stale_retry);
 *  - only Java heap pages are protected (never a stack: a signal frame could
 *    not be written there);
 *  - a thread that cannot be stepped (SIGTRAP blocked where it faulted, or
 *    the stepping table full) gets the page opened for good: the watches on
 *    it are lost, the program goes on;
 *  - a page's protection, its watches and steppers change only under its
 *    record's lock; which page a record holds changes only under the table
 *    lock too (see "locks" below). A holder never touches a protected page,
 *    and a handler that finds its own thread inside the engine gives up
 *    instead of waiting.
 *
 * Threads faulting on different pages do not wait for each other: each
 * record has its own lock, held across its page's mprotect (its faults must
 * wait for that anyway), and a fault finds its record without a lock. One
 * engine-wide lock serialised every fault of every thread, and a holder
 * preempted on a busy machine stalled them all (docs/overhead.md).
 *
 * ASYNC-SIGNAL-SAFE: everything in this file except page_self_test,
 * page_thread_open/close, page_set_heap, page_figures and page_drop_all runs in signal
 * handlers: no malloc, no stdio, no locks but the owner-checked spin locks.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/self_tid.h"
#include "isa/isa.h"
#include "watch/chain.h"
#include "watch/engine.h"
#include "watch/budget.h"
#include "watch/handler.h"
#include "watch/page_alias.h"
#include "watch/page_cost.h"
#include "watch/page_shadow.h"
#include "watch/session.h"
#include "watch/slots.h"
#include "watch/thread_registry.h"

enum {
    PAGE = 4096,
    MAX_PAGES = 1024,    /* page records, tombstones included */
    REFS = WASP_WINDOW_SLOTS, /* watches on one page (window watches included) */
    MAX_STEPPERS = 512,  /* threads single-stepping at once */
    STEP_PAGES = 4,      /* pages one instruction may touch */
    TOMB_RETRIES = 1000, /* faults on an opened page retried before chaining */
    READABLE_SLACK = 8,  /* stepped faults' worth a closed page may lose before it turns readable */
    STALE_SLOTS = 256,   /* threads whose faults on recycled pages are counted */
    EFLAGS_TF = 0x100,
    TRAP_TRACE_CODE = 2,
    PROBE_THREAD = 0xffffffffu,
    /* Watches one access may hit: all of the thread's, since an emulated
     * `rep stos` writes a whole page at once (the ones past 68, a 64-byte
     * vector access over byte-wide members and the sampled watches, were
     * written unjudged and judged wrongly later). */
    MAX_HITS = WASP_MAX_SLOTS,
};

enum { PROT_OPEN = 0, PROT_RO = 1, PROT_CLOSED = 2 };

typedef struct watch_ref {
    uint64_t addr;
    uint32_t thread; /* registry index of the watching thread */
    pid_t tid;
    uint32_t faults; /* the owner's faults on the page since arming */
    uint16_t slot;
    uint8_t len;
    uint8_t loads : 1, used : 1;
} watch_ref;

typedef struct page_rec {
    volatile pid_t lock; /* its holder's tid, 0: free; guards the rest and the page's protection */
    uint64_t page;      /* 0: free; changes under the table lock too */
    uint32_t steppers;  /* threads stepping an access to it: page open meanwhile */
    uint8_t prot;       /* PROT_OPEN / PROT_RO / PROT_CLOSED, as we last set it */
    uint8_t stuck;      /* reopening failed: keep the record for good */
    uint32_t tomb_faults; /* faults retried on it as a tombstone since its last change */
    uint32_t foreign;   /* faults by threads without a watch here, since it was last open */
    uint32_t nlive;     /* refs in use (claim scans every record: no loop over refs there) */
    uint32_t refs_high; /* no ref past the first refs_high was used since the record's claim */
    /* Store-only watches: the page closed to loads too, so that its stores
     * fault on PROT_NONE and can be emulated, until its faults have cost more
     * than its stores alone would have, stepped, on PROT_READ (weigh_readable). */
    uint8_t readable;      /* 1: store-only watches leave it readable from now on */
    uint64_t closed_ns;    /* its faults' cost while closed for store-only watches */
    uint64_t readable_ns;  /* what its store faults alone would have cost */
    uint64_t freed_seq; /* when it became a tombstone (oldest reused first) */
    uint64_t alias;     /* a writable mapping of the page while it is closed (page_alias.h); 0: none */
    uint8_t no_alias;   /* the kernel gave it none: /proc/self/mem from now on */
    /* What its sampled watches cost, learned when it opens (page_cost.h). */
    uint32_t closed_faults; /* faults on it, every thread's, since it was last open */
    uint32_t sampled_arms;  /* sampled watches armed on it meanwhile (not window members) */
    watch_ref ref[REFS];
} page_rec;

typedef struct stepper { /* its thread: stepper_tid[] at the same index */
    uint64_t pc;
    uint32_t npages;
    uint64_t pages[STEP_PAGES];
    uint32_t hit_thread; /* PROBE_THREAD or a registry index; valid when nhits */
    uint32_t nhits;      /* watches the access touched: their slots in hit_slot */
    uint16_t hit_slot[MAX_HITS];
    wasp_thread *owner;  /* the stepping thread's state when it owns a watch on the page */
    int seen;            /* 1: `access` is the owner's access, decoded */
    wasp_window_access access;
} stepper;

static page_rec pages[MAX_PAGES];
/* pages[i].page again, packed: every fault looks its page up here, and the
 * records, 6 KB apart, would cost a cache miss each. Read without a lock
 * (a record found is checked again under its own); written under the table
 * lock. Records are taken first-free, so none past the first recs_high was
 * ever used. */
static volatile uint64_t page_key[MAX_PAGES];
/* pages[i].freed_seq while record i is a tombstone that may be reused, else
 * 0: claim's hint, read without the records' locks, packed like page_key
 * (a scan of the records themselves, 6 KB apart, missed the cache and TLB
 * at each, under the table lock: 64 threads arming new pages waited). */
static volatile uint64_t reuse_hint[MAX_PAGES];
static volatile uint32_t recs_high;
static stepper steppers[MAX_STEPPERS];
/* Which thread holds each stepper (0: free), apart from the steppers so that
 * every fault's lookup reads a few bytes, not 512 records (it was a tenth of
 * a fault's time); only the first steppers_used are ever taken. */
static volatile pid_t stepper_tid[MAX_STEPPERS];
static volatile uint32_t steppers_used;
static volatile pid_t table_lock;
static volatile uint32_t nrecs; /* records in use, tombstones included */
static volatile uint64_t seq;
static uint64_t heap_lo, heap_hi;
static struct sigaction previous_segv;
static volatile int segv_installed;
/* Process-wide, for the profile (page_figures). */
static struct {
    uint64_t faults;         /* protection faults on watched pages */
    uint64_t stepped;        /* ... that were not a watched access (stepped over) */
    uint64_t emulated;       /* ... of those, completed by emulation instead of a step */
    uint64_t foreign;        /* ... by threads that do not own a watch on the page */
    uint64_t released;       /* pages released because they could not be stepped */
    uint64_t protect_failed; /* mprotect refusals */
    uint64_t copy_loads;     /* emulated loads served from a page's copy */
    uint64_t lock_waits;     /* lock takings that found the lock held */
    uint64_t lock_wait_ns;   /* ... and the time they waited */
    uint64_t table_waits;    /* ... of those, the table lock's */
    uint64_t nested;         /* faults raised inside our handling, passed on (install_segv) */
} stats;
/* Faults on heap pages that have no record (any longer), per thread (by tid,
 * hashed): the same access faulting again and again is not ours. */
static struct stale_fault {
    pid_t tid;
    uint64_t pc, addr;
    uint32_t count;
} stale_faults[STALE_SLOTS];
static volatile uint32_t probe_hits;
static int mem_rw = -1; /* /proc/self/mem, for emulated accesses */
/* Measured at start-up: one fault completed by emulation (a store; a load
 * from the page's copy), one single-stepped. */
static uint64_t cost_emulated_ns = 15000, cost_copy_load_ns = 15000, cost_stepped_ns = 40000;

/* What an emulated load costs: a store's, unless it reads the page's copy. */
static uint64_t cost_emulated_load_ns(void)
{
    return wasp_page_shadow_enabled() ? cost_copy_load_ns : cost_emulated_ns;
}
static uint64_t foreign_cost_ns;

/* ---- locks ---------------------------------------------------------------- */

/* The table lock: which page each record holds (claim, forget), and the
 * decision that a fault's page has no record. A record's lock: everything
 * in the record, and its page's protection. Order: the table lock, then one
 * record's; never two records' at once. Spin locks holding the owner's tid,
 * held only by engine code, which never touches a protected page.
 *
 * in_engine counts the locks this thread holds: a signal handler that
 * interrupted the engine on its own thread gives up at once (page_busy tells
 * the sample handler so) instead of waiting for a lock its thread holds,
 * or taking a second record's against the order. */
static __thread uint32_t in_engine __attribute__((tls_model("initial-exec")));

static void lock_wait(volatile pid_t *l, pid_t me)
{
    uint64_t t0 = wasp_clock_ns(CLOCK_MONOTONIC);
    for (unsigned spins = 1;; spins++) {
        pid_t free_ = 0;
        if (__atomic_load_n(l, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(l, &free_, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            break;
        if (spins > 64)
            sched_yield(); /* its holder may be preempted: give it the CPU */
        else
            __builtin_ia32_pause();
    }
    __atomic_add_fetch(&stats.lock_waits, 1, __ATOMIC_RELAXED);
    if (l == &table_lock)
        __atomic_add_fetch(&stats.table_waits, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats.lock_wait_ns, wasp_clock_ns(CLOCK_MONOTONIC) - t0, __ATOMIC_RELAXED);
}

/* Take lock l (waiting while another thread holds it). in_engine counts it
 * before it is taken and until after it is given back: a signal between the
 * two must see it. */
static void lock(volatile pid_t *l, pid_t me)
{
    in_engine++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    pid_t free_ = 0;
    if (!__atomic_compare_exchange_n(l, &free_, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        lock_wait(l, me);
}

/* Take lock l if it is free; 1 when taken. */
static int lock_try(volatile pid_t *l, pid_t me)
{
    in_engine++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    pid_t free_ = 0;
    if (__atomic_compare_exchange_n(l, &free_, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    in_engine--;
    return 0;
}

static void unlock(volatile pid_t *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    in_engine--;
}

/* Whether this thread may enter the engine: not from a handler that
 * interrupted it inside the engine. */
static int may_enter(void)
{
    return __atomic_load_n(&in_engine, __ATOMIC_RELAXED) == 0;
}

/* ---- page records (the record's lock held) ------------------------------- */

/* page's record, without a lock: under the table lock, the answer; under
 * none, a candidate to check under its own lock (record_of). */
static page_rec *find(uint64_t page)
{
    uint32_t n = __atomic_load_n(&recs_high, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++)
        if (__atomic_load_n(&page_key[i], __ATOMIC_ACQUIRE) == page)
            return &pages[i];
    return NULL;
}

/* page's record, locked; NULL when it has none, and then the table lock is
 * held (*table = 1), so that no record is given to the page until the
 * caller has decided what that means. A record found without the table lock
 * may have gone to another page before its lock was taken: looked for again
 * under the table lock. */
static page_rec *record_of(uint64_t page, pid_t me, int *table)
{
    *table = 0;
    page_rec *r = find(page);
    if (r) {
        lock(&r->lock, me);
        if (r->page == page)
            return r;
        unlock(&r->lock);
    }
    lock(&table_lock, me);
    r = find(page);
    if (!r) {
        *table = 1;
        return NULL;
    }
    lock(&r->lock, me);
    unlock(&table_lock);
    return r;
}

static int live_refs(const page_rec *r, int *loads)
{
    int n = 0;
    *loads = 0;
    if (!r->nlive)
        return 0;
    for (uint32_t i = 0; i < r->refs_high; i++)
        if (r->ref[i].used) {
            n++;
            *loads |= r->ref[i].loads;
        }
    return n;
}

/* Forget ref i of r; all of t's (registry index) in slot; all of them. */
static void ref_drop(page_rec *r, int i)
{
    if (r->ref[i].used) {
        r->ref[i].used = 0;
        if (--r->nlive == 0)
            r->refs_high = 0; /* every loop over the refs short again */
    }
}

static void refs_drop_slot(page_rec *r, uint32_t thread, int slot)
{
    for (uint32_t i = 0; i < r->refs_high; i++)
        if (r->ref[i].used && r->ref[i].thread == thread && r->ref[i].slot == slot)
            ref_drop(r, i);
}

static void refs_drop_all(page_rec *r)
{
    for (uint32_t i = 0; i < r->refs_high; i++)
        ref_drop(r, i);
}

/* r's page opened, or r goes: its alias may soon map other memory. */
static void drop_alias(page_rec *r)
{
    wasp_page_alias_unmap(r->alias);
    r->alias = 0;
}

/* Whether r (locked) is a tombstone that may go to another page. */
static int reusable(const page_rec *r)
{
    int loads;
    return !r->stuck && r->steppers == 0 && r->prot == PROT_OPEN && live_refs(r, &loads) == 0;
}

/* A record for page, locked: its own, a free one, or the oldest tombstone
 * (table lock held). Tombstones are chosen by their unlocked hint and
 * checked under their lock; one busy or changed meanwhile is passed over. */
static page_rec *claim(uint64_t page, pid_t me)
{
    page_rec *r = find(page);
    if (r) {
        lock(&r->lock, me);
        return r;
    }
    for (int attempt = 0; attempt < 8; attempt++) {
        page_rec *oldest = NULL;
        uint64_t oldest_seq = 0;
        for (int i = 0; i < MAX_PAGES; i++) {
            if (page_key[i] == 0) { /* free: stable under the table lock */
                oldest = &pages[i];
                break;
            }
            uint64_t since = __atomic_load_n(&reuse_hint[i], __ATOMIC_RELAXED);
            if (since && (!oldest || since < oldest_seq)) {
                oldest = &pages[i];
                oldest_seq = since;
            }
        }
        if (!oldest)
            return NULL;
        if (!lock_try(&oldest->lock, me))
            continue;
        if (oldest->page == 0 || reusable(oldest)) {
            if (oldest->page == 0)
                __atomic_add_fetch(&nrecs, 1, __ATOMIC_RELEASE);
            drop_alias(oldest);
            /* All but the lock, which this thread holds. */
            memset((char *)oldest + offsetof(page_rec, page), 0,
                   sizeof *oldest - offsetof(page_rec, page));
            uint32_t index = (uint32_t)(oldest - pages);
            wasp_page_shadow_drop(index);
            oldest->page = page;
            __atomic_store_n(&page_key[index], page, __ATOMIC_RELEASE);
            if (index >= recs_high)
                __atomic_store_n(&recs_high, index + 1, __ATOMIC_RELEASE);
            oldest->prot = PROT_OPEN;
            oldest->freed_seq = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&reuse_hint[index], oldest->freed_seq, __ATOMIC_RELAXED);
            return oldest;
        }
        unlock(&oldest->lock);
    }
    return NULL;
}

/* mprotect r's page to want (PROT_OPEN, PROT_RO or PROT_CLOSED). */
static void protect(page_rec *r, int want)
{
    int prot = want == PROT_OPEN ? PROT_READ | PROT_WRITE : want == PROT_RO ? PROT_READ : PROT_NONE;
    wasp_page_shadow_drop((uint32_t)(r - pages)); /* open even for a moment, it may change */
    if (mprotect((void *)(uintptr_t)r->page, PAGE, prot) != 0) {
        __atomic_add_fetch(&stats.protect_failed, 1, __ATOMIC_RELAXED);
        if (want == PROT_OPEN)
            r->stuck = 1; /* still protected: keep stepping its faults */
        return;
    }
    r->prot = (uint8_t)want;
    if (want == PROT_OPEN)
        drop_alias(r);
    /* Faults raised before this change and handled after it are retried;
     * only a run of them with nothing changing is someone else's. */
    r->tomb_faults = 0;
}

/* Give the page the protection its watches and steppers call for. */
static void apply(page_rec *r)
{
    int loads, n = live_refs(r, &loads);
    int want = r->steppers || n == 0       ? PROT_OPEN
               : loads || !r->readable ? PROT_CLOSED
                                       : PROT_RO;
    if (want == PROT_OPEN && n == 0 && !r->steppers) {
        r->freed_seq = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED); /* the last to be reused */
        wasp_page_cost_learn(r->page, r->closed_faults, r->sampled_arms);
        r->closed_faults = r->sampled_arms = 0;
    }
    if (want != r->prot)
        protect(r, want);
    __atomic_store_n(&reuse_hint[r - pages], reusable(r) ? r->freed_seq : 0, __ATOMIC_RELAXED);
}

/* ---- the engine ------------------------------------------------------------ */

static void page_set_heap(uint64_t lo, uint64_t hi)
{
    heap_lo = lo;
    heap_hi = hi;
}

static int page_arm_ref(uint32_t thread, pid_t tid, int slot, uint64_t addr, int len,
                        int loads_too, int sampled)
{
    uint64_t page = addr & ~(uint64_t)(PAGE - 1);
    pid_t me = wasp_self_tid();
    if (!may_enter())
        return -1;
    page_rec *r = find(page); /* most arms are on a page watched already */
    if (r) {
        lock(&r->lock, me);
        if (r->page != page) {
            unlock(&r->lock);
            r = NULL;
        }
    }
    if (!r) {
        lock(&table_lock, me);
        r = claim(page, me);
        unlock(&table_lock);
        if (!r)
            return -1;
    }
    int placed = 0, loads;
    if (!live_refs(r, &loads))
        r->foreign = 0;
    if (!r->stuck)
        for (uint32_t i = 0; i < REFS && !placed; i++)
            if (!r->ref[i].used) {
                r->ref[i] = (watch_ref){.addr = addr, .thread = thread, .tid = tid,
                                        .slot = (uint16_t)slot, .len = (uint8_t)len,
                                        .loads = loads_too != 0, .used = 1};
                r->nlive++;
                if (i >= r->refs_high)
                    r->refs_high = i + 1;
                placed = 1;
            }
    if (placed && sampled)
        r->sampled_arms++;
    if (placed) {
        apply(r);
        if (r->prot == PROT_OPEN && !r->steppers) { /* could not protect it */
            refs_drop_slot(r, thread, slot);
            apply(r);
            placed = 0;
        }
    }
    unlock(&r->lock);
    return placed ? 0 : -1;
}

static void page_disarm_ref(uint32_t thread, int slot, uint64_t page)
{
    pid_t me = wasp_self_tid();
    if (!may_enter())
        return; /* cannot happen (see locks); the page stays watched until drop_all */
    int table;
    page_rec *r = record_of(page, me, &table);
    if (r) {
        refs_drop_slot(r, thread, slot);
        apply(r);
        unlock(&r->lock);
    }
    if (table)
        unlock(&table_lock);
}

static int page_arm(wasp_thread *t, int slot, uint64_t addr, int len, int loads_too)
{
    wasp_slot *s = &t->slots[slot];
    if (s->wp_page) {
        page_disarm_ref(t->index, slot, s->wp_page);
        s->wp_page = 0;
    }
    if (addr < heap_lo || addr + (uint64_t)len > heap_hi)
        return WASP_ARM_NOT_WATCHABLE; /* not the Java heap: never protected */
    if (page_arm_ref(t->index, t->tid, slot, addr, len, loads_too, slot < t->nslots) != 0)
        return -1;
    s->wp_page = addr & ~(uint64_t)(PAGE - 1);
    return 0;
}

static void page_disarm(wasp_thread *t, int slot)
{
    wasp_slot *s = &t->slots[slot];
    if (s->wp_page)
        page_disarm_ref(t->index, slot, s->wp_page);
    s->wp_page = 0;
    s->state = WASP_SLOT_FREE;
}

/* Remove a page's record altogether (its page is about to be unmapped). */
static void forget(uint64_t page)
{
    pid_t me = wasp_self_tid();
    if (!may_enter())
        return;
    lock(&table_lock, me);
    page_rec *r = find(page);
    if (r) {
        lock(&r->lock, me);
        if (!r->steppers && !r->stuck) {
            drop_alias(r);
            __atomic_store_n(&page_key[r - pages], 0, __ATOMIC_RELEASE);
            memset((char *)r + offsetof(page_rec, page), 0, sizeof *r - offsetof(page_rec, page));
            __atomic_store_n(&reuse_hint[r - pages], 0, __ATOMIC_RELAXED);
            wasp_page_shadow_drop((uint32_t)(r - pages));
            __atomic_sub_fetch(&nrecs, 1, __ATOMIC_RELEASE);
        }
        unlock(&r->lock);
    }
    unlock(&table_lock);
}

static void page_drop_all(void)
{
    pid_t me = wasp_self_tid();
    if (!may_enter())
        return;
    uint32_t n = __atomic_load_n(&recs_high, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++) {
        page_rec *r = &pages[i];
        lock(&r->lock, me);
        if (r->page) {
            refs_drop_all(r);
            /* What the page holds after a collection is another matter. */
            r->readable = 0;
            r->closed_ns = r->readable_ns = 0;
            apply(r);
        }
        unlock(&r->lock);
    }
}

static int page_thread_open(wasp_thread *t, int n, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    t->nslots = n < t->capacity ? n : t->capacity;
    /* Watching more bytes of a page that is protected anyway costs nothing
     * more: the rest of the slots take accesses the faults show whole. */
    t->nwindow = t->capacity - t->nslots;
    return t->nslots; /* the slots come free, without a page (wasp_slots_alloc) */
}

static void page_thread_close(wasp_thread *t)
{
    for (int i = 0; i < t->capacity; i++)
        if (t->slots[i].wp_page)
            page_disarm(t, i);
    t->nslots = t->nwindow = 0;
}

/* ---- faults ---------------------------------------------------------------- */

static stepper *stepper_of(pid_t me)
{
    uint32_t used = __atomic_load_n(&steppers_used, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < used; i++)
        if (stepper_tid[i] == me)
            return &steppers[i];
    return NULL;
}

static stepper *stepper_claim(pid_t me)
{
    for (uint32_t i = 0; i < MAX_STEPPERS; i++) {
        pid_t free_ = 0;
        if (stepper_tid[i] == 0 &&
            __atomic_compare_exchange_n(&stepper_tid[i], &free_, me, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            uint32_t used = __atomic_load_n(&steppers_used, __ATOMIC_RELAXED);
            while (used <= i && !__atomic_compare_exchange_n(&steppers_used, &used, i + 1, 1,
                                                             __ATOMIC_RELEASE, __ATOMIC_RELAXED))
                ;
            return &steppers[i];
        }
    }
    return NULL;
}

static void stepper_free(stepper *st)
{
    __atomic_store_n(&stepper_tid[st - steppers], 0, __ATOMIC_RELEASE);
}

/* Close a step's pages again (no lock held: each record's is taken in
 * turn). A page with steppers keeps its record. */
static void step_close_pages(stepper *st, pid_t me)
{
    for (uint32_t i = 0; i < st->npages; i++) {
        int table;
        page_rec *r = record_of(st->pages[i], me, &table);
        if (r) {
            if (r->steppers) {
                r->steppers--;
                apply(r);
            }
            unlock(&r->lock);
        }
        if (table)
            unlock(&table_lock);
    }
    st->npages = 0;
}

static int listed_hit(const stepper *st, uint16_t slot)
{
    for (uint32_t i = 0; i < st->nhits; i++)
        if (st->hit_slot[i] == slot)
            return 1;
    return 0;
}

/* Which of this thread's watches on r does the faulting access touch? All of
 * them, as debug registers would each trap: a vector access may span many
 * window members, and one it passed over unreported would be judged by a
 * later access instead (a load missed makes a store look dead). When the
 * access decoded, it is kept in st->access (a window access). */
static void find_hit(stepper *st, const page_rec *r, pid_t me, const ucontext_t *uc,
                     const siginfo_t *si, const uint8_t *code, size_t n)
{
    uint64_t lo = (uint64_t)(uintptr_t)si->si_addr, hi = lo + 1;
    int store = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0; /* page-fault error code: write */
    uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    wasp_regs regs;
    wasp_access acc;
    wasp_isa_regs_from_ucontext(uc, &regs);
    st->seen = 0;
    if (n && wasp_isa_decode_access(code, n, pc, &regs, &acc) == 1 && lo >= acc.addr &&
        lo < acc.addr + acc.size) {
        /* The whole access, not only its first faulting byte: for a rep
         * string instruction, its elements on this page (emulated at once;
         * stepped, each one's trap judges only what it reached). */
        lo = acc.addr;
        hi = acc.addr + acc.size;
        if (acc.repeated && !regs.backward) {
            uint64_t block = regs.gpr[1] * acc.element, room = r->page + PAGE - acc.addr;
            hi = acc.addr + (block < room ? block : room);
        }
        store = (acc.kind & WASP_ACCESS_STORE) != 0;
        if (acc.len <= sizeof st->access.insn && (acc.addr & ~(uint64_t)(PAGE - 1)) == r->page &&
            ((acc.addr + acc.size - 1) & ~(uint64_t)(PAGE - 1)) == r->page) {
            st->seen = 1;
            st->access.pc = pc;
            st->access.acc = acc;
            memcpy(st->access.insn, code, acc.len);
        }
    }
    for (uint32_t i = 0; i < r->refs_high && st->nhits < MAX_HITS; i++) {
        const watch_ref *w = &r->ref[i];
        if (!w->used || w->tid != me || (!store && !w->loads) || !w->len)
            continue; /* len 0: a hold, no bytes (watch/kit.h) */
        if (lo < w->addr + w->len && w->addr < hi && !listed_hit(st, w->slot)) {
            st->hit_thread = w->thread;
            st->hit_slot[st->nhits++] = w->slot;
        }
    }
}

/* Whether me watches on r: its registry index and one of its slots there. */
static int owns_watch(const page_rec *r, pid_t me, uint32_t *thread, int *slot)
{
    for (uint32_t i = 0; i < r->refs_high; i++)
        if (r->ref[i].used && r->ref[i].tid == me) {
            *thread = r->ref[i].thread;
            *slot = r->ref[i].slot;
            return 1;
        }
    return 0;
}

/* Give up on a page: open it for good, its watches lost (its lock held). */
static void release_page(page_rec *r)
{
    refs_drop_all(r);
    apply(r);
    __atomic_add_fetch(&stats.released, 1, __ATOMIC_RELAXED);
}

/* The cost of a fault, to its owner's budget (the analysis of its watch
 * there) or the process's. */
static void charge(wasp_thread *t, int analysis, uint64_t ns)
{
    if (t)
        wasp_budget_charge(t, analysis, ns);
    else
        __atomic_add_fetch(&foreign_cost_ns, ns, __ATOMIC_RELAXED);
}

/* A fault on r, costing ns, while r is closed only for store-only watches
 * (r's lock held): r stays closed while that has cost no more than leaving it
 * readable would have (its store faults alone, each stepped), give or take
 * READABLE_SLACK stepped faults; then it is left readable until the next
 * collection. A page the program mostly writes is cheaper closed, its stores
 * emulated; one it mostly reads, readable. Returns 1 when r turned readable. */
static int weigh_readable(page_rec *r, uint64_t ns, int store)
{
    int loads;
    if (r->prot != PROT_CLOSED || r->readable || !live_refs(r, &loads) || loads)
        return 0;
    r->closed_ns += ns;
    if (store)
        r->readable_ns += cost_stepped_ns;
    r->readable = r->closed_ns > r->readable_ns + READABLE_SLACK * cost_stepped_ns;
    return r->readable;
}

/* Faults by threads without a watch on the page, against the budget's share
 * of the process's CPU time (checked every 64 such faults). */
static int foreign_over_budget(void)
{
    static uint32_t countdown;
    static int over;
    double budget = wasp_session_get()->watch_budget;
    if (budget <= 0)
        return 0;
    if (countdown) {
        countdown--;
        return over;
    }
    countdown = 63;
    double cpu = (double)wasp_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    over = (double)__atomic_load_n(&foreign_cost_ns, __ATOMIC_RELAXED) > budget * cpu;
    return over;
}

_Static_assert(WASP_ANALYSES < 32, "drop_own keeps a bit per analysis and one for none");

/* Drop t's watches on r: those whose analysis's budget is spent, and those
 * past WASP_WATCH_FAULT_CAP (r's lock held). Returns 1 when some were dropped. */
static int drop_own(page_rec *r, wasp_thread *t, pid_t me)
{
    int dropped = 0;
    /* Each analysis's verdict asked once a fault: a window puts up to
     * hundreds of one analysis's watches on a page (bit WASP_ANALYSES: a
     * watch of none). */
    uint32_t asked = 0, in_debt = 0;
    for (uint32_t i = 0; i < r->refs_high; i++) {
        watch_ref *w = &r->ref[i];
        if (!w->used || w->tid != me)
            continue;
        int a = wasp_budget_owner(t, w->slot);
        uint32_t bit = 1u << (a >= 0 && a < WASP_ANALYSES ? a : WASP_ANALYSES);
        if (!(asked & bit)) {
            asked |= bit;
            if (wasp_budget_spent(t, a))
                in_debt |= bit;
        }
        int spent = (in_debt & bit) != 0;
        if (!spent && ++w->faults <= WASP_WATCH_FAULT_CAP)
            continue;
        if (wasp_handler_slot_lost(t, w->slot, spent ? WASP_C_DROP_BUDGET : WASP_C_DROP_FAULT_CAP) != 0)
            continue; /* t's handler is running: leave it to it */
        t->slots[w->slot].wp_page = 0;
        ref_drop(r, i);
        dropped = 1;
    }
    if (dropped)
        apply(r);
    return dropped;
}

/* The memory an emulated access reaches: only the closed page r it faulted
 * on, whose lock is held, so that no other thread sees the access half done
 * (an access reaching another page, whose lock is not held, is refused:
 * stepped instead). Through the page's alias when it has one
 * (page_alias.h), loads from its copy (page_shadow.h), the rest through
 * /proc/self/mem; stores are written through to the copy. */
static int on_page(const page_rec *r, uint64_t addr, size_t n)
{
    return addr >= r->page && addr + n <= r->page + PAGE;
}

static ssize_t emulated_read(void *faulted, uint64_t addr, void *dst, size_t n)
{
    const page_rec *r = faulted;
    if (!on_page(r, addr, n))
        return -1;
    if (r->alias) {
        wasp_page_alias_read(r->alias, (size_t)(addr - r->page), dst, n);
        return (ssize_t)n;
    }
    if (wasp_page_shadow_enabled()) {
        __atomic_add_fetch(&stats.copy_loads, 1, __ATOMIC_RELAXED);
        return wasp_page_shadow_read((uint32_t)(r - pages), r->page, mem_rw, addr, dst, n);
    }
    return pread(mem_rw, dst, n, (off_t)addr);
}

/* The closed page r's alias, made on its first store: 0 when it has none. */
static uint64_t alias_of(page_rec *r)
{
    if (!r->alias && !r->no_alias && wasp_page_alias_wanted()) {
        r->alias = wasp_page_alias_map(r->page);
        r->no_alias = r->alias == 0;
    }
    return r->alias;
}

static ssize_t emulated_write(void *faulted, uint64_t addr, const void *src, size_t n)
{
    page_rec *r = faulted;
    if (!on_page(r, addr, n))
        return -1;
    ssize_t done;
    if (alias_of(r)) {
        wasp_page_alias_write(r->alias, (size_t)(addr - r->page), src, n);
        done = (ssize_t)n;
    } else {
        done = pwrite(mem_rw, src, n, (off_t)addr);
    }
    if (done > 0)
        wasp_page_shadow_wrote((uint32_t)(r - pages), r->page, addr, src, (size_t)done);
    return done;
}

/* Let the faulting access (code: its n bytes) on closed page r complete
 * without stepping, when it is a form emulated there (wasp_isa_emulate).
 * Returns 1 when done. */
static int emulate(page_rec *r, ucontext_t *uc, const uint8_t *code, size_t n)
{
    uint64_t addr;
    wasp_emulated_memory mem = {.read = emulated_read, .write = emulated_write, .ctx = r};
    return n && wasp_isa_emulate(uc, code, n, &mem, &addr) == 1;
}

/* Can this thread read addr now? (process_vm_readv respects protection; when
 * the call itself is refused, say yes: the retry count still bounds it.) */
static int readable_now(uint64_t addr)
{
    uint8_t byte;
    struct iovec local = {.iov_base = &byte, .iov_len = 1};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = 1};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1 || errno != EFAULT;
}

/* A fault on a page without a record (the table lock held: no record can go
 * to the page meanwhile). A heap page we protected may have been opened and
 * its record given to another page since the fault was raised: then the
 * instruction runs again. Not ours when
 * the page is not in the heap, is unreadable now (we never leave a page
 * closed without its record), or the same access keeps faulting. */
static int stale_retry(pid_t me, const siginfo_t *si, const ucontext_t *uc)
{
    uint64_t addr = (uint64_t)(uintptr_t)si->si_addr;
    uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    if (addr < heap_lo || addr >= heap_hi || !readable_now(addr))
        return 0;
    struct stale_fault *f = &stale_faults[(uint32_t)me % STALE_SLOTS];
    if (f->tid != me || f->pc != pc || f->addr != addr)
        *f = (struct stale_fault){.tid = me, .pc = pc, .addr = addr, .count = 0};
    return ++f->count < TOMB_RETRIES;
}

/* An access has completed (stepped or emulated) on a page thread `owner`
 * (NULL: none) watches: report it as the traps of the watches it touched
 * (the hits of thread hit_thread, st copied out), then, when decoded
 * (seen), as a window access, its judging done. */
static void report_access(const stepper *st, wasp_thread *owner, int seen, pid_t me,
                          ucontext_t *uc)
{
    if (st->nhits && st->hit_thread == PROBE_THREAD) {
        __atomic_add_fetch(&probe_hits, 1, __ATOMIC_RELAXED);
        return;
    }
    if (!owner || owner->tid != me)
        return; /* hits are of watches the faulting thread owns: none */
    wasp_window_access a;
    if (seen) {
        a = st->access;
        a.hit = st->nhits != 0;
    }
    wasp_handler_access(owner, st->hit_slot, (int)st->nhits, uc, seen ? &a : NULL);
    wasp_mark_wasp_exit(owner, (uint64_t)uc->uc_mcontext.gregs[REG_RIP]);
}

/* Returns 1 when the fault was ours and is handled (the instruction will run
 * again, stepped), 0 when it belongs to the previous handler. Only the
 * faulted page's record is locked while the fault is handled. */
static int handle_fault(siginfo_t *si, ucontext_t *uc)
{
    uint64_t page = (uint64_t)(uintptr_t)si->si_addr & ~(uint64_t)(PAGE - 1);
    uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    pid_t me = wasp_self_tid();
    if (!may_enter())
        return 0; /* a fault in the engine's own work: never on our pages */
    /* A trap with SIGTRAP blocked would kill the process: such a thread's
     * faults on our pages open them for good. */
    int can_step = !sigismember(&uc->uc_sigmask, SIGTRAP);
    stepper *st = stepper_of(me);
    if (st && (st->pc != pc || !can_step)) {
        /* A step whose trap never came: start afresh; or one this thread
         * cannot finish. Its pages close before this page's lock is taken
         * (one record's lock at a time). */
        step_close_pages(st, me);
        if (!can_step) {
            stepper_free(st);
            st = NULL;
        }
    }
    int table;
    page_rec *r = record_of(page, me, &table);
    if (!r) {
        int retry = stale_retry(me, si, uc);
        unlock(&table_lock);
        return retry;
    }
    int loads;
    if (!r->stuck && r->prot == PROT_OPEN && r->steppers == 0 && live_refs(r, &loads) == 0) {
        /* A tombstone: the page was opened after this fault was raised. Run
         * the instruction again — unless the fault keeps coming, when it is
         * not ours after all. */
        int retry = ++r->tomb_faults < TOMB_RETRIES;
        unlock(&r->lock);
        return retry;
    }
    __atomic_add_fetch(&stats.faults, 1, __ATOMIC_RELAXED);
    r->closed_faults++;
    uint32_t owner;
    wasp_thread *t = NULL; /* this thread, when it owns a watch on the page */
    int owner_slot = -1, analysis = -1; /* the fault's cost goes to analysis's budget */
    if (owns_watch(r, me, &owner, &owner_slot))
        t = wasp_thread_at(owner); /* t is this thread: nobody frees it meanwhile */
    if (t)
        analysis = wasp_budget_owner(t, owner_slot);
    if (!t) {
        __atomic_add_fetch(&stats.foreign, 1, __ATOMIC_RELAXED);
        if (foreign_over_budget() || ++r->foreign > WASP_WATCH_FAULT_CAP) {
            release_page(r); /* other threads' faults cost the process too much */
            unlock(&r->lock);
            return 1;
        }
    }
    if (t && drop_own(r, t, me)) {
        /* Its budget is spent, or a watch cost too many faults: they go, and
         * so may the fault. */
        if (!live_refs(r, &loads) && !r->steppers) {
            unlock(&r->lock);
            return 1;
        }
    }
    int store = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0; /* page-fault error code: write */
    if (!st && can_step)
        st = stepper_claim(me);
    if (!st) {
        /* Cannot single-step this thread here (see can_step), or the
         * stepping table is full: open the page for good. */
        release_page(r);
        unlock(&r->lock);
        return 1;
    }
    int fresh = st->npages == 0;
    if (fresh) {
        st->pc = pc;
        st->nhits = 0;
    }
    /* The faulting instruction, read once for find_hit and emulate: from
     * its page directly, as the thread runs it, unless it runs in the heap,
     * whose pages may be the protected ones (a wild jump). A step's later
     * fault (the access's next page) looks for that page's watches. */
    uint8_t code[WASP_MAX_INSN];
    int in_heap = pc + sizeof code > heap_lo && pc < heap_hi;
    size_t ncode = in_heap ? wasp_safe_read(pc, code, sizeof code)
                           : wasp_read_code(pc, code, sizeof code, pc);
    find_hit(st, r, me, uc, si, code, ncode);
    if (fresh || t)
        st->owner = t;
    if (fresh && r->prot == PROT_CLOSED && emulate(r, uc, code, ncode)) {
        /* Done without opening the page. Only on a page every thread faults
         * on (PROT_NONE), under its lock: nobody sees the access half done.
         * A watched access is reported now, as its step's trap would be:
         * after it, the PC past it. */
        stepper done = *st; /* the stepper goes back before the handlers run */
        stepper_free(st);
        if (!done.nhits)
            __atomic_add_fetch(&stats.stepped, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&stats.emulated, 1, __ATOMIC_RELAXED);
        uint64_t cost = store ? cost_emulated_ns : cost_emulated_load_ns();
        charge(t, analysis, cost);
        if (weigh_readable(r, cost, store))
            apply(r);
        unlock(&r->lock);
        report_access(&done, t, done.seen, me, uc); /* it ran: RIP is past it */
        return 1;
    }
    charge(t, analysis, cost_stepped_ns);
    weigh_readable(r, cost_stepped_ns, store); /* applied when the step closes the page */
    int listed = 0;
    for (uint32_t i = 0; i < st->npages; i++)
        listed |= st->pages[i] == page;
    if (!listed && st->npages < STEP_PAGES) {
        st->pages[st->npages++] = page;
        r->steppers++;
    } else if (!listed) {
        release_page(r); /* an instruction touching more pages than we track */
    }
    apply(r);
    if (!st->nhits)
        __atomic_add_fetch(&stats.stepped, 1, __ATOMIC_RELAXED);
    unlock(&r->lock);
    uc->uc_mcontext.gregs[REG_EFL] |= EFLAGS_TF;
    return 1;
}

/* A single-step trap that ends a step (see engine.h on_trap). */
static int page_on_step(const void *siginfo, void *ucontext)
{
    const siginfo_t *si = siginfo;
    ucontext_t *uc = ucontext;
    if (si->si_code != TRAP_TRACE_CODE || !__atomic_load_n(&nrecs, __ATOMIC_ACQUIRE))
        return 0;
    pid_t me = wasp_self_tid();
    stepper *st = stepper_of(me);
    if (!st)
        return 0;
    uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)EFLAGS_TF;
    if (may_enter())
        step_close_pages(st, me);
    stepper done = *st; /* the stepper goes back before the handlers run */
    stepper_free(st);
    report_access(&done, done.owner, done.seen, me, uc);
    return 1;
}

/* This thread's SIGSEGV handlers of ours under way: more than one when a
 * fault was raised inside our handling (install_segv says why it may be). */
static __thread uint32_t segv_depth __attribute__((tls_model("initial-exec")));

static void on_sigsegv(int sig, siginfo_t *si, void *ucv)
{
    int saved = errno;
    segv_depth++;
    if (si->si_code == SEGV_ACCERR && __atomic_load_n(&nrecs, __ATOMIC_ACQUIRE) &&
        handle_fault(si, (ucontext_t *)ucv)) {
        segv_depth--;
        errno = saved;
        return;
    }
    if (segv_depth > 1)
        __atomic_add_fetch(&stats.nested, 1, __ATOMIC_RELAXED);
    errno = saved;
    wasp_chain_signal(&previous_segv, sig, si, ucv);
    segv_depth--;
}

/* Install our SIGSEGV handler in front of the current one (once). */
static int install_segv(void)
{
    if (segv_installed)
        return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    if (sigaction(SIGSEGV, NULL, &previous_segv) != 0)
        return -1;
    sa.sa_sigaction = on_sigsegv;
    /* HotSpot's mask and flags, so its handler runs as it expects when we
     * pass a fault on; never SIGTRAP or SIGSEGV in the mask, and SA_NODEFER:
     * SIGSEGV stays deliverable while we handle one. Our handling reports
     * accesses, and a report walks the stack with AsyncGetCallTrace, which
     * probes pointers with HotSpot's SafeFetch: a probe's fault must reach
     * HotSpot's handler, which resumes the probe. With SIGSEGV blocked the
     * kernel kills the process at that fault instead: no handler runs, no
     * hs_err file (a JVM died so once in CI; tests/unit/test_nested_fault.c). */
    sa.sa_mask = previous_segv.sa_mask;
    sigdelset(&sa.sa_mask, SIGTRAP);
    sigdelset(&sa.sa_mask, SIGSEGV);
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | (previous_segv.sa_flags & (SA_ONSTACK | SA_RESTART));
    if (sigaction(SIGSEGV, &sa, NULL) != 0)
        return -1;
    segv_installed = 1;
    return 0;
}

/* ---- proof ----------------------------------------------------------------- */

/* The lower quartile of n values (sorts them). */
static uint64_t lower_quartile(uint64_t *v, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort: n is small */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return v[n / 4];
}

/* Protect a page of our own, touch the watched word and a neighbour, and
 * check that exactly the watched access was reported; time the round trips. */
static int page_self_test(char *why, size_t len, uint64_t *event_ns)
{
    enum { ROUNDS = 24, WARM = 4 };
    if (wasp_handler_install() != 0 || install_segv() != 0) {
        snprintf(why, len, "cannot install the SIGTRAP/SIGSEGV handlers: %s", strerror(errno));
        return -1;
    }
    mem_rw = wasp_safe_read_protected();
    if (mem_rw < 0) {
        snprintf(why, len, "cannot open /proc/self/mem to reach protected pages: %s",
                 strerror(errno));
        return -1;
    }
    wasp_isa_emulate_init();
    void *mem = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        snprintf(why, len, "mmap: %s", strerror(errno));
        return -1;
    }
    volatile uint64_t *word = mem;
    pid_t me = wasp_self_tid();
    uint32_t before = probe_hits;
    int armed = 0, copy_ok = 1;
    uint64_t emulated[ROUNDS], copy_loaded[ROUNDS], stepped[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        if (page_arm_ref(PROBE_THREAD, me, 0, (uint64_t)(uintptr_t)&word[8], 8, 1, 0) != 0)
            break;
        armed++;
        uint64_t t0 = wasp_clock_ns(CLOCK_MONOTONIC);
        word[100] = (uint64_t)i; /* a neighbour, a plain move: emulated */
        uint64_t t1 = wasp_clock_ns(CLOCK_MONOTONIC);
        uint64_t loaded = word[100]; /* a load: the page's copy is read */
        uint64_t t2 = wasp_clock_ns(CLOCK_MONOTONIC);
        loaded += word[102]; /* and then serves */
        uint64_t t3 = wasp_clock_ns(CLOCK_MONOTONIC);
        __atomic_add_fetch(&word[101], 1, __ATOMIC_SEQ_CST); /* locked: stepped over */
        uint64_t t4 = wasp_clock_ns(CLOCK_MONOTONIC);
        word[8] = (uint64_t)i;   /* the watched word: reported */
        copy_ok &= loaded == (uint64_t)i;
        emulated[i] = t1 - t0;
        copy_loaded[i] = t3 - t2;
        stepped[i] = t4 - t3;
        page_disarm_ref(PROBE_THREAD, 0, (uint64_t)(uintptr_t)mem);
    }
    uint32_t hits = probe_hits - before;
    int ok = armed == ROUNDS && hits == ROUNDS && word[8] == ROUNDS - 1 &&
             word[100] == ROUNDS - 1 && word[101] == ROUNDS && copy_ok;
    forget((uint64_t)(uintptr_t)mem);
    munmap(mem, PAGE);
    if (!ok) {
        snprintf(why, len,
                 copy_ok ? "page protection did not report the watched access (%d of %d armed, "
                           "%u reported)"
                         : "an emulated load on a protected page read a stale value (%d of %d "
                           "armed, %u reported)",
                 armed, ROUNDS, hits);
        return -1;
    }
    /* After the first rounds (cold caches and page tables), the lower
     * quartile: what a fault costs when nothing else interferes. A start-up
     * beside other busy processes measured medians 2.8x the usual and the
     * budget then armed a third as often all run long; where faults do cost
     * more in the run, the self samples scale the model up (budget.c). */
    cost_emulated_ns = lower_quartile(emulated + WARM, ROUNDS - WARM);
    cost_copy_load_ns = lower_quartile(copy_loaded + WARM, ROUNDS - WARM);
    cost_stepped_ns = lower_quartile(stepped + WARM, ROUNDS - WARM);
    /* The profile counts the program's faults only, of this session. */
    memset(&stats, 0, sizeof stats);
    wasp_page_cost_reset();
    __atomic_store_n(&foreign_cost_ns, 0, __ATOMIC_RELAXED);
    *event_ns = (cost_emulated_ns + cost_stepped_ns) / 2;
    return 0;
}

static int page_figures(wasp_watch_figure *out, int max)
{
    const wasp_watch_figure all[] = {
        {"watch.faults", (double)__atomic_load_n(&stats.faults, __ATOMIC_RELAXED), 0},
        {"watch.stepped_over", (double)__atomic_load_n(&stats.stepped, __ATOMIC_RELAXED), 0},
        {"watch.emulated", (double)__atomic_load_n(&stats.emulated, __ATOMIC_RELAXED), 0},
        {"watch.foreign_faults", (double)__atomic_load_n(&stats.foreign, __ATOMIC_RELAXED), 0},
        {"watch.pages_released", (double)__atomic_load_n(&stats.released, __ATOMIC_RELAXED), 0},
        {"watch.protect_failed", (double)__atomic_load_n(&stats.protect_failed, __ATOMIC_RELAXED),
         0},
        {"watch.copy_loads", (double)__atomic_load_n(&stats.copy_loads, __ATOMIC_RELAXED), 0},
        {"watch.lock_waits", (double)__atomic_load_n(&stats.lock_waits, __ATOMIC_RELAXED), 0},
        {"watch.table_lock_waits", (double)__atomic_load_n(&stats.table_waits, __ATOMIC_RELAXED),
         0},
        {"watch.arm_skipped", (double)wasp_page_cost_skipped(), 0},
        {"watch.faults_nested", (double)__atomic_load_n(&stats.nested, __ATOMIC_RELAXED), 0},
        {"watch.lock_wait_us",
         (double)__atomic_load_n(&stats.lock_wait_ns, __ATOMIC_RELAXED) / 1000.0, 0},
        {"watch_emulated_us", (double)cost_emulated_ns / 1000.0, 1},
        {"watch_emulated_load_us", (double)cost_emulated_load_ns() / 1000.0, 1},
        {"watch_stepped_us", (double)cost_stepped_ns / 1000.0, 1},
    };
    int n = 0;
    for (; n < max && n < (int)(sizeof all / sizeof all[0]); n++)
        out[n] = all[n];
    return n;
}

static uint64_t page_unowned_cost_ns(void)
{
    return __atomic_load_n(&foreign_cost_ns, __ATOMIC_RELAXED);
}

/* The engine's locks are held only inside its handlers and calls: a
 * thread holding one is busy with wasp's work. */
static int page_busy(pid_t tid)
{
    return tid == wasp_self_tid() && !may_enter();
}

const wasp_watch_engine wasp_page_engine = {
    .name = "page",
    .what = "page protection: the watched page is protected; faults on it are emulated or "
            "single-stepped",
    .label = "page protection",
    .event_word = "fault",
    .self_test = page_self_test,
    .window_slots = WASP_WINDOW_SLOTS,
    .thread_open = page_thread_open,
    .thread_close = page_thread_close,
    .arm = page_arm,
    .disarm = page_disarm,
    .drop_all = page_drop_all,
    .busy = page_busy,
    .on_trap = page_on_step,
    /* A fault costs ~20-40 us and a watch may take hundreds (other threads'
     * faults on its page among them): a smaller share by default. */
    .default_budget = 0.02,
    .set_heap = page_set_heap,
    .unowned_cost_ns = page_unowned_cost_ns,
    .figures = page_figures,
};
