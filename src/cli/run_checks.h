/*
 * What `wasp run` checks before it starts the program, so that a mistake is
 * reported at once rather than after the whole program has run, and what it
 * says when no profile came back.
 */
#ifndef WASP_RUN_CHECKS_H
#define WASP_RUN_CHECKS_H

#include <stddef.h>

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

/* Why no profile came back, given the program's wait status as spawn gives
 * it (exit code, or 128 + signal): one line for the user. When the JVM (pid,
 * started with the options in argv) died of a fatal error and left its
 * report where HotSpot writes it (-XX:ErrorFile, else ./hs_err_pid<pid>.log,
 * else in /tmp), the line names the report. */
void wasp_run_explain_missing(const char *path, int status, int pid, char *const *argv,
                              char *out, size_t outlen);

#endif
