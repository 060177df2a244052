/*
 * `wasp attach [options] PID` and `wasp detach [options] PID`: profile a
 * running HotSpot JVM by loading the agent through the JVM's dynamic attach
 * mechanism (cli/attach/hotspot_attach.h), with the agent option "action=start",
 * and stop it by loading it again with "action=stop", upon which the agent
 * writes its profile to the file it was given at attach.
 *
 * detach learns that file (and which library to load) from a state file
 * that attach writes after the agent started: /tmp/wasp-attach-<euid>-<pid>,
 * lines "file=PATH", "agent=PATH", "start=TICKS" (the process start time,
 * so a record left for an earlier process with the same pid is ignored),
 * then "since=SECONDS" and "hs_err=PATH" lines: where the JVM's fatal-error
 * report would go (cli/attach/jvm_death.h), learned while it lived, so that
 * detach can name the report of a JVM that died in between.
 * detach removes it once the agent has stopped; `detach -o FILE` overrides
 * the recorded file.
 *
 * The agent logs to FILE.log (the profile path plus ".log"), which attach
 * and detach print after each request: its messages would otherwise go to
 * the JVM's standard error, where the user of wasp may never see them.
 */
#ifndef WASP_CLI_ATTACH_H
#define WASP_CLI_ATTACH_H

#include <stdbool.h>
#include <stdio.h>

#include "agent/options.h"
#include "cli/attach/jvm_death.h"
#include "cli/commands/run.h"

/* How long detach waits for the profile file after the agent stopped. */
enum { WASP_ATTACH_PROFILE_TIMEOUT_MS = 30000 };

typedef struct wasp_attach_state {
    char file[WASP_PATH_MAX];  /* absolute profile path given to the agent */
    char agent[WASP_PATH_MAX]; /* absolute path of the library loaded */
    unsigned long long start_time; /* /proc/P/stat field 22 of the JVM */
    wasp_jvm_death death; /* where its fatal-error report would go (n 0: unknown) */
    /* The profile file as it was when the session began: a profile newer
     * than that is the session's (one the JVM's exit wrote as detach came). */
    bool has_profile_before;
    wasp_file_id profile_before;
} wasp_attach_state;

/* /tmp/wasp-attach-<euid>-<pid>. */
void wasp_attach_state_path(int pid, char *out, size_t outlen);

/* Write the record for pid (0600, replacing an older one of ours). Returns
 * 0, or -1 with err set. */
int wasp_attach_state_write(int pid, const wasp_attach_state *s, char *err, size_t errlen);

/* Read the record for pid: 0 found, -1 none (or not ours, or malformed). */
int wasp_attach_state_read(int pid, wasp_attach_state *s);

/* Whether the agent keeps its log (and attach -d's progress file) beside
 * the profile `file`: true when file is a regular file or does not exist
 * yet. A device or a pipe (-o /dev/null, a FIFO) has no directory of its own
 * to hold them — /dev/null.log would be a new file in /dev — so then the
 * agent gets no log= (its messages go to the JVM's standard error, which
 * attach says) and writes no progress file. */
bool wasp_attach_files_beside(const char *file);

/* Whether `file` names something that differs from one process to another
 * (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/...): the agent opens the
 * profile inside the JVM, where such a path is the JVM's own — its standard
 * output, which may be its log file. attach refuses them. */
bool wasp_attach_output_per_process(const char *file);

/* The agent's log for the profile `file`: file + ".log". Returns 0, or -1
 * when it does not fit in outlen. */
int wasp_attach_log_path(const char *file, char *out, size_t outlen);

struct wasp_run_config;
/* The agent option string attach sends: cfg's agent options (as `wasp run`
 * passes them, file= absolute), log= (wasp_attach_log_path; none when
 * wasp_attach_files_beside says no) and "action=start". Returns 0, or -1 with err
 * set ("wasp attach: ...") when it cannot be built or exceeds what the
 * attach protocol carries. */
int wasp_attach_agent_options(const struct wasp_run_config *cfg, char *buf, size_t buflen,
                              char *err, size_t errlen);

/* The progress line `attach -d` shows: cli/attach_progress.h. */

void wasp_attach_usage(FILE *out);
/* wasp dump: the profile so far of a JVM being profiled, which goes on. */
int wasp_cmd_dump(int argc, char **argv);
void wasp_dump_usage(FILE *out);
void wasp_detach_usage(FILE *out);

/* The subcommands (argv[0] is "attach" / "detach"); return the exit status:
 * 0 done, 1 the JVM could not be attached to / the agent failed / no
 * profile, 2 bad usage (bad option, agent library not found). */
int wasp_cmd_attach(int argc, char **argv);
int wasp_cmd_detach(int argc, char **argv);

#endif
