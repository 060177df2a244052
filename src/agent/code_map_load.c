/*
 * See code_map_load.h. Each compiled method gets an id and a copy of its
 * debug information (PCStackInfo: the inlined frames at each PC); with
 * CallerChaining contexts also a copy of its code and its frame shape
 * decoded from its prologue (isa/prologue.h). The published map
 * (watch/code_map.h) is rebuilt, copy-on-write, at each load and unload.
 * Callbacks may come from several compiler threads at once: one mutex.
 *
 * Memory stays bounded over a long run with walked contexts (the default):
 * the only samples that name a method there are the CPU samples by place
 * (watch/pc_hist.h), emptied at every dump, so a method unloaded before a
 * dump began is freed once it is over and its id taken again (ids must stay
 * below WASP_PC_HIST_MAX_ID). CallerChaining's trees name methods until the
 * profile is written and keep every one.
 */
#include "agent/code_map_load.h"
#include "agent/exact_code.h"

#include <jvmticmlr.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "isa/prologue.h"
#include "profile/part.h"
#include "watch/caller_chain.h"
#include "watch/code_map.h"
#include "watch/pc_frames.h"
#include "watch/session.h"

typedef struct nm_info {
    jmethodID method;
    uint64_t start, end;
    wasp_frame_shape shape;
    uint32_t *unsafe;
    uint32_t nunsafe;
    uint32_t npcs;
    uint8_t *code;        /* the instructions as loaded */
    uint64_t *pcs;        /* sorted */
    uint32_t *first;      /* per pc: index of its first frame */
    uint16_t *nframes;    /* per pc */
    wasp_rframe *frames;
    uint64_t *tail_end, *tail_to; /* ntail: the code past the last record (pc_frames.h) */
    uint32_t ntail;
    uint8_t state;        /* LIVE, UNLOADED (since the drain unload_gen), FREE */
    bool coarse;          /* its records at safepoints only (exact_code.h) */
    uint32_t unload_gen;
} nm_info;

enum { LIVE, UNLOADED, FREE };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static nm_info *infos; /* by id - 1 */
static uint32_t ninfos, cap_infos;
static uint32_t *free_ids, nfree, cap_free; /* ids of FREE infos, to take again */
static uint32_t drain_gen;                  /* dumps begun (wasp_code_map_drain_begin) */
static uint64_t unknown_shapes;
static uint64_t held_bytes; /* the copies kept, for the profile's counter */
/* Walked contexts: loads and unloads wait here and are published together
 * (wasp_code_map_flush), one rebuild of the map instead of one per method —
 * a rebuild copies the whole map, and start-up compiles thousands (javac:
 * 0.3 s of CPU on the corpus's ant run, one rebuild a method). A method's
 * samples count at its lines from the next tick on (250 ms); before, as not
 * compiled. */
static wasp_nmethod *adds;
static uint32_t nadds, cap_adds;
typedef struct removal {
    uint64_t start;
    jmethodID method;
} removal;
static removal *removes;
static uint32_t nremoves, cap_removes;
/* Whether this session turned DebugNonSafepoints on; while GenerateEvents
 * reports the methods compiled already, on this thread. */
static bool lines_turned_on, reporting_existing;
static pthread_t existing_thread;
/* During a drain: the methods known, by address (wasp_code_map_late_id). */
static wasp_code_range *known;
static uint64_t *known_reach;
static uint32_t nknown;

/* Whether every method is kept until the profile is written. */
static int keep_all(void)
{
    return wasp_session_get()->context != WASP_CONTEXT_WALK;
}

static void mark_unloaded(uint32_t id)
{
    nm_info *m = &infos[id - 1];
    if (m->state == LIVE) {
        m->state = UNLOADED;
        m->unload_gen = drain_gen;
    }
}

static uint64_t frame_count(const nm_info *m)
{
    return m->npcs ? (uint64_t)m->first[m->npcs - 1] + m->nframes[m->npcs - 1] : 0;
}

static uint64_t arrays_bytes(const nm_info *m)
{
    return (m->code ? m->end - m->start : 0) + 2 * sizeof(uint32_t) * m->nunsafe +
           m->npcs * (sizeof *m->pcs + sizeof *m->first + sizeof *m->nframes) +
           frame_count(m) * sizeof *m->frames + 2 * sizeof(uint64_t) * m->ntail;
}

static void free_arrays(nm_info *m)
{
    free(m->code);
    free(m->pcs);
    free(m->first);
    free(m->nframes);
    free(m->frames);
    free(m->unsafe);
    free(m->tail_end);
    free(m->tail_to);
}

