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
    quiet = 0;
    if (!where || !*where || strcmp(where, "stderr") == 0) {
        out = stderr;
    } else if (strcmp(where, "none") == 0) {
        quiet = 1;
    } else {
        out = fopen(where, "a");
        if (!out) {
            out = stderr;
            fprintf(stderr, "wasp: cannot open log file %s, logging to stderr\n", where);
        }
    }
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
    if (out && out != stderr)
        fclose(out);
    out = NULL;
}
