/*
 * `wasp run`: parse options, start the java launcher with -agentpath, wait,
 * then render the profile it wrote.
 *
 * The option machinery here (flag table, validation, the agent option
 * string, locating the agent, rendering the profile) also serves `wasp
 * attach` and `wasp detach` (cli/attach/attach.c): wasp_cli_parse_args takes the
 * subcommand, and messages name it ("wasp attach: bad option ...").
 *
 * Every agent option is validated here by the agent's own parser
 * (wasp_options_parse) so a mistake is reported before java starts, in the
 * same words the agent would use.
 */
#include "cli/commands/run.h"

#include "agent/option_table.h"
#include "cli/commands/cli_util.h"
#include "cli/commands/option_help.h"
#include "cli/attach/jvm_death.h"
#include "cli/commands/run_checks.h"
#include "cli/render/thread_filter.h"
#include "cli/commands/run_internal.h"
#include "profile/profile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;


/* ------------------------------------------------------------------ */
/* Option parsing (pure)                                               */

enum flag_kind {
    F_AGENT, /* an agent option: its row in agent/option_table.c */
    F_FORMAT, F_TOP, F_BY, F_THREAD, F_VERBOSE, F_QUIET, F_AGENTPATH, F_DURATION, F_HELP
};

struct flag {
    const char *name; /* long name without "--" */
    char shrt;        /* short letter or 0 */
    enum flag_kind kind;
    const wasp_option_row *row; /* F_AGENT */
};

/* The command's own flags; the agent options' come from the option table. */
static const struct flag cli_flags[] = {
    {"format", 0, F_FORMAT, NULL},
    {"top", 0, F_TOP, NULL},
    {"by", 0, F_BY, NULL},
    {"thread", 0, F_THREAD, NULL},
    {"verbose", 'v', F_VERBOSE, NULL},
    {"quiet", 'q', F_QUIET, NULL},
    {"agent", 0, F_AGENTPATH, NULL},
    {"help", 'h', F_HELP, NULL},
};
#define NCLI_FLAGS (sizeof cli_flags / sizeof *cli_flags)

/* Flags of attach alone. */
static const struct flag attach_flags[] = {
    {"duration", 'd', F_DURATION, NULL},
};
#define NATTACH_FLAGS (sizeof attach_flags / sizeof *attach_flags)

static int takes_value(const struct flag *f)
{
    if (f->kind == F_AGENT)
        return !(f->row->cli & WASP_OPT_SWITCH);
    return f->kind != F_QUIET && f->kind != F_HELP && f->kind != F_VERBOSE;
}

const char *wasp_cli_cmd_name(wasp_cli_cmd cmd)
{
    static const char *const names[] = {[WASP_CLI_RUN] = "run", [WASP_CLI_ATTACH] = "attach",
                                        [WASP_CLI_DETACH] = "detach", [WASP_CLI_DUMP] = "dump"};
    return (unsigned)cmd < sizeof names / sizeof *names ? names[cmd] : "run";
}

/* How the option table names cmd (a row's cli bits). */
static unsigned option_cmd_bit(wasp_cli_cmd cmd)
{
    /* dump, like detach, only says where the profile goes */
    return cmd == WASP_CLI_ATTACH                              ? WASP_OPT_IN_ATTACH
           : cmd == WASP_CLI_DETACH || cmd == WASP_CLI_DUMP ? WASP_OPT_IN_DETACH
                                                              : WASP_OPT_IN_RUN;
}

/* The i-th flag cmd takes, or NULL past the last: first the agent options
 * the table gives cmd (run and attach: nearly all; detach, which only reads
 * the profile, -o), then the command's own; attach adds -d. An agent option's
 * flag is built in *buf. */