/* Sorting PCStackInfo records by pc (HotSpot lists them in PcDesc order,
 * which is by pc; sorted anyway). */
static int by_pc(const void *a, const void *b)
{
    uint64_t x = (uint64_t)(uintptr_t)(*(const PCStackInfo *const *)a)->pc;
    uint64_t y = (uint64_t)(uintptr_t)(*(const PCStackInfo *const *)b)->pc;
    return x < y ? -1 : x > y;
}

static const jvmtiCompiledMethodLoadInlineRecord *inline_record(const void *compile_info)
{
    for (const jvmtiCompiledMethodLoadRecordHeader *h = compile_info; h; h = h->next)
        if (h->kind == JVMTI_CMLR_INLINE_INFO)
            return (const jvmtiCompiledMethodLoadInlineRecord *)h;
    return NULL;
}

/* Copies the debug information; 0 or -1 out of memory. */
static int copy_pcs(nm_info *m, const void *compile_info)
{
    const jvmtiCompiledMethodLoadInlineRecord *r = inline_record(compile_info);
    if (!r || r->numpcs <= 0)
        return 0;
    uint32_t n = (uint32_t)r->numpcs;
    const PCStackInfo **order = malloc(n * sizeof *order);
    if (!order)
        return -1;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        order[i] = &r->pcinfo[i];
        total += r->pcinfo[i].numstackframes > 0 ? (size_t)r->pcinfo[i].numstackframes : 0;
    }
    qsort(order, n, sizeof *order, by_pc);
    m->pcs = malloc(n * sizeof *m->pcs);
    m->first = malloc(n * sizeof *m->first);
    m->nframes = malloc(n * sizeof *m->nframes);
    m->frames = malloc((total ? total : 1) * sizeof *m->frames);
    if (!m->pcs || !m->first || !m->nframes || !m->frames) {
        free(order);
        return -1;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const PCStackInfo *p = order[i];
        int f = p->numstackframes > 0 ? p->numstackframes : 0;
        m->pcs[i] = (uint64_t)(uintptr_t)p->pc;
        m->first[i] = k;
        m->nframes[i] = (uint16_t)(f < 65535 ? f : 65535);
        for (int j = 0; j < f; j++)
            m->frames[k++] = (wasp_rframe){.bci = p->bcis[j], .method = p->methods[j]};
    }
    m->npcs = n;
    free(order);
    return 0;
}

/* Where the code past the last record jumps back to (pc_frames.h), read
 * from the code as loaded (the JVM's own, alive during the event). 0 or -1
 * out of memory. */
static int copy_tail(nm_info *m, const uint8_t *code)
{
    if (!m->npcs)
        return 0;
    uint64_t from = m->pcs[m->npcs - 1];
    if (from < m->start || from >= m->end)
        return 0;
    uint32_t cap = (uint32_t)(m->end - from); /* a range is one byte at least (a ret) */
    m->tail_end = malloc(cap * sizeof *m->tail_end);
    m->tail_to = malloc(cap * sizeof *m->tail_to);
    if (!m->tail_end || !m->tail_to)
        return -1;
    m->ntail = wasp_pc_frames_tail(code, m->start, m->end, from, m->tail_end, m->tail_to, cap);
    uint64_t *e = realloc(m->tail_end, (m->ntail ? m->ntail : 1) * sizeof *e);
    uint64_t *t = realloc(m->tail_to, (m->ntail ? m->ntail : 1) * sizeof *t);
    m->tail_end = e ? e : m->tail_end; /* a failed shrink keeps the larger block */
    m->tail_to = t ? t : m->tail_to;
    return 0;
}

/* The frame shape and the PCs where rsp is not the body's. */
static void decode_frame(nm_info *m)
{
    const uint8_t *code = m->code;
    size_t n = (size_t)(m->end - m->start);
    if (wasp_prologue_decode(code, n, &m->shape) != 0) {
        memset(&m->shape, 0, sizeof m->shape);
        unknown_shapes++;
        return;
    }
    enum { MAX_RANGES = 4096 };
    uint32_t *r = malloc(2 * MAX_RANGES * sizeof *r);
    int k = r ? wasp_frame_unsafe_ranges(code, n, m->shape.prologue_end, r, MAX_RANGES) : -1;
    if (k < 0) {
        free(r);
        memset(&m->shape, 0, sizeof m->shape); /* too many to trust: walked */
        unknown_shapes++;
        return;
    }
    m->unsafe = k ? realloc(r, 2 * (size_t)k * sizeof *r) : NULL;
    if (!k || !m->unsafe)
        free(r);
    m->nunsafe = m->unsafe ? (uint32_t)k : 0;
    if (k && !m->unsafe) {
        memset(&m->shape, 0, sizeof m->shape);
        unknown_shapes++;
    }
}

