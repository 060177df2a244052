/*
 * Address -> object map (see objmap.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_objmap_lookup and what it calls (reader_enter,
 * run_find, log_find) run in signal handlers on any thread, concurrently with
 * everything else here: lock-free atomics and reads of immutable memory only.
 * Every other function runs on ordinary threads and may allocate and lock;
 * nothing here ever waits for a lookup, and lookups wait for nothing.
 *
 * Shapes (objmap_internal.h has the structs a test looks into).
 *  - struct run: immutable, sorted by (epoch, start), one segment per epoch;
 *    the main and the delta run of a view.
 *  - struct log: pending inserts, a chain of fixed-capacity append-only
 *    blocks. Entry i is written before the release store that makes the count
 *    i+1 and never changes afterwards; a full block gets a successor (release
 *    store of `next`) and is never written again, and the inserter that
 *    filled it attaches a sorted copy (release store of `sorted`). A view's
 *    lookups search its block from view->from, then every later block of the
 *    chain: binary search in sorted copies, a linear scan of the others (the
 *    tail, at most LOG_CAP entries).
 *  - struct view: {main, delta, log, from, floor}, immutable, installed by an
 *    atomic exchange of m->view. Consecutive views share the parts that did
 *    not change (usually main, and the log block); a retired view owns its
 *    runs the next view does not use and the log blocks from its own up to
 *    the next view's, and frees them after a grace period.
 *
 * Writers. ins_mu serialises inserters, which only append to the chain (and
 * start a block when one is full): inserts never wait for a publish. pub_mu
 * serialises everything that installs a view (publish, replace, and an insert
 * that fills a block while the publisher lags: it folds with a trylock, never
 * waiting). A publisher takes a snapshot of the chain (its tail block and
 * count) and folds up to it while inserts go on past it.
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
 *   (Log blocks: a lookup walks the chain forward from its view's block, and
 *   the view retired by X owns the blocks before the next view's block, so a
 *   lookup reaches them only from that view or an older one, loaded before X.)
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
#include "heap/objmap_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "lookups need lock-free pointer atomics");
_Static_assert(ATOMIC_LONG_LOCK_FREE == 2, "lookups need lock-free counters");
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "lookups need a lock-free parity");

enum {
    DELTA_MIN = 8192, /* the delta may always grow this big (see delta_limit) */
    BLOCK = 64        /* objects per index key */
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