static const struct flag *flag_at(wasp_cli_cmd cmd, size_t i, struct flag *buf)
{
    const wasp_option_row *r;
    for (size_t k = 0; (r = wasp_option_at(k)); k++) {
        if (!r->flag || !(r->cli & option_cmd_bit(cmd)))
            continue;
        if (i-- == 0) {
            *buf = (struct flag){r->flag, r->letter, F_AGENT, r};
            return buf;
        }
    }
    if (i < NCLI_FLAGS)
        return &cli_flags[i];
    i -= NCLI_FLAGS;
    if (cmd == WASP_CLI_ATTACH && i < NATTACH_FLAGS)
        return &attach_flags[i];
    return NULL;
}

static void accepted_flags(wasp_cli_cmd cmd, char *buf, size_t n)
{
    size_t len = 0;
    struct flag fb;
    const struct flag *f;
    buf[0] = '\0';
    for (size_t i = 0; (f = flag_at(cmd, i, &fb)) && len < n; i++) {
        int w;
        if (f->shrt)
            w = snprintf(buf + len, n - len, "%s-%c/--%s", len ? ", " : "", f->shrt, f->name);
        else
            w = snprintf(buf + len, n - len, "%s--%s", len ? ", " : "", f->name);
        if (w < 0)
            return;
        len += (size_t)w;
    }
}

/* Validate one agent-backed flag with the agent's parser, then copy the field
 * its row sets. `shown` is how the user wrote the flag ("-e", "--period"). */
static int set_agent_flag(wasp_run_config *cfg, const struct flag *f, const char *shown,
                          const char *value, char *err, size_t errlen)
{
    const wasp_option_row *r = f->row;
    char item[WASP_PATH_MAX + 32];
    char msg[1024] = "";
    const char *why = msg;
    wasp_options tmp;
    int rc;

    if (r->kind == WASP_OPT_PATH && strchr(value, ',')) {
        snprintf(err, errlen,
                 "wasp %s: bad option '%s %.*s': expected a path without commas (the agent "
                 "option string cannot carry one)",
                 wasp_cli_cmd_name(cfg->cmd), shown, WASP_CLI_ITEM_SHOWN, value);
        return -1;
    }
    if (r->kind == WASP_OPT_EVENTS) {
        /* The CLI also takes commas here, which the agent string cannot:
         * the value alone, through the row. */
        wasp_options_defaults(&tmp);
        rc = wasp_option_set(r, &tmp, value, msg, sizeof msg);
        if (rc < 0 && !msg[0]) {
            char accepted[512];
            snprintf(msg, sizeof msg, "expected %s",
                     wasp_option_accepted(r, accepted, sizeof accepted));
        }
    } else {
        snprintf(item, sizeof item, "%s=%s", r->key, value);
        rc = wasp_options_parse(item, &tmp, msg, sizeof msg);
        why = wasp_cli_option_detail(msg, item);
    }
    if (rc < 0) {
        if (*value == '\0') {
            /* "key=" yields the "expected ..." text for a missing value. */
            snprintf(err, errlen, "wasp %s: bad option '%s': missing value, %s",
                     wasp_cli_cmd_name(cfg->cmd), shown, why);
        } else {
            snprintf(err, errlen, "wasp %s: bad option '%s %.*s': %s",
                     wasp_cli_cmd_name(cfg->cmd), shown, WASP_CLI_ITEM_SHOWN, value, why);
        }
        return -1;
    }
    wasp_option_copy(r, &cfg->agent, &tmp);
    if (r->offset == offsetof(wasp_options, file))
        cfg->output_given = 1;
    return 0;
}