/* The published map with entry `add` added, or the one of method
 * `remove_method` at `remove` taken out (the method is checked too: the
 * JVM's events come through more than one queue, and an unloading reported
 * after a newer method took the same addresses must not remove that one);
 * the old map retired. */
static void republish(const wasp_nmethod *add, uint64_t remove, jmethodID remove_method)
{
    const wasp_code_map *old = wasp_code_map_current();
    uint32_t n = old ? old->n : 0;
    wasp_code_map *map = wasp_code_map_alloc(n + 1);
    if (!map)
        return; /* the old map stays: samples in the new method are walked */
    uint32_t k = 0;
    int added = 0;
    for (uint32_t i = 0; i < n; i++) {
        const wasp_nmethod *e = &old->m[i];
        if (add && !added && add->start < e->start) {
            map->m[k++] = *add;
            added = 1;
        }
        if (e->start == remove && infos[e->id - 1].method == remove_method) {
            mark_unloaded(e->id);
            continue;
        }
        /* A method unloaded without its event (or a range reused): the
         * newer one wins. */
        if (add && e->start < add->end && add->start < e->end) {
            mark_unloaded(e->id);
            continue;
        }
        map->m[k++] = *e;
    }
    if (add && !added)
        map->m[k++] = *add;
    map->n = k;
    for (uint32_t i = 0; i < k; i++)
        map->starts[i] = map->m[i].start;
    wasp_code_map_publish(map);
}

void JNICALL wasp_code_map_on_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
                                   const void *code_addr, jint map_length,
                                   const jvmtiAddrLocationMap *map, const void *compile_info)
{
    (void)jvmti;
    (void)map_length;
    (void)map;
    if (code_size <= 0 || !code_addr)
        return;
    pthread_mutex_lock(&lock);
    int chain = keep_all();
    uint32_t id;
    if (!chain && nfree) {
        id = free_ids[--nfree];
    } else if (wasp_grow(&infos, &cap_infos, ninfos + 1, sizeof *infos) == 0) {
        id = ++ninfos;
    } else {
        pthread_mutex_unlock(&lock);
        return;
    }
    nm_info *m = &infos[id - 1];
    memset(m, 0, sizeof *m);
    m->method = method;
    m->start = (uint64_t)(uintptr_t)code_addr;
    m->end = m->start + (uint64_t)code_size;
    if (lines_turned_on) {
        if (reporting_existing && pthread_equal(pthread_self(), existing_thread))
            m->coarse = !wasp_exact_code_has(m->start, method);
        else /* compiled just now, with the flag on */
            wasp_exact_code_add(m->start, method);
    }
    /* The code itself only for CallerChaining (its frame shape, and
     * wasp_nmethod_holds): the CPU samples by place need the debug
     * information alone. */
    if (chain && (m->code = malloc((size_t)code_size)))
        memcpy(m->code, code_addr, (size_t)code_size);
    if ((chain && !m->code) || copy_pcs(m, compile_info) != 0 || copy_tail(m, code_addr) != 0) {
        free_arrays(m);
        memset(m, 0, sizeof *m);
        m->state = FREE;
        if (id == ninfos)
            ninfos--;
        else
            free_ids[nfree++] = id; /* it came from there: room is left */
        pthread_mutex_unlock(&lock);
        return;
    }
    if (chain)
        decode_frame(m);
    held_bytes += arrays_bytes(m);
    wasp_nmethod e = {.start = m->start, .end = m->end, .id = id, .shape = m->shape,
                      .unsafe = m->unsafe, .nunsafe = m->nunsafe, .calls = m->pcs,
                      .ncalls = m->npcs, .code = m->code};
    if (chain || wasp_grow(&adds, &cap_adds, nadds + 1, sizeof *adds) != 0)
        republish(&e, 0, NULL); /* CallerChaining's handler needs it at once */
    else
        adds[nadds++] = e;
    pthread_mutex_unlock(&lock);
}

