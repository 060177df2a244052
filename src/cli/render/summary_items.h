/*
 * The summary's findings (report_summary.c) as data, for what compares two
 * profiles' summaries (`wasp diff`, cli/diff/diff_summary.c): each
 * finding's place, its share and evidence, and its cost in CPU with the
 * samples behind it.
 */
#ifndef WASP_CLI_RENDER_SUMMARY_ITEMS_H
#define WASP_CLI_RENDER_SUMMARY_ITEMS_H

#include <stdbool.h>

#include "cli/render/report_part.h"
#include "profile/profile.h"

typedef struct wasp_summary_item {
    char place[WASP_FRAME_LABEL_MAX]; /* as the summary says it: "M(F.java:L)", with ", in
                                       * N(...)" when its code runs in a method the place
                                       * calls; "(no frames)" */
    char key[WASP_FRAME_LABEL_MAX]; /* the place's frame alone: what two profiles match */
    char what[320];         /* what happens there, as the summary says it */
    const wasp_frame *at;   /* the place's frame in its profile; NULL: none */
    const wasp_frame *native; /* the native method the place calls where its access ran, whose
                               * samples its CPU adds (Deflater.deflateBytesBytes); NULL: none */
    const char *created;    /* the class of the objects it creates (its profile's string),
                             * NULL: none */
    double share, evidence; /* as wasp_finding's */
    bool waiting;           /* time blocked: no CPU */
    bool by_line;           /* its CPU is its place's line's share of the CPU samples */
    bool measured;          /* its CPU cost is known: */
    double cpu, cpu_lo, cpu_hi; /* its share of the program's CPU and the 95% interval */
    double cpu_samples, cpu_draws; /* the samples behind it, of as many draws */
} wasp_summary_item;

struct wasp_native_shares;
/* Analysis id's findings in p, most important first, as the summary ranks
 * them (start-up work and hidden stacks passed over): at most max (and at
 * most the candidates the summary asks its part for, 32). shares: p's
 * (native_share.h), which the caller builds once for all its calls. The
 * count, or -1 when out of memory. */
int wasp_summary_items(const wasp_profile *p, const struct wasp_native_shares *shares, int id,
                       wasp_summary_item *items, int max);

#endif