static int set_flag(wasp_run_config *cfg, const struct flag *f, const char *shown,
                    const char *value, char *err, size_t errlen)
{
    uint64_t n;
    char why[512];
    const char *cmd = wasp_cli_cmd_name(cfg->cmd);
    switch (f->kind) {
    case F_AGENT:
        return set_agent_flag(cfg, f, shown, takes_value(f) ? value : "1", err, errlen);
    case F_FORMAT:
        if (wasp_format_parse(shown, value, WASP_FORMATS_ALL, &cfg->report.format, why,
                              sizeof why) < 0)
            break;
        /* The report goes to standard output: compressed binary would only
         * garble a terminal. */
        if (cfg->report.format == WASP_FORMAT_PPROF && isatty(STDOUT_FILENO)) {
            snprintf(err, errlen,
                     "wasp %s: --format pprof writes binary: redirect standard output, or "
                     "run `wasp report --format pprof -o OUT` on the profile",
                     cmd);
            return -1;
        }
        return 0;
    case F_TOP:
        if (wasp_top_parse(shown, value, &cfg->report.top, why, sizeof why) < 0)
            break;
        return 0;
    case F_BY:
        if (wasp_by_parse(shown, value, &cfg->report.by, why, sizeof why) < 0)
            break;
        return 0;
    case F_THREAD: /* the report's filter; the threads recorded for it (threads=1) */
        if (wasp_thread_pattern_add(shown, value, &cfg->report.filter, why, sizeof why) < 0)
            break;
        cfg->agent.threads = 1;
        return 0;
    case F_AGENTPATH:
        if (!*value) {
            snprintf(err, errlen, "wasp %s: bad option '%s': expected the path of libwasp.so",
                     cmd, shown);
            return -1;
        }
        cfg->agent_path = value;
        return 0;
    case F_DURATION:
        if (wasp_cli_parse_seconds(value, 1, INT_MAX, &n) < 0) {
            wasp_cli_bad_option(why, sizeof why, shown, value,
                                "expected a whole number of seconds, 1 or more, bare or with "
                                "a unit (s, m, h): 30, 30s, 5m, 1h");
            break;
        }
        cfg->duration_s = (unsigned)n;
        return 0;
    case F_VERBOSE:
        cfg->report.verbose = true;
        return 0;
    case F_QUIET:
        cfg->quiet = 1;
        return 0;
    case F_HELP:
        return 0;
    }
    snprintf(err, errlen, "wasp %s: %s", cmd, why);
    return -1;
}

/* The flag cmd takes named name (len bytes), or NULL; buf as for flag_at. */
static const struct flag *find_long(wasp_cli_cmd cmd, const char *name, size_t len,
                                    struct flag *buf)
{
    const struct flag *f;
    for (size_t i = 0; (f = flag_at(cmd, i, buf)); i++)
        if (strlen(f->name) == len && !strncmp(f->name, name, len))
            return f;
    return NULL;
}

static const struct flag *find_short(wasp_cli_cmd cmd, char c, struct flag *buf)
{
    const struct flag *f;
    for (size_t i = 0; (f = flag_at(cmd, i, buf)); i++)
        if (f->shrt == c)
            return f;
    return NULL;
}

static int unknown_flag(wasp_cli_cmd cmd, const char *arg, char *err, size_t errlen)
{
    char acc[512];
    accepted_flags(cmd, acc, sizeof acc);
    snprintf(err, errlen, "wasp %s: unknown option '%s' (accepted: %s)", wasp_cli_cmd_name(cmd),
             arg, acc);
    return WASP_RUN_ERROR;
}

/* attach/detach: the one operand, the JVM's pid. */
static int set_pid(wasp_run_config *cfg, const char *arg, char *err, size_t errlen)
{
    const char *cmd = wasp_cli_cmd_name(cfg->cmd);
    uint64_t n;
    if (cfg->pid) {
        snprintf(err, errlen, "wasp %s: unexpected argument '%.200s': give one PID", cmd, arg);
        return -1;
    }
    if (wasp_cli_parse_uint(arg, 1, INT_MAX, &n) < 0) {
        snprintf(err, errlen, "wasp %s: bad PID '%.200s': expected a process id (a number)",
                 cmd, arg);
        return -1;
    }
    cfg->pid = (int)n;
    return 0;
}

int wasp_run_parse_args(int argc, char **argv, wasp_run_config *cfg, char *err, size_t errlen)
{
    return wasp_cli_parse_args(WASP_CLI_RUN, argc, argv, cfg, err, errlen);
}

