/*
 * See caller_cct.h. The edges, merged and sorted by callee node with the
 * hottest first, are the tree: a node's parent edge is the first of its
 * run, found by binary search.
 */
#include "watch/caller_cct.h"

#include <stdlib.h>
#include <string.h>

struct wasp_cct {
    wasp_cct_edge *e; /* by (callee, callee_depth), then count descending */
    size_t n;
    uint8_t *ambiguous; /* per edge: its callee node has another distinct edge */
    size_t nodes, nambiguous;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* Same edge: every field but the count. */
static int cmp_edge(const void *pa, const void *pb)
{
    const wasp_cct_edge *a = pa, *b = pb;
    int c;
    if ((c = cmp_u64(a->callee, b->callee)) || (c = cmp_u64(a->callee_depth, b->callee_depth)) ||
        (c = cmp_u64(a->caller, b->caller)) || (c = cmp_u64(a->caller_depth, b->caller_depth)) ||
        (c = cmp_u64(a->ret_pc, b->ret_pc)) || (c = cmp_u64(a->caller_id, b->caller_id)))
        return c;
    return 0;
}

/* By callee node, hottest first; ties by the edge itself, so the choice
 * does not depend on the input's order. */
static int cmp_node_hot(const void *pa, const void *pb)
{
    const wasp_cct_edge *a = pa, *b = pb;
    int c;
    if ((c = cmp_u64(a->callee, b->callee)) || (c = cmp_u64(a->callee_depth, b->callee_depth)))
        return c;
    if ((c = cmp_u64(b->count, a->count)))
        return c;
    return cmp_edge(a, b);
}

typedef struct node {
    uint64_t method;
    uint32_t depth;
} node;

static int cmp_node(const void *pa, const void *pb)
{
    const node *a = pa, *b = pb;
    int c = cmp_u64(a->method, b->method);
    return c ? c : cmp_u64(a->depth, b->depth);
}

static size_t count_nodes(const wasp_cct_edge *e, size_t n)
{
    node *v = malloc((2 * n + 1) * sizeof *v);
    if (!v)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        v[k++] = (node){e[i].callee, e[i].callee_depth};
        if (e[i].caller && e[i].caller_depth)
            v[k++] = (node){e[i].caller, e[i].caller_depth};
    }
    qsort(v, k, sizeof *v, cmp_node);
    size_t distinct = 0;
    for (size_t i = 0; i < k; i++)
        distinct += i == 0 || cmp_node(&v[i - 1], &v[i]) != 0;
    free(v);
    return distinct;
}

wasp_cct *wasp_cct_build(const wasp_cct_edge *edges, size_t n)
{
    wasp_cct *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->e = malloc((n ? n : 1) * sizeof *c->e);
    c->ambiguous = calloc(n ? n : 1, 1);
    if (!c->e || !c->ambiguous) {
        wasp_cct_free(c);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (edges[i].count && (!edges[i].caller_depth ||
                               edges[i].caller_depth < edges[i].callee_depth))
            c->e[k++] = edges[i];
    qsort(c->e, k, sizeof *c->e, cmp_edge);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m && cmp_edge(&c->e[m - 1], &c->e[i]) == 0)
            c->e[m - 1].count += c->e[i].count;
        else
            c->e[m++] = c->e[i];
    }
    c->n = m;
    qsort(c->e, m, sizeof *c->e, cmp_node_hot);
    for (size_t i = 0; i < m;) {
        size_t j = i + 1;
        while (j < m && c->e[j].callee == c->e[i].callee &&
               c->e[j].callee_depth == c->e[i].callee_depth)
            j++;
        if (j - i > 1) {
            c->nambiguous++;
            memset(c->ambiguous + i, 1, j - i);
        }
        i = j;
    }
    c->nodes = count_nodes(c->e, m);
    return c;
}

void wasp_cct_free(wasp_cct *c)
{
    if (!c)
        return;
    free(c->e);
    free(c->ambiguous);
    free(c);
}

size_t wasp_cct_nodes(const wasp_cct *c)
{
    return c ? c->nodes : 0;
}

size_t wasp_cct_ambiguous(const wasp_cct *c)
{
    return c ? c->nambiguous : 0;
}

/* The index of node (method, depth)'s hottest edge, or -1. */
static long parent_edge(const wasp_cct *c, uint64_t method, uint32_t depth)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const wasp_cct_edge *e = &c->e[mid];
        if (e->callee < method || (e->callee == method && e->callee_depth < depth))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n && c->e[lo].callee == method && c->e[lo].callee_depth == depth ? (long)lo
                                                                                     : -1;
}

int wasp_cct_callers(const wasp_cct *c, uint64_t method, uint32_t depth,
                     const wasp_cct_edge **out, int cap, wasp_cct_end *end, int *ambiguous)
{
    int n = 0;
    if (ambiguous)
        *ambiguous = 0;
    *end = WASP_CCT_END_UNSAMPLED;
    while (c) {
        long i = parent_edge(c, method, depth);
        if (i < 0)
            break;
        if (n >= cap) {
            *end = WASP_CCT_END_TOO_DEEP;
            break;
        }
        const wasp_cct_edge *e = &c->e[i];
        out[n++] = e;
        if (ambiguous)
            *ambiguous += c->ambiguous[i];
        if (!e->caller) {
            *end = WASP_CCT_END_NOT_COMPILED;
            break;
        }
        if (!e->caller_depth) {
            *end = WASP_CCT_END_UNKNOWN_FRAME;
            break;
        }
        /* Depth strictly decreases (edges that do not were dropped): the
         * chain ends. */
        method = e->caller;
        depth = e->caller_depth;
    }
    return n;
}

int wasp_cct_expand(const wasp_cct *c, uint64_t method, uint32_t id, uint64_t pc, uint32_t depth,
                    wasp_cct_frames_fn frames, void *ctx, wasp_rframe *out, int cap,
                    wasp_cct_end *end, uint64_t *end_ret)
{
    enum { LEVELS = 1024 };
    const wasp_cct_edge *edges[LEVELS];
    *end_ret = 0;
    int n = frames(ctx, id, pc, out, cap);
    int k = wasp_cct_callers(c, method, depth, edges, LEVELS, end, NULL);
    for (int i = 0; i < k && n < cap; i++) {
        const wasp_cct_edge *e = edges[i];
        if (!e->caller) {
            *end_ret = e->ret_pc;
            break;
        }
        /* The call site's own record: the first above ret - 1 is at ret. */
        n += frames(ctx, e->caller_id, e->ret_pc - 1, out + n, cap - n);
    }
    if (n >= cap && k > 0)
        *end = WASP_CCT_END_TOO_DEEP;
    return n;
}
