/*
 * Address -> object map (see objmap.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_objmap_lookup and what it calls (reader_enter,
 * run_find, log_find) run in signal handlers on any thread, concurrently with
 * everything else here: lock-free atomics and reads of immutable memory only.
 * Every other function runs on ordinary threads and may allocate and lock;
 * nothing here ever waits for a lookup, and lookups wait for nothing.
 *
 * Shapes.
 *  - struct run: immutable, sorted by (epoch, start), one segment per epoch;
 *    the main and the delta run of a view.
 *  - struct log: the pending inserts, fixed capacity, append-only. Entry i is
 *    written before the release store that makes the count i+1, and never
 *    changes afterwards; a view's lookups scan [view->from, count).
 *  - struct view: {main, delta, log, from, floor}, immutable, installed by an
 *    atomic exchange of m->view. Consecutive views share the parts that did
 *    not change (usually main and the log); a retired view's parts that the
 *    new view does not use are freed with it after a grace period.
 *
 * Writers. ins_mu serialises inserters; pub_mu serialises everything that
 * installs a view (publish, replace, an insert that finds the log full). Lock
 * order: ins_mu before pub_mu. m->log (the log inserts append to) changes only
 * with both held, so an inserter under ins_mu always appends to the log of the
 * current view, and a publisher under pub_mu alone can read the current view's
 * log while inserts continue past the count it read.
 *
 * Reclamation: a grace period with two reader counters; writers never wait.
 * A lookup:
 *     p = parity; readers[p]++; if (parity != p) { readers[p]--; retry; }
 *     v = view; ...read v and what it points to...; readers[p]--;
 * A writer (one at a time, under pub_mu) installs a view with
 *     old = exchange(view, new); put old's parts that new does not use on `fresh`
 * and then tries, twice, to advance (never waiting):
 *     p = parity; if (readers[p^1] != 0) give up;
 *     free `aged`; aged = fresh; fresh = {}; parity = p^1;
 * All of these are seq_cst, so they sit in one total order S. Views and parts
 * are never reinstalled once retired.
 * Lemma: if, after a flip F from q to q^1, a writer reads readers[q] == 0 at t,
 *   every reader R whose re-check of the parity precedes F has left before t.
 *   R's re-check read p_R. If p_R == q: R incremented readers[q] before F;
 *   each reader adds 1 before it subtracts 1, so until R leaves readers[q] >= 1,
 *   and t read 0. If p_R == q^1: a flip F' from q^1 to q lies between R's
 *   re-check and F, and the advance that made F read readers[q^1] == 0 after F'
 *   (it read the parity q first) and before F; R's increment of readers[q^1]
 *   precedes F', so by the same argument R had left then.
 * Claim: nothing is freed while a reader may still use it. A part retired by
 *   exchange X goes to `fresh`; the next advance that succeeds, A1, flips F
 *   (q -> q^1) after X and moves it to `aged`; it is freed by the next
 *   successful advance A2, which read readers[q] == 0 after F (no flip lies
 *   between A1 and A2). A reader that can reach the part loaded a view before
 *   X; its re-check precedes that load, so precedes F; by the lemma it has left.
 * Memory visibility follows the same edges: R's decrement (an RMW, release) is
 *   read by the writer's acquire load before the free; the view and what it
 *   points to were written before the exchange (release) that R's load
 *   (acquire) read.
 * Progress: a lookup retries only when a writer flipped the parity between its
 * two loads of it, i.e. when a writer made progress. A writer never waits for
 * lookups: while one is stuck (its thread preempted or stopped mid-lookup),
 * retired memory waits instead, and is freed by a later install or publish
 * (publish tries to advance even with nothing to fold). Usually the second
 * advance of an install frees what the install retired.
 */
#include "heap/objmap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "lookups need lock-free pointer atomics");
_Static_assert(ATOMIC_LONG_LOCK_FREE == 2, "lookups need lock-free counters");
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "lookups need a lock-free parity");

enum {
    LOG_CAP = 4096,          /* pending inserts per log */
    CARRY_MAX = LOG_CAP / 4, /* a full log with no more unpublished entries is carried over */
    DELTA_MIN = 8192,        /* the delta may always grow this big (see delta_limit) */
    BLOCK = 64               /* objects per index key */
};