int wasp_cli_parse_args(wasp_cli_cmd command, int argc, char **argv, wasp_run_config *cfg,
                        char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->cmd = command;
    const char *cmd = wasp_cli_cmd_name(command);
    wasp_options_defaults(&cfg->agent);
    strcpy(cfg->agent.file, WASP_RUN_DEFAULT_OUTPUT);
    cfg->report.format = WASP_FORMAT_TEXT;
    cfg->report.top = 0;
    cfg->report.by = WASP_BY_LINE;

    int i = 1, operands_only = 0;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (command != WASP_CLI_RUN) { /* attach, detach: options and one PID */
            if (!operands_only && !strcmp(arg, "--")) {
                operands_only = 1;
                continue;
            }
            if (operands_only || arg[0] != '-' || arg[1] == '\0') {
                if (set_pid(cfg, arg, err, errlen) < 0)
                    return WASP_RUN_ERROR;
                continue;
            }
        }
        if (!strcmp(arg, "--"))
            break;
        if (arg[0] != '-' || arg[1] == '\0') {
            snprintf(err, errlen,
                     "wasp run: unexpected argument '%.200s': put the command after '--', e.g. "
                     "wasp run -- java -jar app.jar",
                     arg);
            return WASP_RUN_ERROR;
        }
        struct flag found;
        const struct flag *f;
        const char *inline_value = NULL; /* "--name=value" or "-eVALUE" */
        char shown[64];
        if (arg[1] == '-') {
            const char *name = arg + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            f = find_long(command, name, len, &found);
            if (!f) {
                snprintf(shown, sizeof shown, "--%.*s", (int)(len < 40 ? len : 40), name);
                return unknown_flag(command, shown, err, errlen);
            }
            snprintf(shown, sizeof shown, "--%s", f->name);
            if (eq)
                inline_value = eq + 1;
        } else {
            f = find_short(command, arg[1], &found);
            if (!f) {
                snprintf(shown, sizeof shown, "-%c", arg[1]);
                return unknown_flag(command, shown, err, errlen);
            }
            snprintf(shown, sizeof shown, "-%c", f->shrt);
            if (arg[2])
                inline_value = arg + 2;
        }
        if (f->kind == F_HELP)
            return WASP_RUN_HELP;
        const char *value = NULL;
        if (takes_value(f)) {
            if (inline_value)
                value = inline_value;
            else if (i + 1 < argc && strcmp(argv[i + 1], "--") != 0)
                value = argv[++i];
            else
                value = ""; /* reported as a missing value */
        } else if (inline_value) {
            snprintf(err, errlen, "wasp %s: bad option '%.200s': %s takes no value", cmd, arg,
                     shown);
            return WASP_RUN_ERROR;
        }
        if (set_flag(cfg, f, shown, value, err, errlen) < 0)
            return WASP_RUN_ERROR;
    }
    if (command != WASP_CLI_RUN) {
        if (!cfg->pid) {
            snprintf(err, errlen, "wasp %s: missing the PID of the JVM, e.g. wasp %s%s 1234", cmd,
                     cmd, command == WASP_CLI_ATTACH ? " -d 30" : "");
            return WASP_RUN_ERROR;
        }
        if (!cfg->output_given) {
            if (command == WASP_CLI_ATTACH)
                snprintf(cfg->agent.file, sizeof cfg->agent.file, "wasp-%d.wprof", cfg->pid);
            else
                cfg->agent.file[0] = '\0'; /* detach: the file recorded at attach */
        }
    } else if (i >= argc) {
        snprintf(err, errlen,
                 "wasp run: missing '--' and the command to profile, e.g. "
                 "wasp run -- java -jar app.jar");
        return WASP_RUN_ERROR;
    } else if (i + 1 >= argc || argv[i + 1][0] == '\0') {
        snprintf(err, errlen,
                 "wasp run: no command after '--', e.g. wasp run -- java -jar app.jar");
        return WASP_RUN_ERROR;
    } else {
        cfg->cmd_argc = argc - (i + 1);
        cfg->cmd_argv = argv + i + 1;
    }

    /* The CLI and the agent must agree: the string the agent will get has to
     * parse back to the same options. */
    char s1[3 * WASP_PATH_MAX], s2[3 * WASP_PATH_MAX], msg[1024];
    wasp_options back;
    if (wasp_options_format(&cfg->agent, s1, sizeof s1) < 0 ||
        wasp_options_parse(s1, &back, msg, sizeof msg) < 0 ||
        wasp_options_format(&back, s2, sizeof s2) < 0 || strcmp(s1, s2) != 0) {
        snprintf(err, errlen,
                 "wasp %s: internal error: agent options do not round-trip ('%.200s')", cmd, s1);
        return WASP_RUN_ERROR;
    }
    return WASP_RUN_OK;
}

