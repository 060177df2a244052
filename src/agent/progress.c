/*
 * The attach progress file (see progress.h): written as a new file in the
 * same directory, then renamed into place, so a reader never sees half of one.
 * Not async-signal-safe.
 */
#include "agent/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/log.h"
#include "agent/threads.h"

static pthread_t writer;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int running, stopping;
static char path[4096], tmp[4096 + 32];

static int write_once(void)
{
    char text[128];
    int n = snprintf(text, sizeof text, "wasp-progress 1\npid=%d\nsamples=%llu\n", (int)getpid(),
                     (unsigned long long)wasp_threads_samples());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int ok = write(fd, text, (size_t)n) == n;
    ok &= close(fd) == 0;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void *run(void *arg)
{
    (void)arg;
    int warned = 0;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        pthread_mutex_unlock(&lock);
        if (write_once() != 0 && !warned) {
            wasp_log("cannot write the progress file %s (%s): wasp attach shows the time alone",
                     path, strerror(errno));
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
    if (snprintf(path, sizeof path, "%s.progress", profile_path) >= (int)sizeof path ||
        snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof tmp) {
        wasp_log("the profile path is too long for a progress file: wasp attach shows the time alone");
        return;
    }
    stopping = 0;
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
    unlink(path); /* the profile follows: the count is of no further use */
}