void JNICALL wasp_code_map_on_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr)
{
    (void)jvmti;
    uint64_t start = (uint64_t)(uintptr_t)code_addr;
    pthread_mutex_lock(&lock);
    if (lines_turned_on)
        wasp_exact_code_forget(start, method);
    int waiting = 0; /* loaded and unloaded since the last flush: never published */
    for (uint32_t i = 0; i < nadds && !waiting; i++)
        if (adds[i].start == start && infos[adds[i].id - 1].method == method) {
            mark_unloaded(adds[i].id);
            memmove(&adds[i], &adds[i + 1], (nadds - i - 1) * sizeof *adds);
            nadds--;
            waiting = 1;
        }
    if (!waiting) {
        if (nadds == 0 && nremoves == 0)
            republish(NULL, start, method);
        else if (wasp_grow(&removes, &cap_removes, nremoves + 1, sizeof *removes) == 0)
            removes[nremoves++] = (removal){start, method};
        else
            republish(NULL, start, method); /* out of memory: the slow way */
    }
    pthread_mutex_unlock(&lock);
}

/* Loads' indexes in adds, by start (then by arrival). */
static int by_start(const void *a, const void *b, void *arg)
{
    const wasp_nmethod *v = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (v[x].start != v[y].start)
        return v[x].start < v[y].start ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int removed(const wasp_nmethod *e)
{
    for (uint32_t r = 0; r < nremoves; r++)
        if (removes[r].start == e->start && infos[e->id - 1].method == removes[r].method)
            return 1;
    return 0;
}

/* The published map with the waiting removals and loads applied, in one
 * rebuild: the old entries and the loads merged by start; where two overlap
 * (a method unloaded without its event, or a range reused) the newer wins —
 * a load over an old entry, a later load over an earlier one — as when each
 * was published alone (republish). */
static void flush_locked(void)
{
    if (!nadds && !nremoves)
        return;
    const wasp_code_map *old = wasp_code_map_current();
    uint32_t n = old ? old->n : 0;
    wasp_code_map *map = wasp_code_map_alloc(n + nadds);
    uint32_t *order = malloc((nadds ? nadds : 1) * sizeof *order);
    uint32_t *newness = malloc((n + nadds ? n + nadds : 1) * sizeof *newness); /* per kept */
    if (!map || !order || !newness) {
        free(map); /* never published */
        free(order);
        free(newness);
        return; /* they wait for the next flush */
    }
    for (uint32_t j = 0; j < nadds; j++)
        order[j] = j;
    qsort_r(order, nadds, sizeof *order, by_start, adds);
    uint32_t k = 0, i = 0, j = 0;
    while (i < n || j < nadds) {
        const wasp_nmethod *x;
        uint32_t rank; /* old entries 0, the j-th load j + 1 */
        if (j >= nadds || (i < n && old->m[i].start < adds[order[j]].start)) {
            x = &old->m[i++];
            rank = 0;
            if (removed(x)) {
                mark_unloaded(x->id);
                continue;
            }
        } else {
            rank = order[j] + 1;
            x = &adds[order[j++]];
        }
        while (k && map->m[k - 1].end > x->start && newness[k - 1] < rank)
            mark_unloaded(map->m[--k].id); /* sorted by start: only the last kept overlap */
        if (k && map->m[k - 1].end > x->start) {
            mark_unloaded(x->id); /* a newer one holds its range */
            continue;
        }
        map->m[k] = *x;
        newness[k++] = rank;
    }
    free(order);
    free(newness);
    map->n = k;
    for (uint32_t m = 0; m < k; m++)
        map->starts[m] = map->m[m].start;
    nadds = nremoves = 0;
    wasp_code_map_publish(map);
}

void wasp_code_map_flush(void)
{
    pthread_mutex_lock(&lock);
    flush_locked();
    pthread_mutex_unlock(&lock);
}

void wasp_code_map_reset(void)
{
    pthread_mutex_lock(&lock);
    const wasp_code_map *old = wasp_code_map_current();
    for (uint32_t i = 0; old && i < old->n; i++)
        mark_unloaded(old->m[i].id); /* reported again; freed after a dump */
    for (uint32_t i = 0; i < nadds; i++)
        mark_unloaded(adds[i].id);
    nadds = nremoves = 0;
    wasp_code_map_publish(NULL);
    pthread_mutex_unlock(&lock);
}

void wasp_code_map_drain_begin(void)
{
    pthread_mutex_lock(&lock);
    flush_locked();
    drain_gen++;
    nknown = 0;
    known = malloc((ninfos ? ninfos : 1) * sizeof *known);
    known_reach = malloc((ninfos ? ninfos : 1) * sizeof *known_reach);
    if (known && known_reach) { /* out of memory: no late sample is found */
        for (uint32_t id = 1; id <= ninfos; id++)
            if (infos[id - 1].state != FREE)
                known[nknown++] = (wasp_code_range){infos[id - 1].start, infos[id - 1].end, id};
        wasp_code_ranges_sort(known, known_reach, nknown);
    }
    pthread_mutex_unlock(&lock);
}

uint32_t wasp_code_map_late_id(uint64_t pc)
{
    pthread_mutex_lock(&lock);
    uint32_t id =
        known && known_reach ? wasp_code_ranges_holder(known, known_reach, nknown, pc) : 0;
    pthread_mutex_unlock(&lock);
    return id;
}

void wasp_code_map_drain_end(void)
{
    pthread_mutex_lock(&lock);
    free(known);
    free(known_reach);
    known = NULL;
    known_reach = NULL;
    nknown = 0;
    if (!keep_all() && wasp_grow(&free_ids, &cap_free, ninfos, sizeof *free_ids) == 0)
        for (uint32_t id = 1; id <= ninfos; id++) {
            nm_info *m = &infos[id - 1];
            if (m->state != UNLOADED || m->unload_gen >= drain_gen)
                continue; /* live, or unloaded while this dump drained */
            held_bytes -= arrays_bytes(m);
            free_arrays(m);
            memset(m, 0, sizeof *m);
            m->state = FREE;
            free_ids[nfree++] = id;
        }
    pthread_mutex_unlock(&lock);
}

/* m's debug records, as pc_frames.h reads them. */
static wasp_pc_frames records_of(const nm_info *m)
{
    return (wasp_pc_frames){.npcs = m->npcs, .pcs = m->pcs, .first = m->first,
                            .nframes = m->nframes, .frames = m->frames, .ntail = m->ntail,
                            .tail_end = m->tail_end, .tail_to = m->tail_to, .root = m->method};
}

jmethodID wasp_code_map_method(uint32_t id)
{
    pthread_mutex_lock(&lock);
    jmethodID m = id && id <= ninfos ? infos[id - 1].method : NULL;
    pthread_mutex_unlock(&lock);
    return m;
}

int wasp_code_map_frames(uint32_t id, uint64_t after, wasp_rframe *out, int cap, bool *coarse)
{
    int n = 0;
    pthread_mutex_lock(&lock);
    if (coarse)
        *coarse = id && id <= ninfos && infos[id - 1].state != FREE && infos[id - 1].coarse;
    /* A pc outside the method's code: a sample counted as its id was freed
     * and taken again (a tiny window): not this method's. */
    if (id && id <= ninfos && infos[id - 1].start <= after && after < infos[id - 1].end) {
        wasp_pc_frames d = records_of(&infos[id - 1]);
        n = wasp_pc_frames_at(&d, after, out, cap);
    }
    pthread_mutex_unlock(&lock);
    return n;
}

int wasp_code_map_caller_frames(jmethodID root, uint64_t ret, wasp_rframe *out, int cap)
{
    int n = 0;
    pthread_mutex_lock(&lock);
    for (uint32_t id = ninfos; id > 0 && !n; id--) { /* the newest first: an address reused */
        const nm_info *m = &infos[id - 1];
        if (m->state == FREE || m->method != root || ret <= m->start || ret > m->end)
            continue;
        wasp_pc_frames d = records_of(m);
        n = wasp_pc_frames_placed(&d, ret - 1, out, cap);
    }
    pthread_mutex_unlock(&lock);
    return n;
}

void wasp_code_map_lines_turned_on(bool on)
{
    pthread_mutex_lock(&lock);
    lines_turned_on = on;
    pthread_mutex_unlock(&lock);
}

void wasp_code_map_existing_begin(void)
{
    pthread_mutex_lock(&lock);
    reporting_existing = true;
    existing_thread = pthread_self();
    pthread_mutex_unlock(&lock);
}

void wasp_code_map_existing_end(void)
{
    pthread_mutex_lock(&lock);
    reporting_existing = false;
    if (lines_turned_on) /* what was not reported is no longer compiled */
        wasp_exact_code_prune();
    pthread_mutex_unlock(&lock);
}

void wasp_code_map_stats(uint64_t *methods, uint64_t *unknown_shape, uint64_t *bytes)
{
    pthread_mutex_lock(&lock);
    *methods = ninfos - nfree;
    *bytes = held_bytes;
    *unknown_shape = unknown_shapes;
    pthread_mutex_unlock(&lock);
}

uint32_t wasp_code_map_coarse_methods(jmethodID *out, uint32_t cap)
{
    uint32_t n = 0;
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < ninfos && n < cap; i++)
        if (infos[i].state == LIVE && infos[i].coarse)
            out[n++] = infos[i].method;
    pthread_mutex_unlock(&lock);
    return n;
}
