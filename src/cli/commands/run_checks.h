/*
 * What `wasp run` checks before it starts the program, so that a mistake is
 * reported at once rather than after the whole program has run, and what it
 * says when no profile came back.
 */
#ifndef WASP_RUN_CHECKS_H
#define WASP_RUN_CHECKS_H

#include <stddef.h>
#include <time.h>

/* The command must be a java launcher: wasp run puts -agentpath right after
 * it, which only java understands (`sh -c ...` would take it as its own
 * option). The executable argv0 names (through PATH) must be called java.
 * Returns 0, or -1 with a one-line message in err. */
int wasp_run_check_launcher(const char *argv0, char *err, size_t errlen);

/* For `wasp cmd` (run, attach): the profile path (absolute) can be written
 * by the agent: it is not another user's symbolic link (which the agent's
 * writer refuses, wasp_check_link_owner), its directory exists and is
 * writable, and the path is not a directory or another kind of file the
 * profile cannot replace or be written into. Returns 0, or -1 with a
 * one-line message in err. */
int wasp_run_check_output(const char *cmd, const char *path, char *err, size_t errlen);

/* How the program wasp run started ended, for wasp_run_explain_missing. */
typedef struct wasp_run_exit {
    int status;             /* exit code, or 128 + signal (as spawn gives it) */
    int pid;                /* the JVM's, or 0 */
    char *const *argv;      /* its command line (after the launcher), or NULL */
    char *const *env;       /* its environment (JAVA_TOOL_OPTIONS...), or NULL */
    time_t started;         /* when it started: an older hs_err file is not its */
    const char *agent_base; /* the agent library's file name (NULL: libwasp.so) */
    int agent_loaded;       /* 1 the agent was seen started in it, 0 not seen, -1 unknown */
} wasp_run_exit;

/* Why no profile came back: one line for the user. When the JVM died of a
 * fatal error and left its report where HotSpot writes it (-XX:ErrorFile,
 * else ./hs_err_pid<pid>.log, else in /tmp), the line names the report and
 * blames wasp only when its problematic frame is in the agent
 * (cli/attach/jvm_death.h). A JVM that exited after the agent started is said to
 * have ended before the agent could write (never that the agent did not
 * start). */
void wasp_run_explain_missing(const char *path, const wasp_run_exit *x, char *out,
                              size_t outlen);

/* A profile came back although the JVM may not have exited normally: when
 * it is the agent's last snapshot (snapshot: the value of the profile's
 * `snapshot` meta, or NULL) or the JVM died of a fatal error, one line
 * saying so into out; else out is "". */
void wasp_run_explain_written(const char *path, const wasp_run_exit *x, const char *snapshot,
                              char *out, size_t outlen);

/* 1 with the profile's `snapshot` meta (what the agent says of a snapshot
 * written while the JVM ran, of which this is the last) in out, or 0 when
 * the profile at path has none or cannot be read. */
int wasp_run_profile_snapshot(const char *path, char *out, size_t outlen);

#endif