/* a is older than b, modulo 2^32 */
static int older(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

/* ---- handler side ---- */

/* NULL except in tests (objmap_internal.h): one load and a branch each. */
void (*wasp_objmap_hook_entering)(wasp_objmap *m);
void (*wasp_objmap_hook_reading)(wasp_objmap *m);
#define HOOK(h, m) \
    do { \
        if (__builtin_expect((h) != NULL, 0)) \
            (h)(m); \
    } while (0)

static unsigned reader_enter(wasp_objmap *m)
{
    for (;;) {
        unsigned p = atomic_load(&m->parity);
        HOOK(wasp_objmap_hook_entering, m);
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

/* In a full block's sorted copy: the entry at or below (epoch, addr), if it
 * contains addr and is not below `from` (folded already, or dropped). */
static const struct ent *sorted_find(const struct ent *s, size_t n, size_t from, uint64_t addr,
                                     uint32_t epoch)
{
    size_t lo = 0, hi = n; /* first entry above (epoch, addr) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].epoch < epoch || (s[mid].epoch == epoch && s[mid].start <= addr))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct ent *e = &s[lo - 1];
    return e->epoch == epoch && addr - e->start < e->size && e->rank >= from ? e : NULL;
}

static int log_find(const struct log *lg, size_t from, uint64_t addr, uint32_t epoch,
                    wasp_obj *out)
{
    for (; lg; lg = atomic_load_explicit(&lg->next, memory_order_acquire), from = 0) {
        const struct ent *s = atomic_load_explicit(&lg->sorted, memory_order_acquire);
        const struct ent *hit = NULL;
        if (s) {
            hit = sorted_find(s, lg->cap, from, addr, epoch);
        } else {
            size_t n = atomic_load_explicit(&lg->n, memory_order_acquire);
            for (size_t i = from; i < n && !hit; i++) {
                const struct ent *e = &lg->e[i];
                if (e->epoch == epoch && addr - e->start < e->size)
                    hit = e;
            }
        }
        if (hit) {
            out->start = hit->start;
            out->size = hit->size;
            out->site = hit->site;
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
    HOOK(wasp_objmap_hook_reading, m);
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
    atomic_init(&lg->next, NULL);
    atomic_init(&lg->sorted, NULL);
    lg->cap = LOG_CAP;
    return lg;
}

static struct log *log_next(const struct log *lg)
{
    return atomic_load_explicit(&lg->next, memory_order_acquire);
}

/* Frees the blocks [lg, end) of a chain (end == NULL: to its end). */
static void free_logs(struct log *lg, const struct log *end)
{
    while (lg != end) {
        struct log *next = log_next(lg);
        free(atomic_load_explicit(&lg->sorted, memory_order_relaxed));
        free(lg);
        lg = next;
    }
}

/* The pending part of view v at one instant: blocks v->log .. tail, the
 * tail's entries below tail_n, `count` entries in all. */
struct pending {
    struct log *tail;
    size_t tail_n, count;
};

static struct pending pending_of(const struct view *v)
{
    struct pending p = {v->log, 0, 0};
    for (size_t from = v->from;; from = 0) {
        struct log *next = log_next(p.tail); /* set: the block is full */
        p.tail_n = atomic_load_explicit(&p.tail->n, memory_order_acquire);
        p.count += p.tail_n - from;
        if (!next)
            return p;
        p.tail = next;
    }
}

/* Calls fn(arg, entry) for each entry of the pending part p of v. */
static void pending_each(const struct view *v, const struct pending *p,
                         void (*fn)(void *arg, const struct ent *e), void *arg)
{
    for (struct log *lg = v->log;; lg = log_next(lg)) {
        size_t lo = lg == v->log ? v->from : 0, hi = lg == p->tail ? p->tail_n : lg->cap;
        for (size_t i = lo; i < hi; i++)
            fn(arg, &lg->e[i]);
        if (lg == p->tail)
            return;
    }
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
        free_logs(v->log, v->log_end);
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
    old->log_end = nv->log; /* later in the chain, or the same block */
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

/* Gathering pending entries into a working array. */
struct gather {
    struct ent *e;
    size_t k;
    const struct view *v; /* keep what pending_kept(v) keeps */
    uint32_t min_epoch;   /* or, without v: not older than this */
};

static void gather_one(void *arg, const struct ent *e)
{
    struct gather *g = arg;
    if (g->v ? !pending_kept(g->v, e) : older(e->epoch, g->min_epoch))
        return;
    g->e[g->k] = *e;
    g->e[g->k].rank = (uint32_t)g->k; /* arrival order */
    g->e[g->k].ins = 1;
    g->k++;
}

/* Folds the current view's pending inserts into its delta (and the delta into
 * main when it has grown enough). pub_mu held. */
static int fold(wasp_objmap *m)
{
    struct view *v = atomic_load(&m->view);
    struct pending p = pending_of(v);
    if (p.tail == v->log && p.tail_n == v->from)
        return 0;
    struct ent *tmp = malloc((p.count + 1) * sizeof *tmp);
    struct view *nv = malloc(sizeof *nv);
    struct run *pend = NULL, *delta = v->delta, *main = v->main;
    int err = !tmp || !nv || p.count >= (1u << 31);
    if (!err) {
        struct gather g = {tmp, 0, v, 0};
        pending_each(v, &p, gather_one, &g);
        pend = run_from_ents(tmp, g.k, &err);
        m->fold_avg16 = (m->fold_avg16 * 7 + (uint64_t)g.k * 16) / 8;
    }
    free(tmp);
    if (!err && pend) {
        delta = v->delta ? run_merge(v->delta, pend) : pend;
        err = !delta;
        if (delta != pend)
            free(pend);
    }
    if (err) {
        free(nv);
        return -1;
    }
    if (delta && delta != v->delta && delta->n > delta_limit(m, main ? main->n : 0)) {
        struct run *merged = run_merge(v->main, delta);
        if (merged) { /* else the delta just stays big for now */
            main = merged;
            free(delta);
            delta = NULL;
        }
    }
    *nv = (struct view){.main = main, .delta = delta, .log = p.tail, .from = p.tail_n,
                        .floor = v->floor, .has_floor = v->has_floor};
    install(m, nv);
    return 0;
}

/* A full block gets a sorted copy, so that lookups binary-search it instead
 * of scanning it: with the publisher lagging (or starved: it may be a thread
 * that signals keep interrupting) the pending log can grow long, and lookups
 * should not slow down in proportion. The caller is registered as a reader,
 * which keeps lg alive. On OOM lookups just keep scanning. */
static void block_sort(struct log *lg)
{
    struct ent *s = malloc(lg->cap * sizeof *s);
    if (!s)
        return;
    for (size_t i = 0; i < lg->cap; i++) {
        s[i] = lg->e[i];
        s[i].rank = (uint32_t)i;
    }
    qsort(s, lg->cap, sizeof *s, ent_cmp);
    atomic_store_explicit(&lg->sorted, s, memory_order_release);
}

/* An insert filled a block: fold here if the publisher has let a whole
 * block's worth pile up and is not at work right now. */
static void fold_if_lagging(wasp_objmap *m)
{
    if (pthread_mutex_trylock(&m->pub_mu) != 0)
        return;
    struct pending p = pending_of(atomic_load(&m->view));
    if (p.count >= LOG_CAP)
        (void)fold(m); /* on OOM the entries just stay pending */
    pthread_mutex_unlock(&m->pub_mu);
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
    free_logs(v->log, NULL);
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
        struct log *next = log_new();
        if (!next) {
            pthread_mutex_unlock(&m->ins_mu);
            return -1;
        }
        atomic_store_explicit(&lg->next, next, memory_order_release);
        m->log = lg = next;
        n = 0;
    }
    lg->e[n] = (struct ent){.start = start, .size = size, .site = site, .epoch = epoch, .ins = 1};
    atomic_store_explicit(&lg->n, n + 1, memory_order_release);
    int filled = n + 1 == lg->cap;
    unsigned p = 0;
    if (filled) /* lg is the tail: it cannot be retired before we register */
        p = reader_enter(m);
    pthread_mutex_unlock(&m->ins_mu);
    if (filled) {
        block_sort(lg);
        atomic_fetch_sub(&m->readers[p], 1);
        fold_if_lagging(m);
    }
    return 0;
}

int wasp_objmap_publish(wasp_objmap *m)
{
    pthread_mutex_lock(&m->pub_mu);
    int rc = fold(m);
    if (m->fresh || m->aged)
        reclaim(m);
    pthread_mutex_unlock(&m->pub_mu);
    return rc;
}

/* The inserted objects of r whose epoch is not older than `epoch`, as a run
 * (NULL when none). *err = 1 on OOM. */
static struct run *run_inserted_since(const struct run *r, uint32_t epoch, int *err)
{
    if (!r)
        return NULL;
    struct run *out = run_alloc(r->n, r->nseg);
    if (!out) {
        *err = 1;
        return NULL;
    }
    for (size_t s = 0; s < r->nseg; s++) {
        if (older(r->seg[s].epoch, epoch))
            continue;
        for (size_t i = r->seg[s].lo; i < r->seg[s].hi; i++)
            if (r->ins[i])
                run_push(out, r->seg[s].epoch, &r->obj[i], 1);
    }
    return run_finish(out);
}

/* Merge of a and b (either may be NULL), which it consumes. On OOM, or when
 * *err is already set, both are freed, *err = 1 and the result is NULL. */
static struct run *merge_consume(struct run *a, struct run *b, int *err)
{
    if (*err) {
        free(a);
        free(b);
        return NULL;
    }
    if (!a || !b)
        return a ? a : b;
    struct run *r = run_merge(a, b);
    free(a);
    free(b);
    *err |= !r;
    return r;
}

int wasp_objmap_replace(wasp_objmap *m, const wasp_obj *objs, size_t n, uint32_t epoch)
{
    /* objs sorted first, outside the lock: publishes (and inserts' folds)
     * are held up only by the merges below, which are O(n) */
    struct ent *tmp = n < (1u << 31) ? malloc((n + 1) * sizeof *tmp) : NULL;
    if (!tmp)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (objs[i].size) {
            tmp[k] = (struct ent){objs[i].start, objs[i].size, objs[i].site, epoch, (uint32_t)k, 0};
            k++;
        }
    int err = 0;
    struct run *given = run_from_ents(tmp, k, &err);
    free(tmp);
    if (err)
        return -1;

    pthread_mutex_lock(&m->pub_mu);
    struct view *v = atomic_load(&m->view);
    struct pending p = pending_of(v);
    /* on equal keys the later wins: main < delta < objs < pending */
    struct ent *pend = malloc((p.count + 1) * sizeof *pend);
    struct view *nv = malloc(sizeof *nv);
    struct run *in_main = run_inserted_since(v->main, epoch, &err);
    struct run *in_delta = run_inserted_since(v->delta, epoch, &err);
    struct run *pending = NULL, *main = NULL;
    err |= !pend || !nv || p.count >= (1u << 31);
    if (!err) {
        struct gather g = {pend, 0, NULL, epoch};
        pending_each(v, &p, gather_one, &g);
        pending = run_from_ents(pend, g.k, &err);
    }
    free(pend);
    if (!err) {
        struct run *r = merge_consume(in_main, in_delta, &err);
        r = merge_consume(r, given, &err);
        main = merge_consume(r, pending, &err);
        in_main = in_delta = given = pending = NULL; /* consumed, even on OOM */
    }
    if (err) {
        free(nv);
        free(in_main);
        free(in_delta);
        free(given);
        free(pending);
        pthread_mutex_unlock(&m->pub_mu);
        return -1;
    }
    *nv = (struct view){.main = main, .log = p.tail, .from = p.tail_n, .floor = epoch,
                        .has_floor = 1};
    install(m, nv);
    pthread_mutex_unlock(&m->pub_mu);
    return 0;
}

struct counting {
    const struct view *v;
    size_t n;
};

static void count_one(void *arg, const struct ent *e)
{
    struct counting *c = arg;
    c->n += (size_t)pending_kept(c->v, e);
}

size_t wasp_objmap_count(wasp_objmap *m)
{
    pthread_mutex_lock(&m->pub_mu);
    const struct view *v = atomic_load(&m->view);
    struct counting c = {v, (v->main ? v->main->n : 0) + (v->delta ? v->delta->n : 0)};
    struct pending p = pending_of(v);
    pending_each(v, &p, count_one, &c);
    pthread_mutex_unlock(&m->pub_mu);
    return c.n;
}
