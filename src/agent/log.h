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
/* One line to `where` (as wasp_log_open takes it: the JVM's stderr only
 * when that is "stderr" or the file cannot be opened), leaving the log as
 * it is: for a request that is refused (a second `wasp attach`) or a dump,
 * whose log must not take over the running session's. The client reads the
 * file; a service's own stderr (its logs) gets no line per request. */
void wasp_log_to(const char *where, const char *msg);

#endif
