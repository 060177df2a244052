/*
 * The attach progress file: while an attached agent profiles, a thread of
 * its own rewrites PROFILE.progress about once a second with the samples
 * taken so far, for `wasp attach -d` to show (the format and the reader:
 * cli/attach/attach_progress.h). Not for signal handlers.
 */
#ifndef WASP_AGENT_PROGRESS_H
#define WASP_AGENT_PROGRESS_H

/* Starts the writer for the profile at path. Failure is logged once and only
 * costs the progress line its count. */
void wasp_progress_start(const char *profile_path);
/* Stops it (waits for it) and removes the file. */
void wasp_progress_stop(void);

#endif
