/*
 * `wasp run [options] -- java <args...>`: start java with the agent, wait for
 * it, print the report. Option parsing and argv building are pure functions
 * so tests can call them without forking.
 *
 * `wasp attach` and `wasp detach` (cli/attach/attach.h) share the option parsing,
 * the agent option string, locating the agent and rendering the profile.
 */
#ifndef WASP_CLI_RUN_H
#define WASP_CLI_RUN_H

#include <stdio.h>
#include <sys/stat.h>

#include "agent/options.h"
#include "cli/commands/report.h"

#define WASP_RUN_DEFAULT_OUTPUT "wasp.wprof"

/* The subcommands that share the option parser. */
typedef enum wasp_cli_cmd {
    WASP_CLI_RUN = 0,
    WASP_CLI_ATTACH = 1,
    WASP_CLI_DETACH = 2,
    WASP_CLI_DUMP = 3
} wasp_cli_cmd;

/* "run", "attach", "detach", "dump": how messages name the subcommand. */
const char *wasp_cli_cmd_name(wasp_cli_cmd cmd);

typedef struct wasp_run_config {
    /* Agent options, validated. agent.file is the output path as given
     * (default "wasp.wprof"); wasp_cmd_run makes it absolute before exec. */
    wasp_options agent;
    wasp_report_opts report; /* report.top is 0 unless --top was given */
    int quiet;               /* -q: no report */
    const char *agent_path;  /* --agent, or NULL: <exe dir>/../lib/libwasp.so */
    int cmd_argc;            /* the command after "--"; cmd_argv[0] is the launcher */
    char **cmd_argv;         /* points into the argv given to the parser */
    wasp_cli_cmd cmd;        /* which subcommand parsed this (zero: run) */
    int output_given;        /* -o was given */
    /* attach and detach: */
    int pid;                 /* the JVM's process id */
    unsigned duration_s;     /* attach -d: seconds to profile; 0: until wasp detach */
} wasp_run_config;

enum { WASP_RUN_OK = 0, WASP_RUN_HELP = 1, WASP_RUN_ERROR = -1 };

/* Parse `run`'s arguments (argv[0] is "run"). Returns WASP_RUN_OK,
 * WASP_RUN_HELP for -h/--help, or WASP_RUN_ERROR with a one-line message in
 * err naming the option and the accepted values. */
int wasp_run_parse_args(int argc, char **argv, wasp_run_config *cfg, char *err, size_t errlen);

/* The same parser for any of the three (argv[0] is the subcommand's name).
 * run: as above. attach: run's options (no "--" command) plus -d SECONDS and
 * one PID operand; agent.file defaults to "wasp-<pid>.wprof". detach: -o,
 * --format, --top, --by, -q, --agent and the PID; agent.file stays "" unless
 * -o is given. Messages start "wasp <cmd>: ". */
int wasp_cli_parse_args(wasp_cli_cmd cmd, int argc, char **argv, wasp_run_config *cfg,
                        char *err, size_t errlen);

/* The agent option string for cfg->agent (what follows "libwasp.so=").
 * Returns its length, or -1 with err set (a path the string cannot carry). */
int wasp_run_agent_options(const wasp_run_config *cfg, char *buf, size_t buflen, char *err,
                           size_t errlen);

/* The child's argv: cmd_argv[0], "-agentpath:<agent_abs>=<agent options>",
 * cmd_argv[1..]. NULL-terminated; free with wasp_run_free_argv. Returns 0, or
 * -1 with err set (e.g. a path the agent string cannot carry). */
int wasp_run_build_argv(const wasp_run_config *cfg, const char *agent_abs, char ***out_argv,
                        char *err, size_t errlen);
void wasp_run_free_argv(char **argv);

void wasp_run_usage(FILE *out);
/* Help lines of the agent options cmd takes as flags (-e, -o, --period ...),
 * from the option table; attach's help prints them too. */
void wasp_run_help_agent_flags(FILE *out, wasp_cli_cmd cmd);
/* Lines of run's help that attach and detach reuse: the report options
 * (--format, --top, --by). */
void wasp_run_help_report_flags(FILE *out);

/* The agent library: --agent, or <exe dir>/../lib/libwasp.so, resolved to an
 * absolute path. Returns 0, or -1 after printing why to stderr. */
int wasp_run_locate_agent(const wasp_run_config *cfg, char *out, size_t outlen);

/* Read cfg->agent.file and render it with cfg->report to stdout. Returns 0,
 * or -1 after printing why to stderr. */
int wasp_run_show_report(const wasp_run_config *cfg);

/* Whether a file was (re)written: the agent writes atomically (temp file +
 * rename), so a fresh profile has another inode or a newer mtime. */
typedef struct wasp_file_id {
    int exists;
    struct stat st;
} wasp_file_id;
wasp_file_id wasp_file_id_of(const char *path);
int wasp_file_is_new(const wasp_file_id *before, const char *path);

/* The whole subcommand; returns the process exit status. */
int wasp_cmd_run(int argc, char **argv);

#endif