/* A pending insert, and the working element of merges. */
struct ent {
    uint64_t start;
    uint32_t size;
    uint32_t site;
    uint32_t epoch;
    uint32_t rank : 31; /* arrival order: equal (epoch, start) keep the highest */
    uint32_t ins : 1;   /* from an insert (kept by a replace of an older or equal epoch) */
};

struct log {
    _Atomic size_t n;
    size_t cap;
    struct ent e[];
};

struct seg {
    uint32_t epoch;
    size_t lo, hi; /* obj[lo, hi) */
    size_t klo;    /* key[klo + j] = obj[lo + j*BLOCK].start */
};

/* Sorted runs also have a sparse index (every BLOCK-th start, 1/128 of the
 * run's size): a lookup searches it (it stays in cache) and then one block of
 * BLOCK objects, instead of binary-searching the whole array, which on a 1M
 * object run costs a cache and TLB miss per step. */
struct run {
    size_t n, nseg;
    struct seg *seg;
    uint64_t *key;
    wasp_obj *obj;
    uint8_t *ins; /* 1: inserted (see struct ent) */
};

struct view {
    struct run *main, *delta; /* NULL when empty */
    struct log *log;
    size_t from;    /* log entries below this are in main/delta or were dropped */
    uint32_t floor; /* epoch of the last replace: older inserts are dropped */
    int has_floor;
    /* writer side, once retired (lookups never read these) */
    struct view *next;
    uint8_t own_main, own_delta, own_log; /* parts to free with it */
};

struct wasp_objmap {
    _Alignas(64) struct view *_Atomic view;
    atomic_uint parity;
    _Alignas(64) atomic_ulong readers[2];
    _Alignas(64) pthread_mutex_t ins_mu;
    struct log *log; /* == view->log; changes under ins_mu + pub_mu */
    pthread_mutex_t pub_mu;
    struct view *fresh, *aged; /* retired views, under pub_mu (see the top) */
    uint64_t fold_avg16;       /* 16 x moving average of inserts per fold, under pub_mu */
};

