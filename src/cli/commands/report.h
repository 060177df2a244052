/*
 * `wasp report`: read profile files, merge them, render them as text or JSON
 * (docs/report-json.md is the JSON contract).
 */
#ifndef WASP_CLI_REPORT_H
#define WASP_CLI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "profile/profile.h"
#include "cli/render/frame_filter.h"

/* Report formats; report.c's table names them (adding a format is adding a
 * value here and a row there). */
typedef enum {
    WASP_FORMAT_TEXT = 0,
    WASP_FORMAT_JSON = 1,
    WASP_FORMAT_HTML, /* one self-contained page with flame graphs (render_html.c) */
    WASP_FORMAT_COLLAPSED, /* flame-graph lines (render_collapsed.c) */
    WASP_FORMAT_PPROF,     /* gzipped profile.proto (render_pprof.c) */
    WASP_FORMAT_COUNT
} wasp_format;

/* The formats a subcommand writes: bit (1u << format) for each. */
#define WASP_FORMATS_ALL ((1u << WASP_FORMAT_COUNT) - 1u)

/* The one parser of each report option, used by every subcommand (report,
 * run, attach, detach, diff). option is the option as the user wrote it
 * ("--format", "-t"), value its value (NULL or "" when missing). Each returns
 * 0, or -1 with err set to the one message naming the option and what it
 * accepts: "bad option '--format xml': expected text, json or html". */

/* --format: a name from report.c's table among those in accepted. */
int wasp_format_parse(const char *option, const char *value, unsigned accepted,
                      wasp_format *out, char *err, size_t errlen);
/* The accepted names joined by sep ("text|json" with "|"). */
void wasp_format_names(unsigned accepted, const char *sep, char *out, size_t outlen);

/* How pairs are keyed: by source line (contexts differing only in the leaf
 * instruction merged, wasp_profile_group_by_line), as recorded, or by
 * method (lines ignored too; WASP_GROUP_METHOD). */
typedef enum { WASP_BY_LINE = 0, WASP_BY_INSTRUCTION = 1, WASP_BY_METHOD = 2 } wasp_report_by;
/* --by: line, instruction or method. */
int wasp_by_parse(const char *option, const char *value, wasp_report_by *out, char *err,
                  size_t errlen);
/* --top: entries shown per analysis, 1 to WASP_TOP_MAX. */
#define WASP_TOP_MAX 1000000
int wasp_top_parse(const char *option, const char *value, int *out, char *err, size_t errlen);

/* --format collapsed's choice of stacks (render_collapsed.c, docs/formats.md):
 * --side watched|trapped|all, --analysis NAME|all. */
typedef enum { WASP_SIDE_WATCHED = 0, WASP_SIDE_TRAPPED, WASP_SIDE_ALL } wasp_report_side;
int wasp_side_parse(const char *option, const char *value, wasp_report_side *out, char *err,
                    size_t errlen);
/* *out: an analysis id, or WASP_ANALYSES for "all". */
int wasp_analysis_choice_parse(const char *option, const char *value, int *out, char *err,
                               size_t errlen);

typedef struct wasp_report_opts {
    wasp_format format;
    int top;           /* pairs per analysis; <=0: default (10 text, all json) */
    wasp_report_by by; /* zero: WASP_BY_LINE, the default */
    wasp_report_side side; /* collapsed: zero, the watched side */
    int analysis;          /* collapsed: 0 the first shown, else id + 1 (WASP_ANALYSES + 1: all) */
    bool verbose;          /* text: how it was measured, in the header (--verbose) */
    wasp_frame_filter filter; /* report: --include/--exclude (wasp report only) */
} wasp_report_opts;
/* The options `wasp report` and `wasp diff` share, at argv[*i]: --format
 * (a name among accepted), --top, --by and -o/--output (into *output). 1 when
 * argv[*i] is one of them (*i advanced past its value), 0 when it is none of
 * them, -1 with err set when its value is bad. */
int wasp_report_view_option(int argc, char **argv, int *i, unsigned accepted,
                            wasp_report_opts *o, const char **output, char *err, size_t errlen);
/* Render p to out, grouped first when o->by is WASP_BY_LINE or
 * WASP_BY_METHOD, and filtered by o->filter. Returns 0, or -1
 * on write error or when out of memory. */
int wasp_report_render(const wasp_profile *p, const wasp_report_opts *o, FILE *out);
/* `wasp report [--format text|json] [--top N] [--by line|instruction] [-o OUT] FILE...`: reads (and merges) the files, renders. Returns the process exit code; prints errors to stderr ("wasp report: FILE: not a wasp profile (bad magic)" etc.). Handles --help. */
int wasp_cmd_report(int argc, char **argv);

#endif
