/*
 * The compiled methods (nmethods) the handler may find a sample in, for
 * CallerChaining contexts (docs/context-chain.md): each one's code range,
 * frame shape (isa/prologue.h), the PCs where its rsp is not the body's, and
 * its call sites (the return addresses the JVM has debug information for).
 *
 * Published by the agent (agent/code_map_load.c) as an immutable array
 * sorted by address, replaced whole (copy-on-write) when methods are
 * compiled or unloaded. A handler brackets its use with enter/leave; an
 * array replaced is freed only once no handler is inside (see
 * wasp_code_map_publish).
 *
 * ASYNC-SIGNAL-SAFE: enter, leave and the lookups only read the array (no
 * locks, no allocation); publish is for the agent, outside handlers.
 */
#ifndef WASP_CODE_MAP_H
#define WASP_CODE_MAP_H

#include <stdint.h>

#include "isa/prologue.h"

typedef struct wasp_nmethod {
    uint64_t start, end;     /* [start, end): the method's instructions */
    uint32_t id;             /* unique for the run (an address may be reused) */
    wasp_frame_shape shape;  /* frame_size 0: unknown, samples here are walked */
    const uint32_t *unsafe;  /* nunsafe pairs of offsets [from, to), sorted */
    uint32_t nunsafe;
    const uint64_t *calls;   /* ncalls return addresses with debug info, sorted */
    uint32_t ncalls;
    /* A copy of the instructions as loaded: the JVM reports compiled
     * methods late (its service thread), when the same addresses may hold
     * another method already, and patches some instructions in place; a
     * sample whose instruction differs from the copy is walked. */
    const uint8_t *code;
} wasp_nmethod;

typedef struct wasp_code_map {
    uint32_t n;
    wasp_nmethod *m;   /* n of them, sorted by start, not overlapping */
    uint64_t starts[]; /* m[i].start: the search touches these few cache lines only */
} wasp_code_map;

/* A map with room for n methods (m and starts in the same block), for the
 * agent to fill; free() frees it. NULL out of memory. */
wasp_code_map *wasp_code_map_alloc(uint32_t n);

/* A handler's use: the array current when it entered stays valid until it
 * leaves. */
const wasp_code_map *wasp_code_map_enter(void);
void wasp_code_map_leave(void);

/* The nmethod holding pc, or NULL. */
const wasp_nmethod *wasp_code_map_find(const wasp_code_map *map, uint64_t pc);
/* Whether offset off of nm lies where rsp is the body's (or the prologue's,
 * which the shape describes). */
int wasp_nmethod_rsp_known(const wasp_nmethod *nm, uint32_t off);
/* Whether the len bytes at pc (a sample's instruction) are nm's own. */
int wasp_nmethod_holds(const wasp_nmethod *nm, uint64_t pc, const uint8_t *insn, uint8_t len);
/* Whether pc is one of nm's call sites' return addresses. */
int wasp_nmethod_is_call_site(const wasp_nmethod *nm, uint64_t pc);

/* Replaces the published array by map (owned from now on; NULL: none) and
 * frees the arrays replaced earlier once no handler is inside. Not for
 * handlers; callers serialize. */
void wasp_code_map_publish(wasp_code_map *map);
/* The array published last (for the agent to copy). */
const wasp_code_map *wasp_code_map_current(void);

#endif
