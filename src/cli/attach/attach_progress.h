/*
 * The progress line of `wasp attach -d SECONDS` (shown when stderr is a
 * terminal): the time left and, when the agent reports it, the samples taken
 * so far.
 *
 * How the agent reports (docs/design.md, "Attach and detach"): while it
 * profiles after action=start, it rewrites FILE.progress (the profile path
 * plus ".progress", beside FILE.log) about once a second, as a new file
 * renamed into place, so a reader never sees half of one:
 *
 *     wasp-progress 1
 *     pid=4242
 *     samples=12345
 *
 * samples is the "samples" counter the profile will hold. The command removes
 * an old FILE.progress before it attaches and after the agent stopped, and
 * believes only a file of its own user naming the JVM it attached to: a
 * missing, stale, foreign or malformed file shows the time alone, never a
 * count that is not this run's.
 */
#ifndef WASP_CLI_ATTACH_PROGRESS_H
#define WASP_CLI_ATTACH_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* FILE.progress for the profile `file`. 0, or -1 when it does not fit. */
int wasp_attach_progress_path(const char *file, char *out, size_t outlen);

/* The samples count of a progress report `text` for JVM pid: 0, or -1 when
 * text is not a well-formed report of that JVM. */
int wasp_attach_progress_parse(const char *text, int pid, uint64_t *samples);

/* The samples count in the progress file at path, as parse says; -1 too when
 * the file is missing, not a regular file of this user, or a link. */
int wasp_attach_progress_read(const char *path, int pid, uint64_t *samples);

/* Removes the progress file at path if it is one (a regular file of this
 * user holding a report), leaving anything else there alone. */
void wasp_attach_progress_forget(const char *path);

/* "wasp: profiling JVM PID: N s left (Ctrl-C stops sooner)", N the whole
 * seconds left rounded up; with samples (not NULL) "N s left, 12,345
 * samples so far (...)". Returns what snprintf returns. */
int wasp_attach_progress_text(char *buf, size_t n, int pid, long long left_ms,
                              const uint64_t *samples);

#endif
