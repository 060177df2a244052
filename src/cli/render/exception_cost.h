/*
 * What the program's exceptions cost (the summary, report_summary.c;
 * docs/findings.md "Exceptions"): the CPU samples spent filling in their
 * stack traces (the native Throwable.fillInStackTrace, which every
 * exception created runs unless its class overrides it: a walk of the
 * thread's whole stack), and where the exceptions were created, the place
 * (wasp_place_frame) that most of the analyses' sampled stacks through it
 * share. A program that throws an exception per call to say "not found"
 * or "past the end" spends here (SableCC: a third of its CPU).
 */
#ifndef WASP_CLI_EXCEPTION_COST_H
#define WASP_CLI_EXCEPTION_COST_H

#include <stdint.h>

#include "profile/profile.h"

typedef struct wasp_exception_cost {
    double samples;          /* the CPU samples at Throwable.fillInStackTrace */
    double share, lo, hi;    /* of the samples counted by line, and its 95% interval */
    const wasp_frame *place; /* where most were created; NULL: no sampled stack says */
    double stacks, at_place; /* the analyses' sampled stacks through it (each
                              * weighs its samples), and those at place */
} wasp_exception_cost;

/* The cost in p, its place from the analyses in shown (bits by id). 0 (*c
 * zero when p has no samples by line), or -1 when out of memory. */
int wasp_exception_cost_of(const wasp_profile *p, uint32_t shown, wasp_exception_cost *c);

#endif
