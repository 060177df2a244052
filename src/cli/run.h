/*
 * `wasp run [options] -- java <args...>`: start java with the agent, wait for
 * it, print the report. Option parsing and argv building are pure functions
 * so tests can call them without forking.
 */
#ifndef WASP_CLI_RUN_H
#define WASP_CLI_RUN_H

#include <stdio.h>

#include "agent/options.h"
#include "cli/report.h"

#define WASP_RUN_DEFAULT_OUTPUT "wasp.wprof"

typedef struct wasp_run_config {
    /* Agent options, validated. agent.file is the output path as given
     * (default "wasp.wprof"); wasp_cmd_run makes it absolute before exec. */
    wasp_options agent;
    wasp_report_opts report; /* report.top is 0 unless --top was given */
    int quiet;               /* -q: no report */
    const char *agent_path;  /* --agent, or NULL: <exe dir>/../lib/libwasp.so */
    int cmd_argc;            /* the command after "--"; cmd_argv[0] is the launcher */
    char **cmd_argv;         /* points into the argv given to the parser */
} wasp_run_config;

enum { WASP_RUN_OK = 0, WASP_RUN_HELP = 1, WASP_RUN_ERROR = -1 };

/* Parse `run`'s arguments (argv[0] is "run"). Returns WASP_RUN_OK,
 * WASP_RUN_HELP for -h/--help, or WASP_RUN_ERROR with a one-line message in
 * err naming the option and the accepted values. */
int wasp_run_parse_args(int argc, char **argv, wasp_run_config *cfg, char *err, size_t errlen);

/* The child's argv: cmd_argv[0], "-agentpath:<agent_abs>=<agent options>",
 * cmd_argv[1..]. NULL-terminated; free with wasp_run_free_argv. Returns 0, or
 * -1 with err set (e.g. a path the agent string cannot carry). */
int wasp_run_build_argv(const wasp_run_config *cfg, const char *agent_abs, char ***out_argv,
                        char *err, size_t errlen);
void wasp_run_free_argv(char **argv);

void wasp_run_usage(FILE *out);

/* The whole subcommand; returns the process exit status. */
int wasp_cmd_run(int argc, char **argv);

#endif
