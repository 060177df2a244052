/*
 * Checks before `wasp run` starts the program, and the explanation when no
 * profile came back (see run_checks.h).
 */
#include "cli/commands/run_checks.h"
#include "cli/attach/jvm_death.h"
#include "profile/profile.h"
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

/* Whether the boolean HotSpot flag `name` is on in args: the last of
 * -XX:+name and -XX:-name wins. */
static int flag_on(char *const *args, const char *name)
{
    int on = 0;
    for (char *const *a = args; a && *a; a++)
        if (!strncmp(*a, "-XX:", 4) && ((*a)[4] == '+' || (*a)[4] == '-') &&
            !strcmp(*a + 5, name))
            on = (*a)[4] == '+';
    return on;
}

/* When x's JVM died of a signal and left a fatal-error report: 1, with "the
 * JVM died of a fatal error (signal N, name); its report is ..." in out. */
static int fatal_clause(const wasp_run_exit *x, char *out, size_t outlen)
{
    if (x->status <= 128 || x->pid <= 0)
        return 0;
    int sig = x->status - 128;
    char report[WASP_JVM_DEATH_PATH], says[WASP_JVM_DEATH_PATH + 800];
    wasp_jvm_death d;
    /* The JVM's working directory is ours: wasp run does not change it. */
    char cwd[PATH_MAX];
    wasp_jvm_death_from(&d, x->pid, getcwd(cwd, sizeof cwd), x->argv, x->env, x->started);
    if (!wasp_jvm_death_report(&d, report, sizeof report))
        return 0;
    wasp_hs_err_explain(report, x->agent_base ? x->agent_base : "libwasp.so", says, sizeof says);
    snprintf(out, outlen, "the JVM died of a fatal error (signal %d, %s); %s", sig,
             strsignal(sig), says);
    return 1;
}

void wasp_run_explain_missing(const char *path, const wasp_run_exit *x, char *out, size_t outlen)
{
    char fatal[WASP_JVM_DEATH_PATH + 1000];
    if (fatal_clause(x, fatal, sizeof fatal)) {
        snprintf(out, outlen, "wasp run: no profile written to %.300s: %s", path, fatal);
        return;
    }
    if (x->status > 128) {
        int sig = x->status - 128;
        snprintf(out, outlen,
                 "wasp run: no profile written to %.300s: the program was killed by signal %d "
                 "(%s) before the agent could write it",
                 path, sig, strsignal(sig));
        return;
    }
    /* -XX:+ExitOnOutOfMemoryError ends the JVM with _exit(3): no exit hook runs. */
    char oom[160] = "";
    if (x->status == 3 && flag_on(x->argv, "ExitOnOutOfMemoryError"))
        snprintf(oom, sizeof oom, " (what -XX:+ExitOnOutOfMemoryError exits with on an "
                                  "OutOfMemoryError)");
    if (x->agent_loaded == 1) {
        snprintf(out, outlen,
                 "wasp run: no profile written to %.300s: the JVM exited with status %d%s before "
                 "the agent could write it (the agent had started; %s skips the agent's exit "
                 "hook)",
                 path, x->status, oom,
                 oom[0] ? "that exit" : "a JVM that ends through -XX:+ExitOnOutOfMemoryError, "
                                        "Runtime.halt or a kill");
        return;
    }
    snprintf(out, outlen,
             "wasp run: no profile written to %.300s: the program exited with status %d%s; the "
             "agent's own messages start with 'wasp:' above — none means it never started",
             path, x->status, oom);
}

void wasp_run_explain_written(const char *path, const wasp_run_exit *x, const char *snapshot,
                              char *out, size_t outlen)
{
    char how[WASP_JVM_DEATH_PATH + 1000];
    int fatal = fatal_clause(x, how, sizeof how);
    out[0] = '\0';
    if (!snapshot && !fatal)
        return;
    if (!fatal && x->status > 128)
        snprintf(how, sizeof how, "the program was killed by signal %d (%s)", x->status - 128,
                 strsignal(x->status - 128));
    else if (!fatal)
        snprintf(how, sizeof how, "the JVM exited with status %d", x->status);
    if (snapshot)
        snprintf(out, outlen,
                 "wasp run: %s; %.300s is the agent's last snapshot (%.200s), not a profile "
                 "written at a normal exit",
                 how, path, snapshot);
    else
        snprintf(out, outlen, "wasp run: %s; the agent wrote %.300s before it died", how, path);
}

int wasp_run_profile_snapshot(const char *path, char *out, size_t outlen)
{
    char err[512];
    wasp_profile *p = wasp_profile_read(path, err, sizeof err);
    const char *v = p ? wasp_profile_get_meta(p, "snapshot") : NULL;
    if (v)
        snprintf(out, outlen, "%s", v[0] ? v : "snapshot");
    wasp_profile_free(p);
    return v != NULL;
}
