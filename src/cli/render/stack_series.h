/*
 * The series of the flame-graph formats (render_collapsed.c, render_pprof.c;
 * docs/formats.md): the stacks of one analysis and side, summed apart, each
 * stack's share of a sum rounded on the running sum, so that the parts add
 * up to the rounded total rather than drifting from it.
 */
#ifndef WASP_CLI_STACK_SERIES_H
#define WASP_CLI_STACK_SERIES_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/render/report_part.h"

enum { WASP_SERIES_MAX = 32 }; /* (analysis, side): 2 sides per analysis */

typedef struct wasp_series {
    const char *analysis, *side;
    bool by_bytes;
    size_t first;          /* pprof: its first sample type */
    double sum[2];         /* 0: bytes, 1: samples */
    long long printed[2];  /* what the earlier stacks got */
} wasp_series;

typedef struct wasp_series_set {
    wasp_series s[WASP_SERIES_MAX];
    size_t n;
} wasp_series_set;

/* The series of st, added when new (first set to 0); NULL past WASP_SERIES_MAX. */
wasp_series *wasp_series_of(wasp_series_set *set, const wasp_stack *st);
/* What a stack of value v adds to column k (0 bytes, 1 samples) of r: the
 * rounded running sum less what was given before. */
long long wasp_series_part(wasp_series *r, int k, double v);

#endif