/* a is older than b, modulo 2^32 */
static int older(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

/* ---- handler side ---- */

#ifdef WASP_OBJMAP_TEST_HOOKS
/* Test builds only: run writers at the two points of a lookup where a race
 * matters (after the parity load; after the view load). */
static void (*hook_entering)(wasp_objmap *m);
static void (*hook_reading)(wasp_objmap *m);
#define HOOK(h, m) \
    do { \
        if (h) \
            h(m); \
    } while (0)
#else
#define HOOK(h, m) ((void)0)
#endif

static unsigned reader_enter(wasp_objmap *m)
{
    for (;;) {
        unsigned p = atomic_load(&m->parity);
        HOOK(hook_entering, m);
        atomic_fetch_add(&m->readers[p], 1);
        if (atomic_load(&m->parity) == p)
            return p;
        atomic_fetch_sub(&m->readers[p], 1);
    }
}

static const wasp_obj *run_find(const struct run *r, uint64_t addr, uint32_t epoch)
{
    if (!r)
        return NULL;
    for (size_t s = 0; s < r->nseg; s++) {
        if (r->seg[s].epoch != epoch)
            continue;
        /* the last key at or below addr, then the last object of its block
         * starting at or below addr (branch-free halving; segments are never
         * empty) */
        const struct seg *g = &r->seg[s];
        const uint64_t *keys = &r->key[g->klo], *kb = keys;
        size_t len = (g->hi - g->lo + BLOCK - 1) / BLOCK;
        if (keys[0] > addr)
            return NULL;
        while (len > 1) {
            size_t half = len / 2;
            kb = kb[half] <= addr ? kb + half : kb;
            len -= half;
        }
        size_t first = g->lo + (size_t)(kb - keys) * BLOCK;
        const wasp_obj *base = &r->obj[first];
        len = g->hi - first < BLOCK ? g->hi - first : BLOCK;
        while (len > 1) {
            size_t half = len / 2;
            __builtin_prefetch(&base[half / 2]); /* both candidates of the next step */
            __builtin_prefetch(&base[half + half / 2]);
            base = base[half].start <= addr ? base + half : base;
            len -= half;
        }
        return addr - base->start < base->size ? base : NULL;
    }
    return NULL;
}

static int log_find(const struct log *lg, size_t from, uint64_t addr, uint32_t epoch,
                    wasp_obj *out)
{
    size_t n = atomic_load_explicit(&lg->n, memory_order_acquire);
    for (size_t i = n; i-- > from;) { /* newest first */
        const struct ent *e = &lg->e[i];
        if (e->epoch == epoch && addr - e->start < e->size) {
            out->start = e->start;
            out->size = e->size;
            out->site = e->site;
            return 1;
        }
    }
    return 0;
}

int wasp_objmap_lookup(wasp_objmap *m, uint64_t addr, uint32_t epoch, wasp_obj *out)
{
    if (!m)
        return 0;
    unsigned p = reader_enter(m);
    const struct view *v = atomic_load(&m->view);
    HOOK(hook_reading, m);
    const wasp_obj *o = run_find(v->main, addr, epoch);
    if (!o)
        o = run_find(v->delta, addr, epoch);
    int found;
    if (o) {
        *out = *o;
        found = 1;
    } else {
        found = log_find(v->log, v->from, addr, epoch, out);
    }
    atomic_fetch_sub(&m->readers[p], 1);
    return found;
}

/* ---- runs (writer side) ---- */

static struct run *run_alloc(size_t cap, size_t segcap)
{
    size_t keycap = cap / BLOCK + segcap;
    size_t bytes = sizeof(struct run) + segcap * sizeof(struct seg) + keycap * sizeof(uint64_t) +
                   cap * sizeof(wasp_obj) + cap;
    struct run *r = malloc(bytes);
    if (!r)
        return NULL;
    r->n = 0;
    r->nseg = 0;
    r->seg = (struct seg *)(r + 1);
    r->key = (uint64_t *)(r->seg + segcap);
    r->obj = (wasp_obj *)(r->key + keycap);
    r->ins = (uint8_t *)(r->obj + cap);
    return r;
}

/* Appends in (epoch, start) order; an equal key replaces the last object. */
static void run_push(struct run *r, uint32_t epoch, const wasp_obj *o, int ins)
{
    struct seg *s = r->nseg ? &r->seg[r->nseg - 1] : NULL;
    if (!s || s->epoch != epoch) {
        s = &r->seg[r->nseg++];
        s->epoch = epoch;
        s->lo = s->hi = r->n;
    } else if (r->obj[r->n - 1].start == o->start) {
        r->obj[r->n - 1] = *o;
        r->ins[r->n - 1] = (uint8_t)ins;
        return;
    }
    r->obj[r->n] = *o;
    r->ins[r->n] = (uint8_t)ins;
    s->hi = ++r->n;
}

/* Builds the index; an empty run is NULL. */
static struct run *run_finish(struct run *r)
{
    if (r && r->n == 0) {
        free(r);
        return NULL;
    }
    size_t k = 0;
    for (size_t s = 0; s < r->nseg; s++) {
        r->seg[s].klo = k;
        for (size_t i = r->seg[s].lo; i < r->seg[s].hi; i += BLOCK)
            r->key[k++] = r->obj[i].start;
    }
    return r;
}

static int ent_cmp(const void *pa, const void *pb)
{
    const struct ent *a = pa, *b = pb;
    if (a->epoch != b->epoch)
        return a->epoch < b->epoch ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* Sorts e[0..n) and builds a run from it. *err = 1 on OOM. */
static struct run *run_from_ents(struct ent *e, size_t n, int *err)
{
    if (n == 0)
        return NULL;
    qsort(e, n, sizeof *e, ent_cmp);
    size_t nseg = 1;
    for (size_t i = 1; i < n; i++)
        nseg += e[i].epoch != e[i - 1].epoch;
    struct run *r = run_alloc(n, nseg);
    if (!r) {
        *err = 1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        wasp_obj o = {e[i].start, e[i].size, e[i].site};
        run_push(r, e[i].epoch, &o, e[i].ins);
    }
    return run_finish(r);
}

struct cur {
    const struct run *r;
    size_t i, s;
};

static int cur_more(struct cur *c)
{
    if (!c->r || c->i >= c->r->n)
        return 0;
    while (c->r->seg[c->s].hi <= c->i)
        c->s++;
    return 1;
}

/* (epoch, start) of a before that of b? (both have an element) */
static int cur_before(const struct cur *a, const struct cur *b)
{
    uint32_t ea = a->r->seg[a->s].epoch, eb = b->r->seg[b->s].epoch;
    if (ea != eb)
        return ea < eb;
    return a->r->obj[a->i].start < b->r->obj[b->i].start;
}

static void cur_take(struct run *out, struct cur *c)
{
    run_push(out, c->r->seg[c->s].epoch, &c->r->obj[c->i], c->r->ins[c->i]);
    c->i++;
}

/* Merge of two runs; on an equal key b's object wins. NULL on OOM (and when
 * both are empty: check the inputs first). */
static struct run *run_merge(const struct run *a, const struct run *b)
{
    size_t na = a ? a->n : 0, nb = b ? b->n : 0;
    size_t sa = a ? a->nseg : 0, sb = b ? b->nseg : 0;
    struct run *r = run_alloc(na + nb, sa + sb);
    if (!r)
        return NULL;
    struct cur ca = {a, 0, 0}, cb = {b, 0, 0};
    for (;;) {
        int ma = cur_more(&ca), mb = cur_more(&cb);
        if (!ma && !mb)
            break;
        if (ma && (!mb || !cur_before(&cb, &ca))) /* a first on ties: b then replaces it */
            cur_take(r, &ca);
        else
            cur_take(r, &cb);
    }
    return run_finish(r);
}

/* ---- logs and views ---- */

static struct log *log_new(void)
{
    struct log *lg = malloc(sizeof *lg + LOG_CAP * sizeof(struct ent));
    if (!lg)
        return NULL;
    atomic_init(&lg->n, 0);
    lg->cap = LOG_CAP;
    return lg;
}

static int pending_kept(const struct view *v, const struct ent *e)
{
    return !v->has_floor || !older(e->epoch, v->floor);
}

static void free_views(struct view *v)
{
    while (v) {
        struct view *next = v->next;
        if (v->own_main)
            free(v->main);
        if (v->own_delta)
            free(v->delta);
        if (v->own_log)
            free(v->log);
        free(v);
        v = next;
    }
}

/* One step of the grace period (see the top); pub_mu held. Never waits. */
static void advance(wasp_objmap *m)
{
    unsigned p = atomic_load(&m->parity);
    if (atomic_load(&m->readers[p ^ 1u]) != 0)
        return;
    free_views(m->aged);
    m->aged = m->fresh;
    m->fresh = NULL;
    if (m->aged)
        atomic_store(&m->parity, p ^ 1u);
}

/* Frees what the counters allow: usually everything retired so far. */
static void reclaim(wasp_objmap *m)
{
    advance(m);
    advance(m);
}

/* Installs nv (pub_mu held) and retires the old view. */
static void install(wasp_objmap *m, struct view *nv)
{
    struct view *old = atomic_exchange(&m->view, nv);
    old->own_main = old->main && old->main != nv->main;
    old->own_delta = old->delta && old->delta != nv->delta;
    old->own_log = old->log != nv->log;
    old->next = m->fresh;
    m->fresh = old;
    reclaim(m);
}

static uint64_t isqrt(uint64_t x)
{
    uint64_t r = 0;
    for (uint64_t bit = 1ull << 62; bit; bit >>= 2) {
        if (x >= r + bit) {
            x -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
    }
    return r;
}

/* How big the delta may grow before it is merged into main (n objects).
 * With P inserts per fold and a limit T, each insert costs about n/T copies
 * in main merges and T/2P in delta merges: T = sqrt(2nP) minimises the sum
 * (about sqrt(2n/P)), and P is what the caller's publishing rate makes it, so
 * it is measured. Bounded by n/4, so main merges stay O(1) per insert when
 * folds are big, and by DELTA_MIN below, where everything is cheap. */
static size_t delta_limit(const wasp_objmap *m, size_t n)
{
    uint64_t t = isqrt(2 * (uint64_t)n * (m->fold_avg16 / 16 + 1));
    if (t > n / 4)
        t = n / 4;
    return t > DELTA_MIN ? (size_t)t : DELTA_MIN;
}

/* Folds the current view's pending inserts into its delta (and the delta into
 * main when it has grown enough). fresh_log: also start a new, empty log (the
 * caller holds ins_mu, so the old one is complete). pub_mu held. */
static int fold(wasp_objmap *m, int fresh_log)
{
    struct view *v = atomic_load(&m->view);
    size_t n0 = atomic_load_explicit(&v->log->n, memory_order_acquire);
    if (n0 == v->from && !fresh_log)
        return 0;
    struct ent *tmp = malloc((n0 - v->from + 1) * sizeof *tmp);
    struct view *nv = malloc(sizeof *nv);
    struct log *lg = fresh_log ? log_new() : v->log;
    struct run *pend = NULL, *delta = v->delta, *main = v->main;
    int err = !tmp || !nv || !lg;
    if (!err) {
        size_t k = 0;
        for (size_t i = v->from; i < n0; i++) {
            if (!pending_kept(v, &v->log->e[i]))
                continue;
            tmp[k] = v->log->e[i];
            tmp[k].rank = (uint32_t)k; /* log order */
            tmp[k].ins = 1;
            k++;
        }
        pend = run_from_ents(tmp, k, &err);
        m->fold_avg16 = (m->fold_avg16 * 7 + (uint64_t)k * 16) / 8;
    }
    if (!err && pend) {
        delta = v->delta ? run_merge(v->delta, pend) : pend;
        err = !delta;
        if (delta != pend)
            free(pend);
        pend = NULL;
    }
    if (!err && delta && delta != v->delta) {
        if (delta->n > delta_limit(m, main ? main->n : 0)) {
            struct run *merged = run_merge(v->main, delta);
            if (merged) { /* else the delta just stays big for now */
                main = merged;
                free(delta);
                delta = NULL;
            }
        }
    }
    free(tmp);
    if (err) {
        if (delta != v->delta)
            free(delta);
        if (main != v->main)
            free(main);
        if (lg != v->log)
            free(lg);
        free(nv);
        return -1;
    }
    *nv = (struct view){.main = main, .delta = delta, .log = lg, .from = fresh_log ? 0 : n0,
                        .floor = v->floor, .has_floor = v->has_floor};
    if (fresh_log)
        m->log = lg;
    install(m, nv);
    return 0;
}

/* The log is full (ins_mu held): carry its unpublished tail into a new log
 * when short, else fold everything into the snapshot with a new log. */
static int roll_log(wasp_objmap *m)
{
    pthread_mutex_lock(&m->pub_mu);
    struct view *v = atomic_load(&m->view);
    size_t n0 = atomic_load_explicit(&v->log->n, memory_order_relaxed); /* ours: ins_mu */
    int rc = 0;
    if (n0 - v->from <= CARRY_MAX) {
        struct log *lg = log_new();
        struct view *nv = malloc(sizeof *nv);
        if (!lg || !nv) {
            free(lg);
            free(nv);
            rc = -1;
        } else {
            size_t k = 0;
            for (size_t i = v->from; i < n0; i++)
                if (pending_kept(v, &v->log->e[i]))
                    lg->e[k++] = v->log->e[i];
            atomic_store_explicit(&lg->n, k, memory_order_relaxed); /* published by install */
            *nv = (struct view){.main = v->main, .delta = v->delta, .log = lg,
                                .floor = v->floor, .has_floor = v->has_floor};
            m->log = lg;
            install(m, nv);
        }
    } else {
        rc = fold(m, 1);
    }
    pthread_mutex_unlock(&m->pub_mu);
    return rc;
}

/* ---- API ---- */

wasp_objmap *wasp_objmap_new(void)
{
    wasp_objmap *m = aligned_alloc(_Alignof(wasp_objmap), sizeof *m);
    if (!m)
        return NULL;
    memset(m, 0, sizeof *m);
    struct view *v = calloc(1, sizeof *v);
    struct log *lg = log_new();
    if (!v || !lg) {
        free(v);
        free(lg);
        free(m);
        return NULL;
    }
    v->log = lg;
    m->log = lg;
    atomic_init(&m->view, v);
    atomic_init(&m->parity, 0);
    atomic_init(&m->readers[0], 0);
    atomic_init(&m->readers[1], 0);
    pthread_mutex_init(&m->ins_mu, NULL);
    pthread_mutex_init(&m->pub_mu, NULL);
    return m;
}

void wasp_objmap_free(wasp_objmap *m)
{
    if (!m)
        return;
    struct view *v = atomic_load(&m->view);
    free(v->main);
    free(v->delta);
    free(v->log);
    free(v);
    free_views(m->fresh);
    free_views(m->aged);
    pthread_mutex_destroy(&m->ins_mu);
    pthread_mutex_destroy(&m->pub_mu);
    free(m);
}

int wasp_objmap_insert(wasp_objmap *m, uint64_t start, uint32_t size, uint32_t site,
                       uint32_t epoch)
{
    if (size == 0)
        return 0;
    pthread_mutex_lock(&m->ins_mu);
    struct log *lg = m->log;
    size_t n = atomic_load_explicit(&lg->n, memory_order_relaxed); /* only we write it */
    if (n == lg->cap) {
        if (roll_log(m) != 0) {
            pthread_mutex_unlock(&m->ins_mu);
            return -1;
        }
        lg = m->log;
        n = atomic_load_explicit(&lg->n, memory_order_relaxed);
    }
    lg->e[n] = (struct ent){.start = start, .size = size, .site = site, .epoch = epoch, .ins = 1};
    atomic_store_explicit(&lg->n, n + 1, memory_order_release);
    pthread_mutex_unlock(&m->ins_mu);
    return 0;
}

int wasp_objmap_publish(wasp_objmap *m)
{
    pthread_mutex_lock(&m->pub_mu);
    int rc = fold(m, 0);
    if (m->fresh || m->aged)
        reclaim(m);
    pthread_mutex_unlock(&m->pub_mu);
    return rc;
}

static void collect_inserted(const struct run *r, uint32_t epoch, struct ent *e, size_t *k)
{
    if (!r)
        return;
    for (size_t s = 0; s < r->nseg; s++) {
        if (older(r->seg[s].epoch, epoch))
            continue;
        for (size_t i = r->seg[s].lo; i < r->seg[s].hi; i++) {
            if (!r->ins[i])
                continue;
            if (e)
                e[*k] = (struct ent){r->obj[i].start, r->obj[i].size, r->obj[i].site,
                                     r->seg[s].epoch, (uint32_t)*k, 1};
            ++*k;
        }
    }
}

int wasp_objmap_replace(wasp_objmap *m, const wasp_obj *objs, size_t n, uint32_t epoch)
{
    pthread_mutex_lock(&m->pub_mu);
    struct view *v = atomic_load(&m->view);
    size_t n0 = atomic_load_explicit(&v->log->n, memory_order_acquire);
    size_t total = 0;
    collect_inserted(v->main, epoch, NULL, &total);
    collect_inserted(v->delta, epoch, NULL, &total);
    total += n + (n0 - v->from);
    struct ent *tmp = total < (1u << 31) ? malloc((total + 1) * sizeof *tmp) : NULL;
    struct view *nv = malloc(sizeof *nv);
    int err = !tmp || !nv;
    struct run *main = NULL;
    if (!err) {
        /* ranks rise with recency: published inserts, then objs, then pending */
        size_t k = 0;
        collect_inserted(v->main, epoch, tmp, &k);
        collect_inserted(v->delta, epoch, tmp, &k);
        for (size_t i = 0; i < n; i++)
            if (objs[i].size) {
                tmp[k] = (struct ent){objs[i].start, objs[i].size, objs[i].site, epoch,
                                      (uint32_t)k, 0};
                k++;
            }
        for (size_t i = v->from; i < n0; i++) {
            if (older(v->log->e[i].epoch, epoch))
                continue;
            tmp[k] = v->log->e[i];
            tmp[k].rank = (uint32_t)k;
            tmp[k].ins = 1;
            k++;
        }
        main = run_from_ents(tmp, k, &err);
    }
    free(tmp);
    if (err) {
        free(nv);
        pthread_mutex_unlock(&m->pub_mu);
        return -1;
    }
    *nv = (struct view){.main = main, .log = v->log, .from = n0, .floor = epoch, .has_floor = 1};
    install(m, nv);
    pthread_mutex_unlock(&m->pub_mu);
    return 0;
}

size_t wasp_objmap_count(wasp_objmap *m)
{
    pthread_mutex_lock(&m->pub_mu);
    const struct view *v = atomic_load(&m->view);
    size_t c = (v->main ? v->main->n : 0) + (v->delta ? v->delta->n : 0);
    size_t n0 = atomic_load_explicit(&v->log->n, memory_order_acquire);
    for (size_t i = v->from; i < n0; i++)
        c += pending_kept(v, &v->log->e[i]);
    pthread_mutex_unlock(&m->pub_mu);
    return c;
}
