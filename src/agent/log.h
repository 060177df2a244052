/*
 * The agent's log: one line per event that matters to the user ("wasp: ...").
 * Not for signal handlers (uses stdio); handlers bump counters instead.
 */
#ifndef WASP_LOG_H
#define WASP_LOG_H

/* "stderr" (default), "none", or a file path (appended). */
void wasp_log_open(const char *where);
void wasp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void wasp_log_close(void);

#endif
