/*
 * Agent log (see log.h). Not async-signal-safe.
 */
#include "agent/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/safe_open.h"

static FILE *out;
static int quiet;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The log file, opened without following another user's symbolic link;
 * NULL (said on stderr) when it cannot be. */
static FILE *open_log(const char *path)
{
    char err[512];
    int fd = wasp_open_append(path, err, sizeof err);
    FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "wasp: log=%s: %s; logging to stderr\n", path,
                fd >= 0 ? strerror(errno) : err);
    }
    return f;
}

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
        out = open_log(where);
        if (!out)
            out = stderr;
    }
    pthread_mutex_unlock(&lock);
}

void wasp_log_to(const char *where, const char *msg)
{
    FILE *f = NULL;
    if (where && *where && strcmp(where, "stderr") != 0 && strcmp(where, "none") != 0)
        f = open_log(where);
    if (f) {
        fprintf(f, "wasp: %s\n", msg);
        fclose(f);
    } else if (!where || strcmp(where, "none") != 0) {
        fprintf(stderr, "wasp: %s\n", msg);
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
    pthread_mutex_lock(&lock);
    if (out && out != stderr)
        fclose(out);
    out = NULL;
    pthread_mutex_unlock(&lock);
}
