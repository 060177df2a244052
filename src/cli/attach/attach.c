/*
 * `wasp attach` and `wasp detach` (see attach.h). Options are run's
 * (cli/commands/run.c parses and validates them); the protocol is in
 * cli/hotspot_attach.c.
 */
#include "cli/attach/attach.h"
#include "cli/attach/attach_progress.h"
#include "cli/commands/run_checks.h"

#include "cli/commands/cli_util.h"
#include "cli/attach/hotspot_attach.h"
#include "cli/attach/jvm_death.h"
#include "cli/commands/run.h"
#include "common/attach_refusal.h"
#include "common/clock.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STATE_DIR "/tmp"

/* ------------------------------------------------------------------ */
/* The record attach leaves for detach                                 */

void wasp_attach_state_path(int pid, char *out, size_t outlen)
{
    snprintf(out, outlen, STATE_DIR "/wasp-attach-%u-%d", (unsigned)geteuid(), pid);
}

int wasp_attach_state_write(int pid, const wasp_attach_state *s, char *err, size_t errlen)
{
    char path[128], tmp[160];
    wasp_attach_state_path(pid, path, sizeof path);
    if (strchr(s->file, '\n') || strchr(s->agent, '\n')) {
        snprintf(err, errlen, "cannot record a path holding a newline in %s", path);
        return -1;
    }
    /* A fresh file renamed into place: never follows a link planted in /tmp. */
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    fprintf(f, "file=%s\nagent=%s\nstart=%llu\n", s->file, s->agent, s->start_time);
    if (s->death.n)
        fprintf(f, "since=%lld\n", (long long)s->death.since);
    if (s->has_profile_before) {
        const wasp_file_id *b = &s->profile_before;
        fprintf(f, "profile_before=%d %llu %llu %lld %ld\n", b->exists,
                (unsigned long long)b->st.st_dev, (unsigned long long)b->st.st_ino,
                (long long)b->st.st_mtim.tv_sec, (long)b->st.st_mtim.tv_nsec);
    }
    for (int i = 0; i < s->death.n; i++)
        if (!strchr(s->death.file[i], '\n'))
            fprintf(f, "hs_err=%s\n", s->death.file[i]);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int wasp_attach_state_read(int pid, wasp_attach_state *s)
{
    char path[128], buf[(3 + WASP_JVM_DEATH_CANDIDATES) * WASP_PATH_MAX + 64];
    memset(s, 0, sizeof *s);
    wasp_attach_state_path(pid, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        close(fd);
        return -1;
    }
    size_t len = 0;
    ssize_t r;
    while (len + 1 < sizeof buf && (r = read(fd, buf + len, sizeof buf - 1 - len)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            close(fd);
            return -1;
        }
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    for (char *line = buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!strncmp(line, "file=", 5))
            snprintf(s->file, sizeof s->file, "%s", line + 5);
        else if (!strncmp(line, "agent=", 6))
            snprintf(s->agent, sizeof s->agent, "%s", line + 6);
        else if (!strncmp(line, "start=", 6))
            s->start_time = strtoull(line + 6, NULL, 10);
        else if (!strncmp(line, "since=", 6))
            s->death.since = (time_t)strtoll(line + 6, NULL, 10);
        else if (!strncmp(line, "profile_before=", 15)) {
            unsigned long long dev, ino;
            long long sec;
            long nsec;
            wasp_file_id *b = &s->profile_before;
            s->has_profile_before = sscanf(line + 15, "%d %llu %llu %lld %ld", &b->exists, &dev,
                                           &ino, &sec, &nsec) == 5;
            b->st.st_dev = (dev_t)dev;
            b->st.st_ino = (ino_t)ino;
            b->st.st_mtim.tv_sec = (time_t)sec;
            b->st.st_mtim.tv_nsec = nsec;
        }
        else if (!strncmp(line, "hs_err=", 7) && s->death.n < WASP_JVM_DEATH_CANDIDATES)
            snprintf(s->death.file[s->death.n++], sizeof s->death.file[0], "%s", line + 7);
    }
    return s->file[0] ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Usage                                                               */

void wasp_attach_usage(FILE *out)
{
    fputs("Usage: wasp attach [options] PID\n"
          "\n"
          "Loads the wasp agent into the running HotSpot JVM with process id PID,\n"
          "through the JVM's attach mechanism (the one jcmd uses), and starts\n"
          "profiling. With -d, wasp waits, stops the agent, and prints the report of\n"
          "the profile like 'wasp run'; without it, wasp returns at once and the\n"
          "agent profiles until 'wasp detach PID'.\n"
          "\n"
          "The JVM must run as your user (or you are root), and without\n"
          "-XX:+DisableAttachMechanism or -Xrs. JDK 21 and later print a warning\n"
          "about a dynamically loaded agent on their standard error\n"
          "(-XX:+EnableDynamicAgentLoading silences it).\n"
          "\n"
          "Options:\n"
          "  -d, --duration SECONDS   profile for SECONDS (or 30s, 5m, 1h), then stop\n"
          "                           and print the report (Ctrl-C or SIGTERM stops\n"
          "                           sooner)\n",
          out);
    wasp_run_help_agent_flags(out, WASP_CLI_ATTACH);
    wasp_run_help_report_flags(out);
    fputs("  -q, --quiet              print no report (the profile is still written)\n"
          "      --agent PATH         the agent library (default: ../lib/libwasp.so\n"
          "                           next to the wasp executable)\n"
          "  -h, --help               this help\n"
          "\n"
          "The report options and -q matter with -d only. Options also take the form\n"
          "--name=value. The JVM writes the profile when profiling stops, so its user\n"
          "must be able to write the -o file. The agent logs to FILE.log (the -o file\n"
          "plus .log); wasp prints what it logs.\n"
          "\n"
          "wasp attach records the profile path and the agent library in\n"
          "/tmp/wasp-attach-<uid>-<PID>, for wasp detach.\n"
          "\n"
          "Exit status: 0 when the agent started (with -d: and the report was\n"
          "printed); 1 when the JVM could not be attached to, the agent refused, or\n"
          "no profile was written; 2 on a bad option or a missing agent library.\n"
          "\n"
          "Examples:\n"
          "  wasp attach -d 30 12345\n"
          "  wasp attach -e deadstore -o /tmp/app.wprof 12345; ...; wasp detach 12345\n",
          out);
}

void wasp_detach_usage(FILE *out)
{
    fputs("Usage: wasp detach [options] PID\n"
          "\n"
          "Stops the wasp agent that 'wasp attach PID' started in a running JVM: the\n"
          "agent writes its profile to the file given at attach and stops; the JVM\n"
          "keeps running. Then prints the report of that profile.\n"
          "\n"
          "Options:\n"
          "  -o, --output FILE        the profile file given at attach (default: the\n"
          "                           one wasp attach recorded in\n"
          "                           /tmp/wasp-attach-<uid>-PID)\n",
          out);
    wasp_run_help_report_flags(out);
    fputs("  -q, --quiet              print no report (the profile is still written)\n"
          "      --agent PATH         the agent library (default: the one attach\n"
          "                           loaded, else ../lib/libwasp.so next to the wasp\n"
          "                           executable)\n"
          "  -h, --help               this help\n"
          "\n"
          "Exit status: 0 when the agent stopped and the report was printed; 1 when\n"
          "the JVM could not be attached to, the agent refused, or no profile was\n"
          "written; 2 on a bad option, or when the profile file is unknown.\n"
          "\n"
          "Examples:\n"
          "  wasp detach 12345\n"
          "  wasp detach --format json -o /tmp/app.wprof 12345 > app.json\n",
          out);
}

void wasp_dump_usage(FILE *out)
{
    fputs("Usage: wasp dump [options] PID\n"
          "\n"
          "Writes the profile so far of a JVM that wasp profiles (wasp attach, wasp run,\n"
          "or -agentpath), while profiling goes on: a snapshot, as jcmd JFR.dump gives.\n"
          "Then prints its report. The profile written when the session ends still\n"
          "holds everything.\n"
          "\n"
          "Options:\n"
          "  -o, --output FILE        where to write it (default: the profile file that\n"
          "                           wasp attach recorded for PID, else\n"
          "                           wasp-PID.wprof in the current directory)\n",
          out);
    wasp_run_help_report_flags(out);
    fputs("  -q, --quiet              print no report (the profile is still written)\n"
          "      --agent PATH         the agent library (default: the one attach\n"
          "                           loaded, else ../lib/libwasp.so next to the wasp\n"
          "                           executable; it must be the library the JVM loaded)\n"
          "  -h, --help               this help\n"
          "\n"
          "Exit status: 0 when the profile was written and its report printed; 1 when\n"
          "the JVM could not be attached to, is not being profiled, or wrote no\n"
          "profile; 2 on a bad option.\n"
          "\n"
          "Examples:\n"
          "  wasp dump 12345\n"
          "  wasp dump -q -o /tmp/app-now.wprof 12345\n",
          out);
}

/* ------------------------------------------------------------------ */
/* Shared steps                                                        */

static int parse(wasp_cli_cmd which, int argc, char **argv, wasp_run_config *cfg, int *exit_code)
{
    char err[WASP_PATH_MAX + 512];
    int rc = wasp_cli_parse_args(which, argc, argv, cfg, err, sizeof err);
    if (rc == WASP_RUN_HELP) {
        if (which == WASP_CLI_ATTACH)
            wasp_attach_usage(stdout);
        else if (which == WASP_CLI_DUMP)
            wasp_dump_usage(stdout);
        else
            wasp_detach_usage(stdout);
        *exit_code = 0;
        return -1;
    }
    if (rc != WASP_RUN_OK) {
        fprintf(stderr, "%s\nTry 'wasp %s --help'.\n", err, wasp_cli_cmd_name(which));
        *exit_code = 2;
        return -1;
    }
    return 0;
}

/* cfg->agent.file made absolute against wasp's working directory. */
static int absolute_output(wasp_run_config *cfg)
{
    const char *cmd = wasp_cli_cmd_name(cfg->cmd);
    char cwd[PATH_MAX], abs_out[WASP_PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) {
        fprintf(stderr, "wasp %s: cannot get the current directory: %s\n", cmd, strerror(errno));
        return -1;
    }
    if (wasp_cli_abs_path(cwd, cfg->agent.file, abs_out, sizeof abs_out) < 0) {
        fprintf(stderr, "wasp %s: output path too long: %s\n", cmd, cfg->agent.file);
        return -1;
    }
    memcpy(cfg->agent.file, abs_out, sizeof abs_out);
    return 0;
}

/* Inspect the target; prints the refusal. */
static int target(const wasp_run_config *cfg, wasp_hs_target *t)
{
    char err[512];
    if (wasp_hs_inspect(cfg->pid, t, err, sizeof err) != WASP_HS_OK) {
        fprintf(stderr, "wasp %s: %s\n", wasp_cli_cmd_name(cfg->cmd), err);
        return -1;
    }
    return 0;
}

static int check_arg_size(const char *cmd, const char *what, const char *s, const char *fix)
{
    if (strlen(s) <= WASP_HS_ARG_MAX)
        return 0;
    fprintf(stderr,
            "wasp %s: the %s is %zu bytes, more than the %d the attach protocol carries; %s\n",
            cmd, what, strlen(s), WASP_HS_ARG_MAX, fix);
    return -1;
}

bool wasp_attach_output_per_process(const char *file)
{
    static const char *const prefixes[] = {"/dev/stdin",  "/dev/stdout",       "/dev/stderr",
                                           "/dev/fd/",    "/proc/self/",       "/proc/thread-self/",
                                           "/dev/tty"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(file, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

bool wasp_attach_files_beside(const char *file)
{
    struct stat st;
    return stat(file, &st) != 0 || S_ISREG(st.st_mode);
}

int wasp_attach_log_path(const char *file, char *out, size_t outlen)
{
    int n = snprintf(out, outlen, "%s.log", file);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

/* The agent's log for the profile `file` into log, or "" when it has none
 * (not a regular-file path: its messages go to the JVM's standard error). */
static void log_for(const char *file, char *log, size_t loglen)
{
    if (!wasp_attach_files_beside(file) || wasp_attach_log_path(file, log, loglen) < 0)
        log[0] = '\0';
}

/* For an output that is a device or a pipe, what becomes of the log and the
 * progress count. */
static void say_no_files_beside(const wasp_run_config *cfg, int pid)
{
    fprintf(stderr,
            "wasp %s: %s is not a regular file, so no %s.log or %s.progress is written beside "
            "it: the agent's messages go to JVM %d's standard error%s\n",
            wasp_cli_cmd_name(cfg->cmd), cfg->agent.file, cfg->agent.file, cfg->agent.file, pid,
            cfg->cmd == WASP_CLI_ATTACH && cfg->duration_s ? " and the progress line shows the "
                                                             "time alone"
                                                           : "");
}

int wasp_attach_agent_options(const wasp_run_config *cfg, char *buf, size_t buflen, char *err,
                              size_t errlen)
{
    int olen = wasp_run_agent_options(cfg, buf, buflen, err, errlen);
    if (olen < 0)
        return -1;
    char log[WASP_PATH_MAX + 8];
    if (wasp_attach_log_path(cfg->agent.file, log, sizeof log) < 0) {
        snprintf(err, errlen, "wasp attach: the profile path is too long");
        return -1;
    }
    int w = wasp_attach_files_beside(cfg->agent.file)
                ? snprintf(buf + olen, buflen - (size_t)olen, "%slog=%s,action=start",
                           olen ? "," : "", log)
                : snprintf(buf + olen, buflen - (size_t)olen, "%saction=start", olen ? "," : "");
    if (w < 0 || (size_t)w >= buflen - (size_t)olen) {
        snprintf(err, errlen, "wasp attach: cannot build the agent option string");
        return -1;
    }
    if (strlen(buf) > WASP_HS_ARG_MAX) {
        snprintf(err, errlen,
                 "wasp attach: the agent option string is %zu bytes, more than the %d the "
                 "attach protocol carries; choose a shorter -o path",
                 strlen(buf), WASP_HS_ARG_MAX);
        return -1;
    }
    return 0;
}

/* The agent's log: where it ends now, and what it says from there on. */
static off_t log_size(const char *log)
{
    struct stat st;
    return log[0] && stat(log, &st) == 0 ? st.st_size : 0;
}

static void print_log_since(const char *log, off_t from)
{
    FILE *f = log[0] ? fopen(log, "r") : NULL;
    if (!f)
        return;
    char line[1024];
    if (fseeko(f, from, SEEK_SET) == 0)
        while (fgets(line, sizeof line, f))
            fputs(line, stderr);
    fclose(f);
}

/* The refusal the agent answered with (common/attach_refusal.h), 0 when
 * the load failed otherwise. */
static int refusal_of(const wasp_hs_load_result *res)
{
    if (!res->have_rc)
        return 0;
    switch (res->agent_rc) {
    case WASP_REFUSED_NOT_PROFILED:
    case WASP_REFUSED_ALREADY_PROFILED:
    case WASP_REFUSED_STARTED_WITH_JVM:
        return res->agent_rc;
    }
    return 0;
}

/* A refused request is said in the client's words (say_refused): the log
 * the agent opened for it alone, with that one line, goes. */
static void forget_refusal_log(const char *log, bool existed)
{
    if (log[0] && !existed)
        unlink(log);
}

/* Why the agent in JVM t refused `cmd`, in words that say what to do.
 * A stale record of wasp attach goes with a session that no longer runs. */
static void say_refused(const char *cmd, const wasp_hs_target *t, int refusal)
{
    char state_path[128];
    wasp_attach_state st;
    int pid = (int)t->pid;
    wasp_attach_state_path(pid, state_path, sizeof state_path);
    bool recorded = wasp_attach_state_read(pid, &st) == 0 &&
                    !(st.start_time && t->start_time && st.start_time != t->start_time);
    switch (refusal) {
    case WASP_REFUSED_ALREADY_PROFILED:
        if (recorded)
            fprintf(stderr,
                    "wasp attach: JVM %d is already being profiled by wasp attach, into %s; "
                    "one session at a time: stop it with wasp detach %d (wasp dump %d writes "
                    "its profile so far)\n",
                    pid, st.file, pid, pid);
        else
            fprintf(stderr,
                    "wasp attach: JVM %d is already being profiled by wasp (another wasp "
                    "attach, or the agent given at its start); one session at a time: wasp "
                    "dump %d writes its profile so far\n",
                    pid, pid);
        return;
    case WASP_REFUSED_STARTED_WITH_JVM:
        fprintf(stderr,
                "wasp detach: JVM %d was started with the wasp agent (wasp run or "
                "-agentpath), which profiles it until it exits; wasp dump %d writes the "
                "profile so far\n",
                pid, pid);
        return;
    default:
        fprintf(stderr, "wasp %s: JVM %d is not being profiled by wasp: %s (start with: wasp "
                        "attach %d)\n",
                cmd, pid, strcmp(cmd, "dump") ? "nothing to stop" : "there is no profile to dump",
                pid);
        if (recorded)
            unlink(state_path);
    }
}

/* The agent library's file name, which a fatal-error report's frames name. */
static const char *agent_base(const char *agent_abs)
{
    const char *b = strrchr(agent_abs, '/');
    return b ? b + 1 : agent_abs;
}

/* JVM pid died (or ended) `when` ("while wasp was profiling it"): say so,
 * with its fatal-error report and whom that blames (cli/attach/jvm_death.h), and
 * render the profile the agent wrote before the end, if it did (wrote: at a
 * normal exit, or as its last snapshot). Returns the exit status. */
static int report_death(const wasp_run_config *cfg, int pid, const wasp_jvm_death *d,
                        const char *when, const char *agent_abs, const char *log, off_t logged,
                        int wrote)
{
    const char *cmd = wasp_cli_cmd_name(cfg->cmd);
    char report[WASP_JVM_DEATH_PATH], says[WASP_JVM_DEATH_PATH + 800];
    print_log_since(log, logged);
    char state[128];
    wasp_attach_state_path(pid, state, sizeof state);
    unlink(state); /* of no further use: the process is gone */
    int fatal = wasp_jvm_death_report(d, report, sizeof report);
    char snapshot[512];
    int is_snapshot = wrote && wasp_run_profile_snapshot(cfg->agent.file, snapshot,
                                                          sizeof snapshot);
    if (fatal) {
        wasp_hs_err_explain(report, agent_base(agent_abs), says, sizeof says);
        fprintf(stderr, "wasp %s: JVM %d died %s; %s\n", cmd, pid, when, says);
    } else {
        char where[3 * WASP_JVM_DEATH_PATH + 16];
        wasp_jvm_death_candidates(d, where, sizeof where);
        fprintf(stderr,
                "wasp %s: JVM %d %s %s; it left no fatal-error report (none at %s): it %s\n",
                cmd, pid, wrote && !is_snapshot ? "ended" : "died", when, where,
                wrote && !is_snapshot ? "exited"
                                      : "was killed (SIGKILL, the OOM killer) or exited before "
                                        "the agent could write its profile");
    }
    if (!wrote) {
        fprintf(stderr, "wasp %s: no profile was written to %s\n", cmd, cfg->agent.file);
        return 1;
    }
    if (is_snapshot)
        fprintf(stderr, "wasp %s: %s is the agent's last snapshot (%s), not a profile written "
                        "at a normal exit\n", cmd, cfg->agent.file, snapshot);
    else
        fprintf(stderr, "wasp %s: the agent wrote the profile as the JVM ended: %s\n", cmd,
                cfg->agent.file);
    if (!cfg->quiet && wasp_run_show_report(cfg) < 0)
        return 1;
    return fatal ? 1 : 0;
}

/* Send action=stop (detach) or action=dump with the profile's path (dump),
 * wait for the profile, print the report. cfg->agent.file is the absolute
 * profile path. session: the file as it was when this client's session
 * began (attach -d), else NULL: a JVM that ends as the stop is sent writes
 * the session's profile at its exit, maybe before this stop looked at the
 * file. Returns the exit status. */
static int stop_and_report(const wasp_run_config *cfg, const wasp_hs_target *t,
                           const char *agent_abs, const wasp_jvm_death *death,
                           const wasp_file_id *session)
{
    const char *cmd = wasp_cli_cmd_name(cfg->cmd);
    int dump = cfg->cmd == WASP_CLI_DUMP;
    char err[2048], log[WASP_PATH_MAX + 8], opts[2 * WASP_PATH_MAX + 64],
        progress[WASP_PATH_MAX + 16];
    wasp_file_id before = wasp_file_id_of(cfg->agent.file);
    /* However this stop ends, the progress report is of no further use. */
    if (!dump && wasp_attach_files_beside(cfg->agent.file) &&
        wasp_attach_progress_path(cfg->agent.file, progress, sizeof progress) == 0)
        wasp_attach_progress_forget(progress);
    log_for(cfg->agent.file, log, sizeof log);
    char action[WASP_PATH_MAX + 32];
    if (dump)
        snprintf(action, sizeof action, "action=dump,file=%s", cfg->agent.file);
    else
        snprintf(action, sizeof action, "action=stop");
    if (!log[0] || snprintf(opts, sizeof opts, "%s,log=%s", action, log) >= (int)sizeof opts ||
        strlen(opts) > WASP_HS_ARG_MAX)
        snprintf(opts, sizeof opts, "%s", action); /* the agent keeps its log */
    if (!wasp_attach_files_beside(cfg->agent.file) && cfg->cmd == WASP_CLI_DETACH)
        say_no_files_beside(cfg, (int)t->pid);
    char says_why[WASP_PATH_MAX + 64];
    if (log[0])
        snprintf(says_why, sizeof says_why, "its log, %s, says why", log);
    else
        snprintf(says_why, sizeof says_why, "the JVM's standard error says why");
    off_t logged = log_size(log);
    bool log_existed = log[0] && access(log, F_OK) == 0;
    wasp_hs_load_result res;
    int stopped = wasp_hs_load_agent(t, agent_abs, opts, WASP_HS_SOCKET_TIMEOUT_MS, &res, err,
                                     sizeof err);
    bool by_this = wasp_file_is_new(&before, cfg->agent.file);
    /* written at the JVM's exit, just before this stop looked */
    bool at_exit = !by_this && session && wasp_file_is_new(session, cfg->agent.file);
    if (stopped == WASP_HS_DIED)
        return report_death(cfg, (int)t->pid, death,
                            at_exit ? "as wasp stopped profiling it"
                            : dump  ? "while the agent wrote the profile so far"
                                    : "while the agent stopped and wrote its profile",
                            agent_abs, log, logged, by_this || at_exit);
    /* The session ended with the JVM's exit just before this stop. */
    if (stopped < 0 && session && refusal_of(&res) == WASP_REFUSED_NOT_PROFILED &&
        wasp_hs_gone(t, -1, WASP_HS_DEATH_WAIT_MS))
        return report_death(cfg, (int)t->pid, death, "as wasp stopped profiling it", agent_abs,
                            log, log_size(log), by_this || at_exit);
    if (stopped < 0 && refusal_of(&res)) {
        forget_refusal_log(log, log_existed);
        say_refused(cmd, t, refusal_of(&res));
        return 1;
    }
    if (stopped < 0) {
        print_log_since(log, logged);
        fprintf(stderr, "wasp %s: cannot %s the agent in JVM %d: %s\n", cmd,
                dump ? "get a profile from" : "stop", (int)t->pid, err);
        return 1;
    }
    char state[128];
    wasp_attach_state_path(t->pid, state, sizeof state);
    if (!dump)
        unlink(state);
    if (!wasp_attach_files_beside(cfg->agent.file)) {
        /* A device or a pipe takes the profile as the agent writes it, as
         * with wasp run: nothing to wait for, read back or render. */
        fprintf(stderr, "wasp: stopped profiling JVM %d; the profile goes into %s\n",
                (int)t->pid, cfg->agent.file);
        return 0;
    }

    /* The agent writes the file (atomically) before or soon after it answers. */
    long long deadline = wasp_mono_ms() + WASP_ATTACH_PROFILE_TIMEOUT_MS;
    while (!wasp_file_is_new(&before, cfg->agent.file)) {
        if (wasp_mono_ms() >= deadline) {
            print_log_since(log, logged);
            fprintf(stderr,
                    "wasp %s: the agent stopped but wrote no profile to %s within %d s (%s)\n",
                    cmd, cfg->agent.file, WASP_ATTACH_PROFILE_TIMEOUT_MS / 1000, says_why);
            return 1;
        }
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
    print_log_since(log, logged);
    if (dump)
        fprintf(stderr, "wasp: the profile so far of JVM %d: %s (profiling goes on)\n",
                (int)t->pid, cfg->agent.file);
    else
        fprintf(stderr, "wasp: stopped profiling JVM %d; profile: %s\n", (int)t->pid,
                cfg->agent.file);
    if (!cfg->quiet && wasp_run_show_report(cfg) < 0)
        return 1;
    return 0;
}

/* The progress line, redrawn in place ("\r", then erase to the end of
 * line), with the samples the agent reported so far when it did. */
static void show_progress(int pid, const char *progress_file, long long left_ms)
{
    char line[160];
    uint64_t samples;
    bool known = progress_file && wasp_attach_progress_read(progress_file, pid, &samples) == 0;
    wasp_attach_progress_text(line, sizeof line, pid, left_ms, known ? &samples : NULL);
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
}

/* Wait `seconds`, or until SIGINT/SIGTERM/SIGHUP, or until the JVM t is
 * gone (looked at every quarter second). Returns the signal that ended the
 * wait, 0, or -1 when the JVM went. With progress, the time left (and the
 * samples so far, from progress_file when not NULL) is shown on stderr,
 * redrawn at each whole second, and erased at the end. */
static int wait_for(unsigned seconds, const wasp_hs_target *t, bool progress,
                    const char *progress_file)
{
    int pid = (int)t->pid, pidfd = wasp_hs_pidfd(t->pid);
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, &old);
    long long deadline = wasp_mono_ms() + (long long)seconds * 1000;
    int sig = 0;
    for (;;) {
        long long left = deadline - wasp_mono_ms();
        if (left <= 0)
            break;
        if (wasp_hs_gone(t, pidfd, 0)) {
            sig = -1;
            break;
        }
        long long nap = left;
        if (progress) {
            show_progress(pid, progress_file, left);
            nap = left % 1000 ? left % 1000 : 1000; /* wake as the shown second changes */
        }
        if (nap > 250)
            nap = 250;
        struct timespec ts = {(time_t)(nap / 1000), (long)(nap % 1000) * 1000000L};
        int s = sigtimedwait(&set, NULL, &ts);
        if (s > 0) {
            sig = s;
            break;
        }
        if (errno != EINTR && errno != EAGAIN) /* EAGAIN: this nap is over */
            break;
    }
    if (progress)
        fputs("\r\033[K", stderr);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pidfd >= 0)
        close(pidfd);
    return sig;
}

/* ------------------------------------------------------------------ */
/* The commands                                                        */

int wasp_cmd_attach(int argc, char **argv)
{
    wasp_run_config cfg;
    int code;
    if (parse(WASP_CLI_ATTACH, argc, argv, &cfg, &code) < 0)
        return code;

    char agent_abs[PATH_MAX];
    if (wasp_run_locate_agent(&cfg, agent_abs, sizeof agent_abs) < 0)
        return 2;
    if (absolute_output(&cfg) < 0)
        return 2;

    char err[WASP_PATH_MAX + 512];
    if (wasp_attach_output_per_process(cfg.agent.file)) {
        fprintf(stderr,
                "wasp attach: -o %s: the agent writes the profile inside the JVM, where that "
                "path is the JVM's own (its output may be its log file); write to a file and "
                "read it with wasp report\n",
                cfg.agent.file);
        return 2;
    }
    if (wasp_run_check_output("attach", cfg.agent.file, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err); /* before the JVM is touched */
        return 2;
    }
    char opts[3 * WASP_PATH_MAX];
    if (wasp_attach_agent_options(&cfg, opts, sizeof opts, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (check_arg_size("attach", "agent library path", agent_abs,
                       "move libwasp.so or pass --agent with a shorter path") < 0)
        return 2;

    wasp_hs_target t;
    if (target(&cfg, &t) < 0)
        return 1;
    char log[WASP_PATH_MAX + 8];
    log_for(cfg.agent.file, log, sizeof log); /* fits: the options held it */
    if (!wasp_attach_files_beside(cfg.agent.file))
        say_no_files_beside(&cfg, cfg.pid);
    off_t logged = log_size(log);
    /* A progress report left by an earlier run must not be shown as this one's. */
    char progress[WASP_PATH_MAX + 16];
    bool has_progress = log[0] &&
                        wasp_attach_progress_path(cfg.agent.file, progress, sizeof progress) == 0;
    if (has_progress)
        wasp_attach_progress_forget(progress);
    /* Where its fatal-error report would go, read while it lives. */
    wasp_jvm_death death;
    wasp_jvm_death_prepare(&death, t.pid, t.ns_pid, time(NULL));
    wasp_file_id before = wasp_file_id_of(cfg.agent.file);
    bool log_existed = log[0] && access(log, F_OK) == 0;
    wasp_hs_load_result res;
    int loaded = wasp_hs_load_agent(&t, agent_abs, opts, WASP_HS_SOCKET_TIMEOUT_MS, &res, err,
                                    sizeof err);
    if (loaded < 0 && loaded != WASP_HS_DIED && refusal_of(&res)) {
        forget_refusal_log(log, log_existed);
        say_refused("attach", &t, refusal_of(&res));
        return 1;
    }
    print_log_since(log, logged);
    logged = log_size(log);
    if (loaded == WASP_HS_DIED)
        return report_death(&cfg, cfg.pid, &death, "while wasp attached the agent", agent_abs,
                            log, logged, log[0] && wasp_file_is_new(&before, cfg.agent.file));
    if (loaded < 0) {
        fprintf(stderr, "wasp attach: cannot attach to JVM %d: %s\n", cfg.pid, err);
        return 1;
    }

    wasp_attach_state st;
    memset(&st, 0, sizeof st);
    snprintf(st.file, sizeof st.file, "%s", cfg.agent.file);
    snprintf(st.agent, sizeof st.agent, "%s", agent_abs);
    st.start_time = t.start_time;
    st.death = death;
    st.has_profile_before = true;
    st.profile_before = before;
    int recorded = wasp_attach_state_write(cfg.pid, &st, err, sizeof err) == 0;
    if (!recorded)
        fprintf(stderr, "wasp attach: warning: %s\n", err);

    if (!cfg.duration_s) {
        if (recorded)
            printf("wasp: profiling JVM %d; stop with: wasp detach %d\n", cfg.pid, cfg.pid);
        else
            printf("wasp: profiling JVM %d; stop with: wasp detach -o %s %d\n", cfg.pid,
                   cfg.agent.file, cfg.pid);
        return fflush(stdout) == 0 ? 0 : 1;
    }

    fprintf(stderr, "wasp: profiling JVM %d for %u s (Ctrl-C stops sooner)\n", cfg.pid,
            cfg.duration_s);
    int sig = wait_for(cfg.duration_s, &t, isatty(STDERR_FILENO),
                       has_progress ? progress : NULL);
    if (sig < 0) {
        if (has_progress)
            wasp_attach_progress_forget(progress);
        return report_death(&cfg, cfg.pid, &death, "while wasp was profiling it", agent_abs, log,
                            logged, log[0] && wasp_file_is_new(&before, cfg.agent.file));
    }
    if (sig)
        fprintf(stderr, "wasp: %s; stopping the profile\n", strsignal(sig));
    return stop_and_report(&cfg, &t, agent_abs, &death, &before);
}

/* detach and dump, once their profile path is settled: the agent library
 * (the one attach recorded in st, when given: the same library is the same
 * agent instance), then stop_and_report. */
static int load_and_report(wasp_run_config *cfg, const wasp_hs_target *t,
                           const wasp_attach_state *st)
{
    const char *cmd = wasp_cli_cmd_name(cfg->cmd);
    if (!cfg->agent_path && st && st->agent[0])
        cfg->agent_path = st->agent;
    char agent_abs[PATH_MAX];
    if (wasp_run_locate_agent(cfg, agent_abs, sizeof agent_abs) < 0)
        return 2;
    if (check_arg_size(cmd, "agent library path", agent_abs, "pass --agent with a shorter path") <
        0)
        return 2;
    wasp_jvm_death death;
    wasp_jvm_death_prepare(&death, t->pid, t->ns_pid, time(NULL));
    /* detach of the session attach recorded: a JVM that exits meanwhile
     * writes that session's profile */
    bool session = cfg->cmd == WASP_CLI_DETACH && st && st->has_profile_before &&
                   !strcmp(st->file, cfg->agent.file);
    return stop_and_report(cfg, t, agent_abs, &death, session ? &st->profile_before : NULL);
}

/* Whether the JVM maps a wasp agent: libwasp.so, or the library --agent
 * names; true when its maps cannot be read (no evidence either way). An
 * agent stays loaded after its session ends, so true is "may profile". */
static bool agent_mapped(const wasp_run_config *cfg)
{
    const char *given = cfg->agent_path ? strrchr(cfg->agent_path, '/') : NULL;
    given = given ? given + 1 : cfg->agent_path;
    int lib = wasp_hs_maps_library(cfg->pid, "libwasp.so");
    int other = given && *given && strcmp(given, "libwasp.so") != 0 && lib == 0
                    ? wasp_hs_maps_library(cfg->pid, given)
                    : 0;
    return lib != 0 || other != 0;
}

int wasp_cmd_detach(int argc, char **argv)
{
    wasp_run_config cfg;
    int code;
    if (parse(WASP_CLI_DETACH, argc, argv, &cfg, &code) < 0)
        return code;

    char state_path[128];
    wasp_attach_state_path(cfg.pid, state_path, sizeof state_path);
    wasp_attach_state st;
    int have_state = wasp_attach_state_read(cfg.pid, &st) == 0;

    wasp_hs_target t;
    char err[512];
    int refusal = wasp_hs_inspect(cfg.pid, &t, err, sizeof err);
    if (refusal == WASP_HS_NO_PROCESS && have_state && st.death.n) {
        /* Gone since wasp attach: say how, from what attach learned. */
        if (!cfg.output_given)
            snprintf(cfg.agent.file, sizeof cfg.agent.file, "%s", st.file);
        if (absolute_output(&cfg) < 0)
            return 2;
        struct stat prof, rec;
        int wrote = wasp_attach_files_beside(cfg.agent.file) &&
                    stat(cfg.agent.file, &prof) == 0 && S_ISREG(prof.st_mode) &&
                    stat(state_path, &rec) == 0 && prof.st_mtime >= rec.st_mtime;
        return report_death(&cfg, cfg.pid, &st.death, "after wasp attach started profiling it",
                            st.agent[0] ? st.agent : "libwasp.so", "", 0, wrote);
    }
    if (refusal != WASP_HS_OK) {
        fprintf(stderr, "wasp detach: %s\n", err);
        if (refusal == WASP_HS_NO_PROCESS && have_state) {
            /* The JVM is gone: the record is of no further use. */
            fprintf(stderr, "wasp detach: it was profiled into %s (written when it exited, "
                            "if the agent could)\n", st.file);
            unlink(state_path);
        }
        return 1;
    }
    if (have_state && st.start_time && t.start_time && st.start_time != t.start_time) {
        fprintf(stderr, "wasp detach: ignoring %s: it records an earlier process %d\n",
                state_path, cfg.pid);
        unlink(state_path);
        have_state = 0;
    }
    if (!cfg.output_given) {
        if (!have_state && !agent_mapped(&cfg)) {
            fprintf(stderr, "wasp detach: JVM %d (%s) is not being profiled by wasp: no wasp "
                            "agent was ever loaded into it (it maps no libwasp.so), so there is "
                            "nothing to detach (an agent of another name: pass --agent PATH)\n",
                    cfg.pid, t.name);
            return 1;
        }
        if (!have_state) {
            fprintf(stderr,
                    "wasp detach: no record of 'wasp attach %d' (%s); pass -o FILE, the "
                    "profile file the agent was given\n",
                    cfg.pid, state_path);
            return 2;
        }
        snprintf(cfg.agent.file, sizeof cfg.agent.file, "%s", st.file);
    }
    if (absolute_output(&cfg) < 0)
        return 2;
    return load_and_report(&cfg, &t, have_state ? &st : NULL);
}

int wasp_cmd_dump(int argc, char **argv)
{
    wasp_run_config cfg;
    int code;
    if (parse(WASP_CLI_DUMP, argc, argv, &cfg, &code) < 0)
        return code;
    wasp_hs_target t;
    if (target(&cfg, &t) < 0)
        return 1;
    wasp_attach_state st;
    int have_state = wasp_attach_state_read(cfg.pid, &st) == 0 &&
                     !(st.start_time && t.start_time && st.start_time != t.start_time);
    if (!cfg.output_given) {
        if (have_state)
            snprintf(cfg.agent.file, sizeof cfg.agent.file, "%s", st.file);
        else
            snprintf(cfg.agent.file, sizeof cfg.agent.file, "wasp-%d.wprof", cfg.pid);
    }
    if (absolute_output(&cfg) < 0)
        return 2;
    if (strchr(cfg.agent.file, ',')) {
        fprintf(stderr, "wasp dump: the output path %s has a comma, which the agent's options "
                        "cannot carry; pass -o with another path\n", cfg.agent.file);
        return 2;
    }
    if (!wasp_attach_files_beside(cfg.agent.file)) {
        fprintf(stderr, "wasp dump: %s is not a regular file's path; pass -o FILE\n",
                cfg.agent.file);
        return 2;
    }
    if (check_arg_size("dump", "output path", cfg.agent.file, "pass -o with a shorter path") < 0)
        return 2;
    return load_and_report(&cfg, &t, have_state ? &st : NULL);
}
