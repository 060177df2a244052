/*
 * Agent log (see log.h). Not async-signal-safe.
 */
#include "agent/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static FILE *out;
static int quiet;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void wasp_log_open(const char *where)
{
    pthread_mutex_lock(&lock);
    if (out && out != stderr)
        fclose(out); /* a later attach names its own log */
    quiet = 0;
    out = stderr;
    if (where && strcmp(where, "none") == 0) {
        quiet = 1;
    } else if (where && *where && strcmp(where, "stderr") != 0) {
        out = fopen(where, "a");
        if (!out) {
            out = stderr;
            fprintf(stderr, "wasp: cannot open log file %s, logging to stderr\n", where);
        }
    }
    pthread_mutex_unlock(&lock);
}

void wasp_log_to(const char *where, const char *msg)
{
    FILE *f = NULL;
    if (where && *where && strcmp(where, "stderr") != 0 && strcmp(where, "none") != 0)
        f = fopen(where, "a");
    if (f) {
        fprintf(f, "wasp: %s\n", msg);
        fclose(f);
    }
    fprintf(stderr, "wasp: %s\n", msg);
}

void wasp_log(const char *fmt, ...)
{
    if (quiet)
        return;
    pthread_mutex_lock(&lock);
    FILE *f = out ? out : stderr;
    va_list ap;
    va_start(ap, fmt);
    fputs("wasp: ", f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    fflush(f);
    va_end(ap);
    pthread_mutex_unlock(&lock);
}

void wasp_log_close(void)
{
    pthread_mutex_lock(&lock);
    if (out && out != stderr)
        fclose(out);
    out = NULL;
    pthread_mutex_unlock(&lock);
}
