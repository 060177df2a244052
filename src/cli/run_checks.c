/*
 * Checks before `wasp run` starts the program, and the explanation when no
 * profile came back (see run_checks.h).
 */
#include "cli/run_checks.h"
#include "common/safe_open.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file execvp would run for argv0, or argv0 itself when not found. */
static void resolve(const char *argv0, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", argv0);
    if (strchr(argv0, '/'))
        return;
    const char *path = getenv("PATH");
    if (!path)
        return;
    for (const char *p = path; *p;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char cand[PATH_MAX];
        if (n && snprintf(cand, sizeof cand, "%.*s/%s", (int)n, p, argv0) < (int)sizeof cand &&
            access(cand, X_OK) == 0) {
            snprintf(out, outlen, "%s", cand);
            return;
        }
        p = end ? end + 1 : p + n;
    }
}

static int named_java(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strcmp(base, "java") == 0;
}

int wasp_run_check_launcher(const char *argv0, char *err, size_t errlen)
{
    char found[PATH_MAX], real[PATH_MAX];
    resolve(argv0, found, sizeof found);
    if (access(found, X_OK) != 0)
        return 0; /* nothing to run: starting it fails with the reason */
    /* /usr/bin/java is a chain of links to .../bin/java: either name counts. */
    if (named_java(argv0) || named_java(found) ||
        (realpath(found, real) && named_java(real)))
        return 0;
    snprintf(err, errlen,
             "wasp run: '%.200s' is not a java launcher; wasp run starts java itself with the "
             "agent (wasp run -- java -cp app.jar Main). For a script that starts java, use "
             "wasp attach on the running JVM",
             argv0);
    return -1;
}

int wasp_run_check_output(const char *cmd, const char *path, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    /* The agent would refuse it, but only after the program ran. */
    char why[PATH_MAX + 200];
    if (wasp_check_link_owner(path, why, sizeof why) != 0) {
        snprintf(err, errlen, "wasp %s: -o %.300s: %s", cmd, path, why);
        return -1;
    }
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "wasp %s: the output %.300s is a directory; name a file in it",
                 cmd, path);
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        snprintf(err, errlen,
                 "wasp %s: the output %.300s is not a regular file, device or pipe", cmd, path);
        return -1;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "wasp %s: the output directory %.300s does not exist", cmd, dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen,
                 "wasp %s: cannot write the profile into %.300s: %s (choose another with -o)",
                 cmd, dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* pattern with HotSpot's %p (the pid) and %% expanded. */
static void expand_pid(const char *pattern, int pid, char *out, size_t len)
{
    size_t n = 0;
    for (const char *c = pattern; *c && n + 1 < len; c++) {
        if (c[0] == '%' && (c[1] == 'p' || c[1] == '%')) {
            int w = c[1] == 'p' ? snprintf(out + n, len - n, "%d", pid)
                                : snprintf(out + n, len - n, "%%");
            n += w > 0 && (size_t)w < len - n ? (size_t)w : 0;
            c++;
        } else {
            out[n++] = *c;
        }
    }
    out[n] = 0;
}

/* The fatal-error report the JVM pid left, into out: 1, or 0 when none. */
static int error_report(int pid, char *const *argv, char *out, size_t len)
{
    static const char option[] = "-XX:ErrorFile=";
    char cand[2][PATH_MAX];
    int n = 0;
    for (char *const *a = argv; a && *a; a++)
        if (strncmp(*a, option, sizeof option - 1) == 0)
            expand_pid(*a + sizeof option - 1, pid, cand[0], sizeof cand[0]), n = 1;
    if (n == 0) {
        snprintf(cand[n++], sizeof cand[0], "hs_err_pid%d.log", pid);
        snprintf(cand[n++], sizeof cand[0], "/tmp/hs_err_pid%d.log", pid);
    }
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(cand[i], &st) == 0 && S_ISREG(st.st_mode)) {
            snprintf(out, len, "%.*s", (int)(sizeof cand[i] - 1), cand[i]);
            return 1;
        }
    }
    return 0;
}

void wasp_run_explain_missing(const char *path, int status, int pid, char *const *argv,
                              char *out, size_t outlen)
{
    if (status > 128) {
        int sig = status - 128;
        char report[PATH_MAX];
        if (pid > 0 && error_report(pid, argv, report, sizeof report)) {
            snprintf(out, outlen,
                     "wasp run: no profile written to %.300s: the JVM died of a fatal error "
                     "(signal %d, %s); its report is %.300s (its 'Problematic frame' says "
                     "where: in libwasp.so, please report it to wasp with that file)",
                     path, sig, strsignal(sig), report);
            return;
        }
        snprintf(out, outlen,
                 "wasp run: no profile written to %.300s: the program was killed by signal %d "
                 "(%s) before the agent could write it",
                 path, sig, strsignal(sig));
        return;
    }
    snprintf(out, outlen,
             "wasp run: no profile written to %.300s (the program exited with status %d); the "
             "agent's own messages start with 'wasp:' above — none means it never started",
             path, status);
}
