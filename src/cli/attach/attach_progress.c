/* The progress of `wasp attach -d` (attach_progress.h). */
#include "cli/attach/attach_progress.h"
#include "cli/render/units.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A report is three short lines; anything longer is not one. */
enum { PROGRESS_MAX = 256 };

int wasp_attach_progress_path(const char *file, char *out, size_t outlen)
{
    int n = snprintf(out, outlen, "%s.progress", file);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

static const char magic[] = "wasp-progress 1\n";

/* The decimal after "key=" on the line at *s, moving *s past the line. */
static int field(const char **s, const char *key, uint64_t *v)
{
    size_t k = strlen(key);
    if (strncmp(*s, key, k) != 0 || (*s)[k] != '=' || (*s)[k + 1] < '0' || (*s)[k + 1] > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(*s + k + 1, &end, 10);
    if (errno || *end != '\n')
        return -1;
    *v = x;
    *s = end + 1;
    return 0;
}

int wasp_attach_progress_parse(const char *text, int pid, uint64_t *samples)
{
    const char *s = text;
    uint64_t who, n;
    if (strncmp(s, magic, sizeof magic - 1) != 0)
        return -1;
    s += sizeof magic - 1;
    if (field(&s, "pid", &who) != 0 || pid <= 0 || who != (uint64_t)pid ||
        field(&s, "samples", &n) != 0)
        return -1;
    *samples = n; /* later lines (a newer agent's) are ignored */
    return 0;
}

/* The file at path into text (NUL-terminated) if it is a regular file of
 * this user (not a link) shorter than PROGRESS_MAX. 0 or -1. */
static int slurp(const char *path, char text[PROGRESS_MAX + 1])
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    ssize_t got = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
        got = read(fd, text, PROGRESS_MAX);
    close(fd);
    if (got <= 0 || got == PROGRESS_MAX)
        return -1;
    text[got] = 0;
    return 0;
}

int wasp_attach_progress_read(const char *path, int pid, uint64_t *samples)
{
    char text[PROGRESS_MAX + 1];
    return slurp(path, text) == 0 ? wasp_attach_progress_parse(text, pid, samples) : -1;
}

void wasp_attach_progress_forget(const char *path)
{
    char text[PROGRESS_MAX + 1];
    if (slurp(path, text) == 0 && strncmp(text, magic, sizeof magic - 1) == 0)
        unlink(path);
}

int wasp_attach_progress_text(char *buf, size_t n, int pid, long long left_ms,
                              const uint64_t *samples)
{
    /* Whole seconds rounded up: "1 s left" until the very end, never "0 s". */
    long long secs = left_ms > 0 ? (left_ms + 999) / 1000 : 0;
    char count[WASP_UNIT_BUF] = "";
    if (samples)
        wasp_fmt_u64(*samples, count, sizeof count);
    return snprintf(buf, n, "wasp: profiling JVM %d: %lld s left%s%s%s (Ctrl-C stops sooner)",
                    pid, secs, samples ? ", " : "", count,
                    samples ? (*samples == 1 ? " sample so far" : " samples so far") : "");
}
