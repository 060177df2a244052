/*
 * `wasp diff BEFORE AFTER`: what changed between two profiles, so that a fix
 * can be confirmed. Per analysis the change of its program-level measure
 * (F_prog for the pair analyses), and the entries (pairs; allocation sites;
 * members; locked classes: each analysis's diff part, diff_part.h, says)
 * that vanished, appeared, shrank or grew.
 *
 * Entries of two files are matched by a key made of what they mean, never by
 * ids (each file numbers its strings and contexts its own way): the frames
 * (kind, name, file, line) of their contexts, the class of a site, and the
 * leaf instruction text only when matching by instruction. diff.c reads and
 * groups the files, diff_match.c builds the matched entries from what the
 * analyses' diff parts collect, diff_render.c writes them.
 *
 * A diff compares sections: each analysis's view, and its sub view (view.h:
 * locks' blocked time) as one of its own, with its own total, rows, matching
 * and noise test. Section id + WASP_ANALYSES * level: level 0 is the
 * analysis's own (section == analysis id), level 1 its view's sub. Deeper
 * subs (none exist) are not compared.
 */
#ifndef WASP_CLI_DIFF_H
#define WASP_CLI_DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "catalog/ids.h"
#include "profile/profile.h"

enum { WASP_DIFF_BEFORE = 0, WASP_DIFF_AFTER = 1 };

enum { WASP_DIFF_LEVELS = 2, WASP_DIFF_SECTIONS = WASP_ANALYSES * WASP_DIFF_LEVELS };

typedef enum wasp_diff_change {
    WASP_DIFF_VANISHED,
    WASP_DIFF_APPEARED,
    WASP_DIFF_SHRANK,
    WASP_DIFF_GREW,
    WASP_DIFF_UNCHANGED
} wasp_diff_change;

/* One entry (a pair, a site, a member, ...), on one or both sides. Its
 * quantity ("value") is what its analysis's diff part says (the pair's
 * bytes, the objects site's access samples, ...); its share is value / the
 * analysis's total on that side (the pair's F, the site's share of
 * samples...). */
typedef struct wasp_diff_entry {
    int analysis;        /* analysis id (catalog/ids.h) */
    int section;         /* its section (above): d->an's index */
    char *key;           /* the matching key (see above) */
    uint32_t index[2];   /* per side: its diff part's index (pair, site...); UINT32_MAX: absent */
    uint32_t rank[2];    /* per side: its rank in that profile's report; 0 when absent */
    double value[2];
    double share[2];
    double samples[2];   /* per side: the samples its value rests on (diff_noise.c) */
    double p_value;      /* two-sided, of "its share of samples did not change"; 1: no evidence */
    bool significant;    /* a change beyond sampling noise (Holm, WASP_DIFF_ALPHA family-wise) */
} wasp_diff_entry;

/* Per section (an analysis's view or its sub) and side: total is the
 * denominator of the shares (bytes stored or loaded, access samples,
 * comparisons, seconds blocked, ...); fraction the
 * program-level measure (F_prog; for replicas the share of comparisons
 * finding equal values; else unused, 0). samples: the samples behind the
 * entries' samples (their denominator); observations: the independent
 * samples those stand for (fewer when samples carry weights: 0 means as
 * many as samples). */
typedef struct wasp_diff_analysis {
    bool shown[2];
    double total[2];
    double fraction[2];
    double samples[2];
    double observations[2];
} wasp_diff_analysis;

typedef struct wasp_diff {
    const wasp_profile *side[2];  /* not owned */
    wasp_diff_analysis an[WASP_DIFF_SECTIONS]; /* by section */
    wasp_diff_entry *entries;     /* by analysis, then section, significant first, then
                                   * |share change| descending */
    uint32_t n;
} wasp_diff;

/* The family-wise error rate of a diff's significance tests: the chance
 * that two profiles of the same program show any significant change. */
#define WASP_DIFF_ALPHA 0.01
/* How much more two runs of one program differ than sampling alone makes
 * them: the variance of an entry's share between runs, over the binomial
 * variance (JIT phases, GC and start-up differ from run to run). Measured:
 * 1-4 on DeadStoreEuler (docs/diff.md). */
#define WASP_DIFF_RUN_VARIANCE 4.0
/* The same for a place's share of the CPU samples (the summary,
 * diff_summary.c): the JIT inlines a callee into a line in one run and not
 * in the next, which moves that line's samples by several points. Measured
 * on 31 diffs of two runs of one corpus program (docs/diff.md, "The
 * summary"): 542 places, the variance over the binomial 1.0 at the median,
 * 4.4 on average, up to 225; 16 left one of the 31 diffs with a significant
 * change, 24 none. */
#define WASP_DIFF_SUMMARY_RUN_VARIANCE 24.0

/* Matches before's and after's pairs and sites (with_insn: the leaf
 * instruction is part of a context's key). Entries that did not change at all
 * are kept (wasp_diff_change_of says WASP_DIFF_UNCHANGED). 0, or -1 when out
 * of memory or a profile is inconsistent. Free with wasp_diff_free. */
int wasp_diff_build(const wasp_profile *before, const wasp_profile *after, bool with_insn,
                    wasp_diff *d);
void wasp_diff_free(wasp_diff *d);
wasp_diff_change wasp_diff_change_of(const wasp_diff_entry *e);
/* Tests every entry of d (diff_noise.c): p_value and significant. 0, or -1
 * when out of memory. */
int wasp_diff_test_noise(wasp_diff *d);
/* The share-of-samples test of one entry: two-sided p of x0 of n0 against
 * x1 of n1 observations (a two-proportion z-test with continuity
 * correction); 1 when a side has none. */
double wasp_diff_p_value(double x0, double n0, double x1, double n1);
/* The same with the variance widened by run_variance in place of
 * WASP_DIFF_RUN_VARIANCE. */
double wasp_diff_p_value_widened(double x0, double n0, double x1, double n1, double run_variance);
/* "vanished", "appeared", "shrank", "grew", "unchanged". */
const char *wasp_diff_change_name(wasp_diff_change c);

typedef struct wasp_diff_names {
    const char *file[2]; /* the files as given, for the header */
    bool by_line;
    bool verbose; /* text: the contexts of changes within noise too (else a line each) */
} wasp_diff_names;

/* top: changed entries shown per analysis; <= 0: all. 0, or -1 when out of memory. */
int wasp_diff_render_text(const wasp_diff *d, const wasp_diff_names *names, int top, FILE *out);
int wasp_diff_render_json(const wasp_diff *d, const wasp_diff_names *names, int top, FILE *out);
/* One self-contained page: the JSON above as data, drawn by a script
 * (src/cli/html/diff.js). */
int wasp_diff_render_html(const wasp_diff *d, const wasp_diff_names *names, int top, FILE *out);

void wasp_diff_usage(FILE *out);
/* `wasp diff [options] BEFORE AFTER` (argv[0] is "diff"): 0 done, 1 a file
 * cannot be read or written, 2 usage. */
int wasp_cmd_diff(int argc, char **argv);

#endif
