/*
 * The calling-context tree of CallerChaining (Inoue & Nakatani, OOPSLA'09,
 * Section 6; docs/context-chain.md), built at the dump from every thread's
 * quadruples: a node is a (method, stack depth) pair, its parent the caller
 * node of its hottest incoming edge. A node with more than one distinct
 * incoming edge (another caller, depth or call site) is ambiguous: the paper
 * splits its samples by edge hotness, wasp gives them all to the hottest
 * edge and counts the node.
 *
 * Pure: no JVM, no globals; methods are opaque keys. Not for signal handlers.
 */
#ifndef WASP_CALLER_CCT_H
#define WASP_CALLER_CCT_H

#include <stddef.h>
#include <stdint.h>

#include "watch/records.h"

typedef struct wasp_cct_edge {
    uint64_t callee;       /* method key */
    uint64_t caller;       /* method key; 0: the caller is not compiled code */
    uint64_t ret_pc;       /* the call site: the return address in the caller */
    uint64_t count;        /* samples that saw the edge */
    uint32_t callee_depth;
    uint32_t caller_depth; /* 0: unknown (the caller's frame size is) */
    uint32_t caller_id;    /* the caller's compiled code (its debug information) */
} wasp_cct_edge;

typedef struct wasp_cct wasp_cct;

/* Builds the tree from n edges (duplicates are merged, counts added; an
 * edge whose caller is not shallower than its callee is dropped). NULL out
 * of memory. */
wasp_cct *wasp_cct_build(const wasp_cct_edge *edges, size_t n);
void wasp_cct_free(wasp_cct *c);

/* Nodes (distinct (method, depth) pairs, callers and callees) and how many
 * of them are ambiguous. */
size_t wasp_cct_nodes(const wasp_cct *c);
size_t wasp_cct_ambiguous(const wasp_cct *c);

typedef enum wasp_cct_end {
    WASP_CCT_END_UNSAMPLED,      /* the last node has no known caller edge */
    WASP_CCT_END_NOT_COMPILED,   /* the last edge's caller is not compiled code */
    WASP_CCT_END_UNKNOWN_FRAME,  /* the last edge's caller has no known frame size */
    WASP_CCT_END_TOO_DEEP        /* cap reached */
} wasp_cct_end;

/* The callers of node (method, depth): the chosen edge of each level, the
 * node's own first, at most cap into out. Returns their count and sets
 * *end; *ambiguous (may be NULL) to the levels whose node was ambiguous. */
int wasp_cct_callers(const wasp_cct *c, uint64_t method, uint32_t depth,
                     const wasp_cct_edge **out, int cap, wasp_cct_end *end, int *ambiguous);

/* The Java frames of compiled code id at the first PC with debug
 * information above `after` (watch/pc_frames.h), leaf first, at most cap;
 * returns the count. */
typedef int (*wasp_cct_frames_fn)(void *ctx, uint32_t id, uint64_t after, wasp_rframe *out,
                                  int cap);

/* Expands a sample at pc in compiled code id (its root method `method`) at
 * depth: the frames at pc (inlined ones included), then for each caller
 * level the frames at its call site, leaf first, at most cap into out.
 * Returns the count; *end says how the chain ended and *end_ret, for
 * WASP_CCT_END_NOT_COMPILED, the return address where it left compiled
 * code. */
int wasp_cct_expand(const wasp_cct *c, uint64_t method, uint32_t id, uint64_t pc, uint32_t depth,
                    wasp_cct_frames_fn frames, void *ctx, wasp_rframe *out, int cap,
                    wasp_cct_end *end, uint64_t *end_ret);

#endif
