/*
 * The attach progress file (see progress.h): written with wasp_write_file
 * (common/safe_open.h), as every file wasp writes — a new file created
 * exclusively in the same directory, then renamed into place, so a reader
 * never sees half of one; another user's link or anything but a regular
 * file at PROFILE.progress is left alone. Not async-signal-safe.
 */
#include "agent/progress.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/log.h"
#include "agent/threads.h"
#include "common/safe_open.h"

static pthread_t writer;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int running, stopping;
static int written; /* PROFILE.progress is ours: a write put it there */
static char path[4096];

static int write_once(char *err, size_t errlen)
{
    char text[128];
    int n = snprintf(text, sizeof text, "wasp-progress 1\npid=%d\nsamples=%llu\n", (int)getpid(),
                     (unsigned long long)wasp_threads_samples());
    if (wasp_write_file(path, text, (size_t)n, WASP_WRITE_REGULAR_ONLY | WASP_WRITE_PRIVATE, err,
                        errlen) != 0)
        return -1;
    written = 1;
    return 0;
}

static void *run(void *arg)
{
    (void)arg;
    int warned = 0;
    char err[4096 + 256];
    pthread_mutex_lock(&lock);
    while (!stopping) {
        pthread_mutex_unlock(&lock);
        if (write_once(err, sizeof err) != 0 && !warned) {
            wasp_log("progress file: %s: wasp attach shows the time alone", err);
            warned = 1;
        }
        pthread_mutex_lock(&lock);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        while (!stopping && pthread_cond_timedwait(&wake, &lock, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

void wasp_progress_start(const char *profile_path)
{
    if (running)
        return;
    /* A profile that goes into a device or a pipe (/dev/null) has no
     * directory of its own to hold a file beside it: wasp attach gives such
     * a profile no log either (docs/design.md, "Files, input and messages"). */
    struct stat st;
    if (stat(profile_path, &st) == 0 && !S_ISREG(st.st_mode))
        return;
    if (snprintf(path, sizeof path, "%s.progress", profile_path) >= (int)sizeof path) {
        wasp_log("the profile path is too long for a progress file: wasp attach shows the time alone");
        return;
    }
    stopping = 0;
    written = 0;
    if (pthread_create(&writer, NULL, run, NULL) != 0) {
        wasp_log("cannot start the progress writer: wasp attach shows the time alone");
        return;
    }
    running = 1;
}

void wasp_progress_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(writer, NULL);
    running = 0;
    /* The profile follows: the count is of no further use. Only our own
     * file goes; whatever else is there (another user's link, a pipe) stays. */
    struct stat st;
    if (written && lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
        unlink(path);
}
