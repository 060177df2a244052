/*
 * See chain_dump.h. Threads that end early are folded (and their contexts
 * expanded) with the tree as it is then: the quadruples of the threads
 * still running are not in it yet. The tree is rebuilt when quadruples came
 * in since it was last built.
 */
#include "agent/chain_dump.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/code_map_load.h"
#include "agent/jvm.h"
#include "profile/part.h"
#include "watch/caller_cct.h"
#include "watch/caller_chain.h"
#include "watch/session.h"

enum { CHECK_FRAMES = 16 };

/* A check sample: the chain context and the walk's first frames. */
typedef struct check_sample {
    wasp_rframe marks[2];
    wasp_rframe walk[CHECK_FRAMES];
    uint32_t nwalk; /* frames of the walk kept (the walk had at least these) */
} check_sample;

static struct {
    pthread_mutex_t lock;
    wasp_cct_edge *edges;
    uint32_t n, cap;
    int dirty;
    wasp_cct *cct;
    check_sample *checks;
    uint32_t nchecks, capchecks;
    uint64_t no_walk; /* check samples whose walk found no frame */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Check samples kept at most (a session's snapshots each add theirs). */
enum { CHECKS_MAX = 1u << 20 };

static int edge_order(const void *a, const void *b)
{
    const wasp_cct_edge *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
    CMP(callee); CMP(caller); CMP(ret_pc); CMP(callee_depth); CMP(caller_depth); CMP(caller_id);
#undef CMP
    return 0;
}

/* Equal edges as one, their counts added (as the tree would merge them):
 * snapshots harvest every thread again and again, and the pool must stay
 * the size of the distinct edges. Call with pool.lock held. */
static void compact_edges(void)
{
    static uint32_t compacted; /* pool.n after the last compaction */
    if (pool.n < 65536 || pool.n < 2 * compacted)
        return;
    qsort(pool.edges, pool.n, sizeof *pool.edges, edge_order);
    uint32_t k = 0;
    for (uint32_t i = 0; i < pool.n; i++) {
        if (k && edge_order(&pool.edges[k - 1], &pool.edges[i]) == 0)
            pool.edges[k - 1].count += pool.edges[i].count;
        else
            pool.edges[k++] = pool.edges[i];
    }
    pool.n = compacted = k;
}

static void harvest_checks(const wasp_thread *t)
{
    const wasp_chain_thread *c = t->chain;
    if (pool.nchecks + c->nchecks > CHECKS_MAX)
        return;
    if (wasp_grow(&pool.checks, &pool.capchecks, pool.nchecks + c->nchecks,
             sizeof *pool.checks) != 0)
        return;
    for (uint32_t i = 0; i < c->nchecks; i++) {
        const wasp_chain_check *k = &c->checks[i];
        if (!k->trace) {
            pool.no_walk++;
            continue;
        }
        check_sample *s = &pool.checks[pool.nchecks++];
        s->marks[0] = (wasp_rframe){.bci = WASP_RFRAME_CHAIN, .method = (void *)(uintptr_t)k->pc};
        s->marks[1] = (wasp_rframe){.bci = (int32_t)k->id, .method = (void *)(uintptr_t)k->depth};
        const wasp_rtrace *tr = &t->rec.traces[k->trace - 1];
        s->nwalk = tr->nframes < CHECK_FRAMES ? tr->nframes : CHECK_FRAMES;
        memcpy(s->walk, &t->rec.frames[tr->first], s->nwalk * sizeof *s->walk);
    }
}

void wasp_chain_harvest(const wasp_thread *t)
{
    wasp_chain_thread *c = t->chain;
    if (!c || c->harvested)
        return;
    c->harvested = 1;
    pthread_mutex_lock(&pool.lock);
    if (wasp_grow(&pool.edges, &pool.cap, pool.n + c->nquads, sizeof *pool.edges) == 0) {
        for (uint32_t i = 0; i < WASP_CHAIN_QUADS; i++) {
            const wasp_chain_quad *q = &c->quads[i];
            jmethodID callee = q->count ? wasp_code_map_method(q->callee_id) : NULL;
            if (!callee)
                continue;
            jmethodID caller = q->caller_id ? wasp_code_map_method(q->caller_id) : NULL;
            pool.edges[pool.n++] = (wasp_cct_edge){
                .callee = (uint64_t)(uintptr_t)callee, .callee_depth = q->callee_depth,
                .caller = (uint64_t)(uintptr_t)caller,
                .caller_depth = caller ? q->caller_depth : 0,
                .caller_id = caller ? q->caller_id : 0, .ret_pc = q->ret_pc, .count = q->count};
        }
        pool.dirty = 1;
        compact_edges();
    }
    harvest_checks(t);
    pthread_mutex_unlock(&pool.lock);
}

/* The tree of the quadruples so far (pool.lock held). */
static const wasp_cct *tree(void)
{
    if (pool.dirty || !pool.cct) {
        wasp_cct_free(pool.cct);
        pool.cct = wasp_cct_build(pool.edges, pool.n);
        pool.dirty = 0;
    }
    return pool.cct;
}

int wasp_chain_is_context(const wasp_rframe *frames, uint32_t n)
{
    return n == 2 && frames[0].bci == WASP_RFRAME_CHAIN;
}

/* The frames of compiled method id at pc (the first PC with debug
 * information after `after`), or its root method alone. */
static int frames_at(uint32_t id, uint64_t after, wasp_rframe *out, int cap)
{
    if (cap <= 0)
        return 0;
    int n = wasp_code_map_frames(id, after, out, cap, NULL);
    if (n > 0)
        return n;
    jmethodID m = wasp_code_map_method(id);
    if (!m)
        return 0;
    out[0] = (wasp_rframe){.bci = 0, .method = m};
    return 1;
}

static void not_compiled_text(uint64_t ret, char *end, size_t cap)
{
    const char *stub = wasp_jvm_code_name(ret);
    if (!stub)
        snprintf(end, cap, "[chain ends: caller not compiled]");
    else if (strcmp(stub, "Interpreter") == 0)
        snprintf(end, cap, "[chain ends: called from the interpreter]");
    else
        snprintf(end, cap, "[chain ends: called from %s]", stub);
}

static int frames_fn(void *ctx, uint32_t id, uint64_t after, wasp_rframe *out, int cap)
{
    (void)ctx;
    return frames_at(id, after, out, cap);
}

/* (pool.lock held) */
static int expand(const wasp_rframe *marks, wasp_rframe *out, int cap, char *end, size_t end_cap)
{
    uint64_t pc = (uint64_t)(uintptr_t)marks[0].method;
    uint32_t id = (uint32_t)marks[1].bci, depth = (uint32_t)(uintptr_t)marks[1].method;
    jmethodID m = wasp_code_map_method(id);
    if (!m) {
        snprintf(end, end_cap, "[chain ends: compiled method unknown]");
        return 0;
    }
    wasp_cct_end why;
    uint64_t ret;
    int n = wasp_cct_expand(tree(), (uint64_t)(uintptr_t)m, id, pc, depth, frames_fn, NULL, out,
                            cap, &why, &ret);
    switch (why) {
    case WASP_CCT_END_NOT_COMPILED: not_compiled_text(ret, end, end_cap); break;
    case WASP_CCT_END_UNSAMPLED: snprintf(end, end_cap, "[chain ends: caller never sampled]"); break;
    case WASP_CCT_END_UNKNOWN_FRAME:
        snprintf(end, end_cap, "[chain ends: caller's frame size unknown]");
        break;
    default: snprintf(end, end_cap, "[chain ends: too deep]"); break;
    }
    return n;
}

int wasp_chain_expand(const wasp_rframe *marks, wasp_rframe *out, int cap, char *end,
                      size_t end_cap)
{
    pthread_mutex_lock(&pool.lock);
    int n = expand(marks, out, cap, end, end_cap);
    pthread_mutex_unlock(&pool.lock);
    return n;
}

static int same_frame(const wasp_rframe *a, const wasp_rframe *b)
{
    if (a->method != b->method || a->bci == WASP_RFRAME_NATIVE || b->bci == WASP_RFRAME_NATIVE)
        return 0;
    return a->bci == b->bci ||
           wasp_jvm_line((jmethodID)a->method, a->bci) == wasp_jvm_line((jmethodID)b->method, b->bci);
}

/* Check mode: of the samples with a walk, those whose chain context names
 * the same leaf and the same callers (method and line) as the walk for at
 * least 1 and at least 3 caller levels (a walk with fewer levels must be
 * matched whole). (pool.lock held) */
static void check_agreement(uint64_t *agree1, uint64_t *agree3)
{
    *agree1 = *agree3 = 0;
    for (size_t i = 0; i < pool.nchecks; i++) {
        const check_sample *s = &pool.checks[i];
        wasp_rframe chain[CHECK_FRAMES];
        char end[WASP_CHAIN_END_TEXT];
        int n = expand(s->marks, chain, CHECK_FRAMES, end, sizeof end);
        int same = 0;
        while (same < n && same < (int)s->nwalk && same_frame(&chain[same], &s->walk[same]))
            same++;
        for (int levels = 1; levels <= 3; levels += 2) {
            int need = levels + 1 < (int)s->nwalk ? levels + 1 : (int)s->nwalk;
            if (same >= need)
                *(levels == 1 ? agree1 : agree3) += 1;
        }
    }
}

static const char *mode_name(int mode)
{
    return mode == WASP_CONTEXT_CHAIN_CHECK ? "chain-check"
           : mode == WASP_CONTEXT_CHAIN     ? "chain"
                                            : "walk";
}

void wasp_chain_meta(wasp_profile *p, int final)
{
    /* Walk, the default, is what a profile without "context" ran. */
    int mode = wasp_session_get()->context;
    if (mode == WASP_CONTEXT_WALK)
        return;
    wasp_profile_set_meta(p, "context", mode_name(mode));
    pthread_mutex_lock(&pool.lock);
    const wasp_cct *c = tree();
    uint64_t nodes = wasp_cct_nodes(c), ambiguous = wasp_cct_ambiguous(c);
    uint64_t agree1 = 0, agree3 = 0, checked = pool.nchecks, no_walk = pool.no_walk;
    if (mode == WASP_CONTEXT_CHAIN_CHECK)
        check_agreement(&agree1, &agree3);
    pthread_mutex_unlock(&pool.lock);
    uint64_t methods, unknown, bytes;
    wasp_code_map_stats(&methods, &unknown, &bytes);
    wasp_profile_set_counter(p, "chain.cct_nodes", nodes);
    wasp_profile_set_counter(p, "chain.cct_ambiguous", ambiguous);
    wasp_profile_set_counter(p, "chain.compiled_methods", methods);
    wasp_profile_set_counter(p, "chain.compiled_methods_no_frame_shape", unknown);
    uint64_t mapped = wasp_profile_get_counter(p, "chain.mapped");
    uint64_t walked = wasp_profile_get_counter(p, "chain.walked");
    uint64_t chain_ns = wasp_profile_get_counter(p, "chain.ns");
    uint64_t walks = wasp_profile_get_counter(p, "stack.walks");
    uint64_t walk_ns = wasp_profile_get_counter(p, "stack.walk_ns");
    double total = (double)(mapped + walked);
    char detail[512];
    int len = snprintf(detail, sizeof detail,
                       "%.1f%% of %llu contexts mapped without a walk (%.2f us each; a walk "
                       "%.2f us); calling-context tree of %llu nodes, %llu ambiguous",
                       total > 0 ? 100.0 * (double)mapped / total : 0.0,
                       (unsigned long long)(mapped + walked),
                       mapped ? (double)chain_ns / (double)mapped / 1000.0 : 0.0,
                       walks ? (double)walk_ns / (double)walks / 1000.0 : 0.0,
                       (unsigned long long)nodes, (unsigned long long)ambiguous);
    if (total > 0)
        wasp_profile_set_meta_rounded(p, "context_mapped_share", (double)mapped / total, "%.4f");
    if (mode == WASP_CONTEXT_CHAIN_CHECK && checked) {
        wasp_profile_set_counter(p, "chain.checked", checked);
        wasp_profile_set_counter(p, "chain.check_agree_1", agree1);
        wasp_profile_set_counter(p, "chain.check_agree_3", agree3);
        if (no_walk) /* check samples whose walk found no Java frame: not compared */
            wasp_profile_set_counter(p, "chain.check_walk_failed", no_walk);
        wasp_profile_set_meta_rounded(p, "context_agree_1", (double)agree1 / (double)checked, "%.4f");
        wasp_profile_set_meta_rounded(p, "context_agree_3", (double)agree3 / (double)checked, "%.4f");
        if (len > 0 && (size_t)len < sizeof detail)
            snprintf(detail + len, sizeof detail - (size_t)len,
                     "; check against AsyncGetCallTrace: %.1f%% agree for 1 caller level, "
                     "%.1f%% for 3 (%llu samples)",
                     100.0 * (double)agree1 / (double)checked,
                     100.0 * (double)agree3 / (double)checked, (unsigned long long)checked);
    }
    wasp_profile_set_meta(p, "context_detail", detail);
    if (!final) /* a snapshot: the session goes on with its tree */
        return;
    /* The profile is written: a later session (wasp attach again) starts
     * from no quadruples. */
    pthread_mutex_lock(&pool.lock);
    wasp_cct_free(pool.cct);
    free(pool.edges);
    free(pool.checks);
    pool.cct = NULL;
    pool.edges = NULL;
    pool.checks = NULL;
    pool.n = pool.cap = pool.nchecks = pool.capchecks = 0;
    pool.no_walk = 0;
    pool.dirty = 0;
    pthread_mutex_unlock(&pool.lock);
}