/* ------------------------------------------------------------------ */
/* Child argv (pure)                                                   */

void wasp_run_free_argv(char **argv)
{
    if (!argv)
        return;
    free(argv[1]); /* the only string we allocated: -agentpath:... */
    free(argv);
}

int wasp_run_agent_options(const wasp_run_config *cfg, char *buf, size_t buflen, char *err,
                           size_t errlen)
{
    const char *cmd = wasp_cli_cmd_name(cfg->cmd);
    if (strchr(cfg->agent.file, ',')) {
        snprintf(err, errlen,
                 "wasp %s: the output path '%s' contains a comma, which the agent option "
                 "string cannot carry; choose another with -o",
                 cmd, cfg->agent.file);
        return -1;
    }
    int olen = wasp_options_format(&cfg->agent, buf, buflen);
    if (olen < 0) {
        snprintf(err, errlen, "wasp %s: cannot build the agent option string", cmd);
        return -1;
    }
    return olen;
}

int wasp_run_build_argv(const wasp_run_config *cfg, const char *agent_abs, char ***out_argv,
                        char *err, size_t errlen)
{
    *out_argv = NULL;
    if (cfg->cmd_argc < 1) {
        snprintf(err, errlen, "wasp run: no command to run");
        return -1;
    }
    if (strchr(agent_abs, '=')) {
        snprintf(err, errlen,
                 "wasp run: the agent path '%s' contains '=', which -agentpath cannot carry; "
                 "move libwasp.so or pass --agent PATH",
                 agent_abs);
        return -1;
    }
    char opts[3 * WASP_PATH_MAX];
    int olen = wasp_run_agent_options(cfg, opts, sizeof opts, err, errlen);
    if (olen < 0)
        return -1;
    size_t len = strlen("-agentpath:") + strlen(agent_abs) + 1 + (size_t)olen + 1;
    char *ap = malloc(len);
    char **argv = calloc((size_t)cfg->cmd_argc + 2, sizeof *argv);
    if (!ap || !argv) {
        free(ap);
        free(argv);
        snprintf(err, errlen, "wasp run: out of memory");
        return -1;
    }
    snprintf(ap, len, "-agentpath:%s%s%s", agent_abs, olen ? "=" : "", opts);
    argv[0] = cfg->cmd_argv[0];
    argv[1] = ap;
    for (int k = 1; k < cfg->cmd_argc; k++)
        argv[k + 1] = cfg->cmd_argv[k];
    argv[cfg->cmd_argc + 1] = NULL;
    *out_argv = argv;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Usage                                                               */

/* Help lines shared with attach (the agent options) and detach (the report). */
void wasp_run_help_agent_flags(FILE *out, wasp_cli_cmd cmd)
{
    wasp_option_help_flags(out, option_cmd_bit(cmd));
}

void wasp_run_help_report_flags(FILE *out)
{
    char names[256];
    wasp_format_names(WASP_FORMATS_ALL, "|", names, sizeof names);
    fprintf(out,
            "      --format FORMAT      report format, one of %s\n"
            "                           (default: text; see wasp report --help)\n"
            "      --top N              context pairs shown per analysis (default: 10 in\n"
            "                           text, 50 in html, else all)\n"
            "      --by line|instruction\n"
            "                           report pairs per source line (those differing\n"
            "                           only in the leaf machine instruction summed) or\n"
            "                           per instruction (default: line)\n"
            "      --thread PATTERN     report only the threads whose name matches (a\n"
            "                           glob, digits folded to #; repeatable); records\n"
            "                           the threads (--threads)\n"
            "  -v, --verbose            text report: also how it was measured (the\n"
            "                           sampler, the watchpoints, counters and drops)\n",
            names);
}

void wasp_run_usage(FILE *out)
{
    fputs(
        "Usage: wasp run [options] -- java [java options] MainClass|-jar app.jar [args]\n"
        "\n"
        "Runs the Java program with the wasp agent, then prints the report of the\n"
        "profile it wrote. wasp adds -agentpath:<libwasp.so>=<options> right after\n"
        "the launcher (the first word after --), so that word must be java (or a\n"
        "launcher that takes JVM options first).\n"
        "\n"
        "Options:\n",
        out);
    wasp_run_help_agent_flags(out, WASP_CLI_RUN);
    wasp_run_help_report_flags(out);
    fputs(
        "  -q, --quiet              print no report (the profile is still written)\n"
        "      --agent PATH         the agent library (default: ../lib/libwasp.so\n"
        "                           next to the wasp executable)\n"
        "  -h, --help               this help\n"
        "\n"
        "Options also take the form --name=value. The agent logs to stderr.\n"
        "\n"
        "Exit status: the program's own (128+N when it was killed by signal N);\n"
        "2 when wasp could not start it (bad option, agent not found); 127 when the\n"
        "launcher cannot be executed; 1 (or the program's non-zero status) when no\n"
        "profile was written.\n"
        "\n"
        "Examples:\n"
        "  wasp run -- java -cp app.jar com.example.Main\n"
        "  wasp run -e deadstore --period 500us -o dead.wprof -- java -jar app.jar\n"
        "  wasp run -q -o run1.wprof -- java Main && wasp report --top 5 run1.wprof\n",
        out);
}

/* ------------------------------------------------------------------ */
/* Running the child                                                   */

static volatile sig_atomic_t child_pid;

/* SIGTERM/SIGHUP go to wasp alone (a `kill`, a closed terminal): pass them on
 * so the JVM can shut down and write its profile. */
static void forward_signal(int sig)
{
    pid_t p = (pid_t)child_pid;
    if (p > 0)
        kill(p, sig);
}

struct saved_signals {
    struct sigaction intr, quit, term, hup;
    sigset_t mask;
};

/* Until the child pid exits, watch whether it maps the agent at agent_abs:
 * Agent_OnLoad runs right after the JVM maps it and (its options checked
 * by wasp run already) lets the JVM go on, so a JVM that mapped it ran the
 * agent. Sets *loaded to 1 once seen, 0 when the JVM ended unseen, -1 when
 * it cannot be watched. The first look comes at once, then at growing
 * intervals up to 200 ms; once seen, nothing more is read. */
static void watch_agent(pid_t pid, const char *agent_abs, int *loaded)
{
    *loaded = -1;
#ifdef SYS_pidfd_open
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0)
        return;
    int delay = 5;
    for (;;) {
        int m = wasp_jvm_maps_file(pid, agent_abs);
        if (m == 1) {
            *loaded = 1;
            break;
        }
        if (m < 0)
            break; /* gone: what was seen stands */
        *loaded = 0;
        struct pollfd pf = {.fd = pidfd, .events = POLLIN};
        int r = poll(&pf, 1, delay);
        if (r > 0)
            break; /* exited */
        if (r < 0 && errno != EINTR)
            break;
        if (delay < 200)
            delay *= 2;
    }
    close(pidfd);
#else
    (void)pid;
    (void)agent_abs;
#endif
}

