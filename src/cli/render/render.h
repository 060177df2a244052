/*
 * The report renderers. Private to src/cli/ (report.c dispatches to them);
 * each analysis's part of a report is in its report part (report_part.h).
 */
#ifndef WASP_CLI_RENDER_H
#define WASP_CLI_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/profile.h"

/* top: entries shown per analysis; <= 0 means all. Return 0, or -1 when out
 * of memory (write errors are left in out's error flag). */
int wasp_render_text(const wasp_profile *p, int top, FILE *out);
int wasp_render_json(const wasp_profile *p, int top, FILE *out);
/* Flame-graph formats (docs/formats.md): every weighted context, top unused. */
int wasp_render_collapsed(const wasp_profile *p, int top, FILE *out);
/* The stacks of one analysis (id; -1 the first shown; WASP_ANALYSES all)
 * and one side (a wasp_report_side) only. */
int wasp_render_collapsed_choice(const wasp_profile *p, int analysis, int side, FILE *out);
int wasp_render_pprof(const wasp_profile *p, int top, FILE *out);
/* One self-contained HTML page: the JSON report as data, and a script that
 * draws it (src/cli/html/). */
int wasp_render_html(const wasp_profile *p, int top, FILE *out);

/* The text report; verbose: with how it was measured (the sampler, the
 * watchpoints, their counters and drops) in the header. */
int wasp_render_text_verbose(const wasp_profile *p, int top, bool verbose, FILE *out);

/* The summary, the report's first screen (report_summary.c), of the
 * analyses in shown (top > 0: at most top findings each): as text, and as
 * the JSON member "summary". 0, or -1 when out of memory. */
struct wasp_json;
int wasp_summary_text(const wasp_profile *p, uint32_t shown, int top, FILE *out);
int wasp_summary_json(struct wasp_json *j, const wasp_profile *p, uint32_t shown, int top);

/* Which analyses the report shows (a bit per id): their report parts say. */
uint32_t wasp_report_shown_analyses(const wasp_profile *p);

struct wasp_stack_sink;
/* The stacks of every analysis the report shows, in registry order, to sink
 * (report_part.h). 0, or -1 (the sink's). */
int wasp_report_stacks(const wasp_profile *p, struct wasp_stack_sink *sink);

/* Whether the run's watch budget was spent (samples went unarmed, or were
 * never taken while sampling slowed). */
bool wasp_report_budget_spent(const wasp_profile *p);
/* Whether an analysis in shown (a mask of ids) arms samples (report_part.h,
 * counts_armed): the pair analyses. */
bool wasp_report_arms_samples(uint32_t shown);
/* Room for the warning below. */
enum { WASP_THIN_WARNING_MAX = 512 };
/* The report's warning that its fractions rest on too few armed samples
 * (written to buf, n bytes), shown by every renderer; false: none. */
bool wasp_report_thin_evidence(const wasp_profile *p, char *buf, size_t n);
/* The summary's words for a watching analysis that found nothing on that
 * thin evidence ("only 1 sample armed, too few to find anything ..."):
 * false when the evidence is not thin. */
bool wasp_report_thin_nothing(const wasp_profile *p, char *buf, size_t n);
/* The analyses that could not see what they measure (meta "blind.NAME",
 * written by the agent: e.g. HotSpot's object layout not read): the k-th
 * such sentence, NULL past the last. Shown as warnings. */
const char *wasp_report_blind(const wasp_profile *p, uint32_t k);

/* "java", "native", "stub", "unknown" (also for kinds from newer writers). */
const char *wasp_frame_kind_name(uint32_t kind);

#endif
