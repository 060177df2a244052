/*
 * run.c's seams, exposed for the unit tests (test_cli_run.c, test_attach.c)
 * and not part of the command's interface.
 */
#ifndef WASP_CLI_RUN_INTERNAL_H
#define WASP_CLI_RUN_INTERNAL_H

#include <stdio.h>

#include "cli/commands/report.h"

typedef int wasp_run_render_fn(const wasp_profile *p, const wasp_report_opts *o, FILE *out);

/* What wasp_run_show_report (run, attach, detach) renders with: fn, or
 * wasp_report_render again when fn is NULL. A test swaps in a stub to see
 * whether, and with which options, the report was rendered. */
void wasp_run_set_renderer(wasp_run_render_fn *fn);

#endif