/* Spawn argv; report exec failure through a close-on-exec pipe so the parent
 * can tell "could not start" from "started and failed". Returns the child's
 * exit status as a shell would show it (its pid in *child, whether it ran
 * the agent at agent_abs in *agent_loaded, as watch_agent says), or -1 with
 * exec_errno set. */
static int spawn_and_wait(char **argv, const char *agent_abs, int *exec_errno, pid_t *child,
                          int *agent_loaded)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        *exec_errno = errno;
        return -1;
    }
    /* Block the signals we handle until the handlers are in place, so none
     * arrives in the window between fork and sigaction. */
    struct saved_signals old;
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGQUIT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old.mask);

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        *exec_errno = errno;
        sigprocmask(SIG_SETMASK, &old.mask, NULL);
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old.mask, NULL);
        close(pfd[0]);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(pfd[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(pfd[1]);

    /* The terminal sends SIGINT/SIGQUIT to the whole process group: java
     * gets them itself, and wasp must survive to print the report. */
    struct sigaction ign = {0}, fwd = {0};
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    fwd.sa_handler = forward_signal;
    sigemptyset(&fwd.sa_mask);
    fwd.sa_flags = SA_RESTART;
    child_pid = pid;
    *child = pid;
    sigaction(SIGINT, &ign, &old.intr);
    sigaction(SIGQUIT, &ign, &old.quit);
    sigaction(SIGTERM, &fwd, &old.term);
    sigaction(SIGHUP, &fwd, &old.hup);
    sigprocmask(SIG_SETMASK, &old.mask, NULL);

    int e = 0;
    ssize_t r;
    do
        r = read(pfd[0], &e, sizeof e);
    while (r < 0 && errno == EINTR);
    close(pfd[0]);
    *agent_loaded = -1;
    if (r == 0)
        watch_agent(pid, agent_abs, agent_loaded);

    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    child_pid = 0;
    sigaction(SIGINT, &old.intr, NULL);
    sigaction(SIGQUIT, &old.quit, NULL);
    sigaction(SIGTERM, &old.term, NULL);
    sigaction(SIGHUP, &old.hup, NULL);

    if (r == (ssize_t)sizeof e) {
        *exec_errno = e;
        return -1;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

/* The agent writes atomically (temp file + rename), so a fresh profile is a
 * different inode or a newer mtime than whatever was there before. */
wasp_file_id wasp_file_id_of(const char *path)
{
    wasp_file_id id = {0};
    id.exists = stat(path, &id.st) == 0;
    return id;
}

int wasp_file_is_new(const wasp_file_id *before, const char *path)
{
    wasp_file_id now = wasp_file_id_of(path);
    if (!now.exists)
        return 0;
    if (!before->exists)
        return 1;
    return now.st.st_ino != before->st.st_ino || now.st.st_dev != before->st.st_dev ||
           now.st.st_mtim.tv_sec != before->st.st_mtim.tv_sec ||
           now.st.st_mtim.tv_nsec != before->st.st_mtim.tv_nsec;
}

int wasp_run_locate_agent(const wasp_run_config *cfg, char *out, size_t outlen)
{
    const char *cmd = wasp_cli_cmd_name(cfg->cmd);
    char guess[PATH_MAX + 32];
    if (cfg->agent_path) {
        snprintf(guess, sizeof guess, "%s", cfg->agent_path);
    } else {
        char dir[PATH_MAX];
        if (wasp_cli_exe_dir(dir, sizeof dir) < 0) {
            fprintf(stderr, "wasp %s: cannot find the wasp executable (/proc/self/exe): %s; "
                            "pass --agent PATH\n", cmd, strerror(errno));
            return -1;
        }
        snprintf(guess, sizeof guess, "%s/../lib/libwasp.so", dir);
    }
    char real[PATH_MAX];
    struct stat st;
    const char *why = NULL;
    if (!realpath(guess, real) || stat(real, &st) < 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    if (why) {
        fprintf(stderr, "wasp %s: cannot find the agent library %s: %s (%s)\n", cmd, guess, why,
                cfg->agent_path ? "check --agent" : "build it with make, or pass --agent PATH");
        return -1;
    }
    snprintf(out, outlen, "%s", real);
    return 0;
}

/* What wasp_run_show_report renders with; a seam for tests (run_internal.h). */
static wasp_run_render_fn *show_renderer = wasp_report_render;

void wasp_run_set_renderer(wasp_run_render_fn *fn)
{
    show_renderer = fn ? fn : wasp_report_render;
}

int wasp_run_show_report(const wasp_run_config *cfg)
{
    const char *cmd = wasp_cli_cmd_name(cfg->cmd);
    char err[512];
    wasp_profile *p = wasp_profile_read(cfg->agent.file, err, sizeof err);
    if (!p) {
        fprintf(stderr, "wasp %s: cannot read the profile %s: %s\n", cmd, cfg->agent.file, err);
        return -1;
    }
    int rc = show_renderer(p, &cfg->report, stdout);
    wasp_profile_free(p);
    if (fflush(stdout) != 0 || rc != 0) {
        fprintf(stderr, "wasp %s: cannot print the report of %s\n", cmd, cfg->agent.file);
        return -1;
    }
    return 0; /* the agent already logged where the profile went */
}

int wasp_cmd_run(int argc, char **argv)
{
    wasp_run_config cfg;
    char err[WASP_PATH_MAX + 512];
    int rc = wasp_run_parse_args(argc, argv, &cfg, err, sizeof err);
    if (rc == WASP_RUN_HELP) {
        wasp_run_usage(stdout);
        return 0;
    }
    if (rc != WASP_RUN_OK) {
        fprintf(stderr, "%s\nTry 'wasp run --help'.\n", err);
        return 2;
    }

    char agent_abs[PATH_MAX];
    if (wasp_run_locate_agent(&cfg, agent_abs, sizeof agent_abs) < 0)
        return 2;

    /* The output path is relative to wasp's cwd; make it absolute now so
     * neither the agent nor the messages depend on the JVM's cwd. */
    char cwd[PATH_MAX], abs_out[WASP_PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) {
        fprintf(stderr, "wasp run: cannot get the current directory: %s\n", strerror(errno));
        return 2;
    }
    if (wasp_cli_abs_path(cwd, cfg.agent.file, abs_out, sizeof abs_out) < 0) {
        fprintf(stderr, "wasp run: output path too long: %s\n", cfg.agent.file);
        return 2;
    }
    memcpy(cfg.agent.file, abs_out, sizeof abs_out);
    if (wasp_run_check_launcher(cfg.cmd_argv[0], err, sizeof err) < 0 ||
        wasp_run_check_output("run", cfg.agent.file, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }

    char **child_argv;
    if (wasp_run_build_argv(&cfg, agent_abs, &child_argv, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }

    /* A device or pipe (-o /dev/null, /dev/stdout) takes the profile as it
     * is written: there is nothing to read back and render. */
    struct stat out_st;
    int to_stream = stat(cfg.agent.file, &out_st) == 0 && !S_ISREG(out_st.st_mode);
    wasp_file_id before = wasp_file_id_of(cfg.agent.file);
    int exec_errno = 0, agent_loaded = -1;
    pid_t child = 0;
    time_t started = time(NULL);
    int status = spawn_and_wait(child_argv, agent_abs, &exec_errno, &child, &agent_loaded);
    wasp_run_free_argv(child_argv);
    if (status < 0) {
        fprintf(stderr, "wasp run: cannot start '%s': %s\n", cfg.cmd_argv[0],
                strerror(exec_errno));
        return 127;
    }

    if (to_stream)
        return status;
    const char *base = strrchr(agent_abs, '/');
    wasp_run_exit how = {status,  (int)child, cfg.cmd_argv + 1, environ, started,
                         base ? base + 1 : agent_abs, agent_loaded};
    if (!wasp_file_is_new(&before, cfg.agent.file)) {
        wasp_run_explain_missing(cfg.agent.file, &how, err, sizeof err);
        fprintf(stderr, "%s\n", err);
        return status ? status : 1;
    }
    int shown = cfg.quiet || wasp_run_show_report(&cfg) == 0;
    /* After the report, where it is seen: a profile that is not what a normal exit writes. */
    char snapshot[512];
    int is_snapshot = wasp_run_profile_snapshot(cfg.agent.file, snapshot, sizeof snapshot);
    wasp_run_explain_written(cfg.agent.file, &how, is_snapshot ? snapshot : NULL, err,
                             sizeof err);
    if (err[0])
        fprintf(stderr, "%s\n", err);
    if (!shown)
        return status ? status : 1;
    return status;
}
