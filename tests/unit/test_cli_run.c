/*
 * `wasp run`: option parsing, the child's argv, and the run path end to end
 * with a fake "java" shell script standing in for the JVM.
 *
 * Linked against libwaspcli.a; the report renderer is replaced, through
 * run_internal.h's seam, by a stub that records its calls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/commands/cli_util.h"
#include "cli/commands/run.h"
#include "cli/commands/run_checks.h"
#include "cli/commands/run_internal.h"
#include "unprivileged.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- report stub ---- */

static int render_calls;
static wasp_report_opts render_opts;
static char render_meta[64];

static int stub_render(const wasp_profile *p, const wasp_report_opts *o, FILE *out)
{
    render_calls++;
    render_opts = *o;
    const char *m = wasp_profile_get_meta(p, "test");
    snprintf(render_meta, sizeof render_meta, "%s", m ? m : "");
    fprintf(out, "[stub report]\n");
    return 0;
}

/* ---- helpers ---- */

#define ARGV(...) ((char *[]){"run", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"run", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(cfg, err, ...)                                                                    \
    wasp_run_parse_args(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (cfg), (err), sizeof(err))

static void parse_ok(int argc, char **argv, wasp_run_config *cfg)
{
    char err[8192] = "";
    int rc = wasp_run_parse_args(argc, argv, cfg, err, sizeof err);
    if (rc != WASP_RUN_OK)
        fail_msg("parse failed (%d): %s", rc, err);
}
#define PARSE_OK(cfg, ...) parse_ok(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (cfg))

/* Parsing must fail with a one-line "wasp run: " message holding every
 * substring given after argv (NULL-terminated). */
static void parse_fails(int argc, char **argv, ...)
{
    wasp_run_config cfg;
    char err[8192] = "";
    int rc = wasp_run_parse_args(argc, argv, &cfg, err, sizeof err);
    if (rc != WASP_RUN_ERROR)
        fail_msg("parse of '%s ...' gave %d, expected an error", argv[1], rc);
    if (strncmp(err, "wasp run: ", 10) != 0 || strchr(err, '\n'))
        fail_msg("not a one-line 'wasp run: ' message: %s", err);
    va_list ap;
    va_start(ap, argv);
    for (const char *sub; (sub = va_arg(ap, const char *)) != NULL;)
        if (!strstr(err, sub))
            fail_msg("message lacks '%s': %s", sub, err);
    va_end(ap);
}
#define FAILS(args, ...) parse_fails(ARGC args, ARGV args, __VA_ARGS__, NULL)

/* ---- option parsing ---- */

static void test_defaults(void **state)
{
    (void)state;
    wasp_run_config cfg;
    PARSE_OK(&cfg, "--", "java", "Main");
    wasp_options d;
    wasp_options_defaults(&d);
    assert_int_equal(cfg.agent.events, d.events);
    assert_string_equal(cfg.agent.file, "wasp.wprof");
    assert_int_equal(cfg.agent.period_ns, d.period_ns);
    assert_int_equal(cfg.agent.watchpoints, d.watchpoints);
    assert_int_equal(cfg.report.format, WASP_FORMAT_TEXT);
    assert_int_equal(cfg.report.top, 0);
    assert_int_equal(cfg.report.by, WASP_BY_LINE);
    assert_int_equal(cfg.quiet, 0);
    assert_null(cfg.agent_path);
    assert_int_equal(cfg.cmd_argc, 2);
    assert_string_equal(cfg.cmd_argv[0], "java");
    assert_string_equal(cfg.cmd_argv[1], "Main");
}

static void test_every_flag(void **state)
{
    (void)state;
    wasp_run_config cfg;
    PARSE_OK(&cfg, "-e", "deadstore,silentload", "-o", "out.wprof", "--period", "500us",
             "--sampler", "soft", "--pmu-event", "MEM:ALL", "--pmu-period", "5000",
             "--watchpoints", "2", "--float-threshold", "5%", "--max-frames", "64", "--format",
             "json", "--top", "7", "--by", "instruction", "-q", "--agent",
             "/opt/wasp/lib/libwasp.so", "--", "java", "-Xmx1g", "-jar", "app.jar");
    assert_int_equal(cfg.agent.events, 1u << WASP_AN_DEADSTORE | 1u << WASP_AN_SILENTLOAD);
    assert_string_equal(cfg.agent.file, "out.wprof");
    assert_int_equal(cfg.agent.period_ns, 500000);
    assert_int_equal(cfg.agent.sampler, WASP_SAMPLER_PERF);
    assert_string_equal(cfg.agent.pmu_event, "MEM:ALL");
    assert_int_equal(cfg.agent.pmu_period, 5000);
    assert_int_equal(cfg.agent.watchpoints, 2);
    assert_true(cfg.agent.float_threshold == 0.05);
    assert_int_equal(cfg.agent.max_frames, 64);
    assert_int_equal(cfg.report.format, WASP_FORMAT_JSON);
    assert_int_equal(cfg.report.top, 7);
    assert_int_equal(cfg.report.by, WASP_BY_INSTRUCTION);
    assert_int_equal(cfg.quiet, 1);
    assert_string_equal(cfg.agent_path, "/opt/wasp/lib/libwasp.so");
    assert_int_equal(cfg.cmd_argc, 4);
    assert_string_equal(cfg.cmd_argv[3], "app.jar");
}

static void test_flag_spellings(void **state)
{
    (void)state;
    wasp_run_config cfg;
    PARSE_OK(&cfg, "--events=silentstore+deadstore", "--output=a.wprof", "--quiet",
             "--float-threshold=0.02", "--", "java");
    assert_int_equal(cfg.agent.events, 3u);
    assert_string_equal(cfg.agent.file, "a.wprof");
    assert_int_equal(cfg.quiet, 1);
    assert_true(cfg.agent.float_threshold == 0.02);
    PARSE_OK(&cfg, "-eall", "-ob.wprof", "--format", "text", "--by=instruction", "--", "java");
    assert_int_equal(cfg.agent.events, (1u << WASP_ANALYSES) - 1); /* all: every analysis */
    assert_string_equal(cfg.agent.file, "b.wprof");
    assert_int_equal(cfg.report.format, WASP_FORMAT_TEXT);
    assert_int_equal(cfg.report.by, WASP_BY_INSTRUCTION);
    PARSE_OK(&cfg, "--by", "instruction", "--by", "line", "--", "java");
    assert_int_equal(cfg.report.by, WASP_BY_LINE);
    /* Last one wins, as in the agent string. */
    PARSE_OK(&cfg, "--watchpoints", "1", "--watchpoints", "3", "--", "java");
    assert_int_equal(cfg.agent.watchpoints, 3);
    /* Everything after -- belongs to java, even things that look like ours. */
    PARSE_OK(&cfg, "--", "java", "-q", "--", "-e", "x");
    assert_int_equal(cfg.quiet, 0);
    assert_int_equal(cfg.cmd_argc, 5);
}

static void test_help(void **state)
{
    (void)state;
    wasp_run_config cfg;
    char err[256];
    assert_int_equal(PARSE(&cfg, err, "-h"), WASP_RUN_HELP);
    assert_int_equal(PARSE(&cfg, err, "--help"), WASP_RUN_HELP);
    assert_int_equal(PARSE(&cfg, err, "-q", "--help", "--", "java"), WASP_RUN_HELP);
    /* The usage text documents every flag and its default. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    wasp_run_usage(f);
    fclose(f);
    /* Every flag the parser takes: its "unknown option" message lists them
     * ("-e/--events, --period, ..."). */
    char unknown[8192];
    assert_int_equal(PARSE(&cfg, unknown, "--no-such-flag", "--", "java"), WASP_RUN_ERROR);
    const char *item = strstr(unknown, "(accepted: ");
    assert_non_null(item);
    item += strlen("(accepted: ");
    int saw_events = 0, saw_help = 0;
    while (*item && *item != ')') {
        size_t n = strcspn(item, ",)");
        const char *dashes = strstr(item, "--");
        if (!dashes || dashes >= item + n)
            fail_msg("accepted flag without a long name: %.*s", (int)n, item);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(item + n - dashes), dashes);
        if (!strstr(text, name))
            fail_msg("usage lacks %s", name);
        saw_events |= !strcmp(name, "--events");
        saw_help |= !strcmp(name, "--help");
        item += n;
        item += strspn(item, ", ");
    }
    assert_true(saw_events && saw_help);
    assert_non_null(strstr(text, "default: wasp.wprof"));
    assert_non_null(strstr(text, "default: 1ms"));
    assert_non_null(strstr(text, "Examples:"));
    free(text);
}

static void test_agent_option_errors(void **state)
{
    (void)state;
    FAILS(("--watchpoints", "9", "--", "java"),
          "wasp run: bad option '--watchpoints 9': expected a number from 1 to 4");
    FAILS(("-e", "deadstor", "--", "java"), "bad option '-e deadstor'",
          "unknown analysis 'deadstor' (accepted: deadstore, silentstore, silentload, objects, replicas, fields, alloc, locks, all)");
    FAILS(("--events", "deadstore,,silentload", "--", "java"), "empty analysis name");
    FAILS(("--period", "5msx", "--", "java"), "'--period 5msx'", "10us to 10s");
    FAILS(("--period", "1h", "--", "java"), "units ns, us, ms, s");
    FAILS(("--sampler", "hw", "--", "java"), "'--sampler hw'", "one of auto, perf, timer, pmu");
    FAILS(("--pmu-period", "0", "--", "java"), "expected a number from 1 to 1000000000");
    FAILS(("--pmu-event", "a b", "--", "java"), "libpfm4 event name");
    FAILS(("--float-threshold", "2", "--", "java"), "'--float-threshold 2'", "0.01 or 1%");
    FAILS(("--float-threshold", "100%", "--", "java"), "0.01 or 1%");
    FAILS(("--max-frames", "0", "--", "java"), "expected a number from 1 to 2048");
    FAILS(("--max-frames=4096", "--", "java"), "'--max-frames 4096'", "1 to 2048");
    FAILS(("-o", "a,b.wprof", "--", "java"), "'-o a,b.wprof'", "without commas");
    FAILS(("-o", "", "--", "java"), "'-o'", "missing value", "a path");
    /* A huge value is quoted back only in part, and the detail still shows. */
    static char big[6000];
    memset(big, 'p', sizeof big - 1);
    wasp_run_config cfg;
    char err[16384];
    char *argv[] = {"run", "-o", big, "--", "java", NULL};
    assert_int_equal(wasp_run_parse_args(5, argv, &cfg, err, sizeof err), WASP_RUN_ERROR);
    assert_true(strlen(err) < 600);
    assert_non_null(strstr(err, "': expected a path of at most 4095 bytes"));
    assert_null(strstr(err, "bad option 'file="));
}

static void test_cli_option_errors(void **state)
{
    (void)state;
    FAILS(("--format", "xml", "--", "java"), "'--format xml'", "expected text, json, html, collapsed or pprof");
    FAILS(("--top", "0", "--", "java"), "'--top 0'", "expected a number from 1 to 1000000");
    FAILS(("--top", "-3", "--", "java"), "expected a number from 1");
    FAILS(("--agent", "", "--", "java"), "'--agent'", "libwasp.so");
    FAILS(("--format", "--", "java"), "'--format'", "expected text, json, html, collapsed or pprof");
    FAILS(("--top"), "'--top'", "expected a number from 1");
    FAILS(("--by", "file", "--", "java"), "'--by file'", "expected line or instruction");
    FAILS(("--by", "--", "java"), "'--by'", "expected line or instruction");
    FAILS(("--foo", "--", "java"), "unknown option '--foo'",
          "(accepted: -e/--events, -o/--output, --period, --period-jitter, --sampler, "
          "--pmu-event, --pmu-period, --watchpoints, --watch, --watch-budget, --float-threshold, "
          "--max-frames, --context, --min-size, --alloc-interval, --alloc-rate, --verify-top, "
          "--snapshot, --max-contexts, --threads, --format, --top, --by, --thread, -v/--verbose, -q/--quiet, --agent, -h/--help)");
    FAILS(("--foo=1", "--", "java"), "unknown option '--foo'");
    FAILS(("-x", "--", "java"), "unknown option '-x'", "-e/--events");
    FAILS(("--quiet=yes", "--", "java"), "'--quiet=yes'", "takes no value");
    /* A flag at the end, or right before --, has no value. */
    FAILS(("--period", "--", "java"), "'--period'", "missing value", "a duration");
    FAILS(("--watchpoints"), "missing value", "from 1 to 4");
    FAILS(("-e", "--", "java"), "'-e'", "missing value", "deadstore, silentstore");
}

static void test_command_errors(void **state)
{
    (void)state;
    FAILS(("java", "Main"), "unexpected argument 'java'", "wasp run -- java");
    FAILS(("-q"), "missing '--'");
    FAILS(("-q", "--"), "no command after '--'");
    FAILS(("--", ""), "no command after '--'");
    wasp_run_config cfg;
    char err[256];
    char *only[] = {"run", NULL};
    assert_int_equal(wasp_run_parse_args(1, only, &cfg, err, sizeof err), WASP_RUN_ERROR);
    assert_non_null(strstr(err, "missing '--'"));
}

/* ---- the child's argv ---- */

static void test_build_argv(void **state)
{
    (void)state;
    wasp_run_config cfg;
    PARSE_OK(&cfg, "-e", "deadstore", "--watchpoints", "2", "-o", "/tmp/o.wprof", "--", "java",
             "-Xmx1g", "-jar", "app.jar", "x y");
    char **argv = NULL;
    char err[512];
    assert_int_equal(wasp_run_build_argv(&cfg, "/opt/wasp/lib/libwasp.so", &argv, err, sizeof err),
                     0);
    assert_string_equal(argv[0], "java");
    assert_string_equal(argv[1], "-agentpath:/opt/wasp/lib/libwasp.so="
                                 "events=deadstore,watchpoints=2,file=/tmp/o.wprof");
    assert_string_equal(argv[2], "-Xmx1g");
    assert_string_equal(argv[3], "-jar");
    assert_string_equal(argv[4], "app.jar");
    assert_string_equal(argv[5], "x y");
    assert_null(argv[6]);

    /* The agent gets back exactly the options the CLI validated. */
    const char *opts = strchr(argv[1], '=') + 1;
    wasp_options back;
    assert_int_equal(wasp_options_parse(opts, &back, err, sizeof err), 0);
    assert_int_equal(back.events, cfg.agent.events);
    assert_int_equal(back.watchpoints, 2);
    assert_string_equal(back.file, "/tmp/o.wprof");
    assert_int_equal(back.period_ns, cfg.agent.period_ns);
    wasp_run_free_argv(argv);
}

static void test_build_argv_every_option_round_trips(void **state)
{
    (void)state;
    wasp_run_config cfg;
    PARSE_OK(&cfg, "-e", "silentstore", "-o", "/w/x.wprof", "--period", "2ms", "--sampler", "pmu",
             "--pmu-event", "E:F", "--pmu-period", "99", "--watchpoints", "3",
             "--float-threshold", "0.5%", "--max-frames", "17", "--", "java");
    char **argv = NULL;
    char err[512];
    assert_int_equal(wasp_run_build_argv(&cfg, "/a/libwasp.so", &argv, err, sizeof err), 0);
    assert_string_equal(argv[0], "java");
    assert_null(argv[2]);
    const char *prefix = "-agentpath:/a/libwasp.so=";
    assert_int_equal(strncmp(argv[1], prefix, strlen(prefix)), 0);
    wasp_options back;
    assert_int_equal(wasp_options_parse(argv[1] + strlen(prefix), &back, err, sizeof err), 0);
    assert_int_equal(back.events, cfg.agent.events);
    assert_string_equal(back.file, cfg.agent.file);
    assert_int_equal(back.sampler, WASP_SAMPLER_PMU);
    assert_int_equal(back.period_ns, 2000000);
    assert_string_equal(back.pmu_event, "E:F");
    assert_int_equal(back.pmu_period, 99);
    assert_int_equal(back.watchpoints, 3);
    assert_true(back.float_threshold == cfg.agent.float_threshold);
    assert_true(back.float_threshold == 0.005);
    assert_int_equal(back.max_frames, 17);
    wasp_run_free_argv(argv);
}

static void test_build_argv_refusals(void **state)
{
    (void)state;
    wasp_run_config cfg;
    char **argv = (char **)1;
    char err[512];
    PARSE_OK(&cfg, "--", "java");
    assert_int_equal(wasp_run_build_argv(&cfg, "/odd=dir/libwasp.so", &argv, err, sizeof err), -1);
    assert_null(argv);
    assert_non_null(strstr(err, "contains '='"));
    /* A cwd with a comma makes the absolute output path unusable. */
    strcpy(cfg.agent.file, "/home/a,b/wasp.wprof");
    assert_int_equal(wasp_run_build_argv(&cfg, "/a/libwasp.so", &argv, err, sizeof err), -1);
    assert_non_null(strstr(err, "contains a comma"));
    assert_non_null(strstr(err, "-o"));
}

/* ---- helpers in cli_util.c ---- */

static void test_abs_path(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(wasp_cli_abs_path("/home/u", "x.wprof", out, sizeof out), 0);
    assert_string_equal(out, "/home/u/x.wprof");
    assert_int_equal(wasp_cli_abs_path("/home/u", "/tmp/x", out, sizeof out), 0);
    assert_string_equal(out, "/tmp/x");
    assert_int_equal(wasp_cli_abs_path("/", "x", out, sizeof out), 0);
    assert_string_equal(out, "/x");
    assert_int_equal(wasp_cli_abs_path("/home/u", "", out, sizeof out), -1);
    assert_int_equal(wasp_cli_abs_path("/home/u", "x", out, 9), -1);
    assert_int_equal(wasp_cli_abs_path("/home/u", "x", out, 10), 0);
}

static void test_parse_uint(void **state)
{
    (void)state;
    uint64_t v = 0;
    assert_int_equal(wasp_cli_parse_uint("10", 1, 10, &v), 0);
    assert_int_equal(v, 10);
    assert_int_equal(wasp_cli_parse_uint("11", 1, 10, &v), -1);
    assert_int_equal(wasp_cli_parse_uint("0", 1, 10, &v), -1);
    assert_int_equal(wasp_cli_parse_uint("", 0, 10, &v), -1);
    assert_int_equal(wasp_cli_parse_uint("1x", 0, 10, &v), -1);
    assert_int_equal(wasp_cli_parse_uint("-1", 0, 10, &v), -1);
    assert_int_equal(wasp_cli_parse_uint("18446744073709551616", 0, UINT64_MAX, &v), -1);
    /* seconds, bare or with a unit */
    assert_int_equal(wasp_cli_parse_seconds("90", 1, 86400, &v), 0);
    assert_int_equal(v, 90);
    assert_int_equal(wasp_cli_parse_seconds("90s", 1, 86400, &v), 0);
    assert_int_equal(v, 90);
    assert_int_equal(wasp_cli_parse_seconds("5m", 1, 86400, &v), 0);
    assert_int_equal(v, 300);
    assert_int_equal(wasp_cli_parse_seconds("2h", 1, 86400, &v), 0);
    assert_int_equal(v, 7200);
    assert_int_equal(wasp_cli_parse_seconds("25h", 1, 86400, &v), -1);
    assert_int_equal(wasp_cli_parse_seconds("0s", 1, 86400, &v), -1);
    assert_int_equal(wasp_cli_parse_seconds("s", 1, 86400, &v), -1);
    assert_int_equal(wasp_cli_parse_seconds("1.5", 1, 86400, &v), -1);
    assert_int_equal(wasp_cli_parse_seconds("5ms", 1, 86400, &v), -1);
    assert_int_equal(wasp_cli_parse_seconds("1d", 1, 86400, &v), -1);
    assert_int_equal(wasp_cli_parse_seconds("5mm", 1, 86400, &v), -1);
    assert_int_equal(wasp_cli_parse_seconds("6148914691236517377h", 1, UINT64_MAX, &v), -1);
}

static void test_option_detail(void **state)
{
    (void)state;
    assert_string_equal(wasp_cli_option_detail("wasp: bad option 'a=1': expected x", "a=1"),
                        "expected x");
    assert_string_equal(wasp_cli_option_detail("wasp: something else", "a=1"), "something else");
    assert_string_equal(wasp_cli_option_detail("plain", "a=1"), "plain");
}

static void test_exe_dir(void **state)
{
    (void)state;
    char dir[4096];
    struct stat st;
    assert_int_equal(wasp_cli_exe_dir(dir, sizeof dir), 0);
    assert_true(dir[0] == '/');
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
}

/* ---- the run path, with a shell script as "java" ---- */

struct fixture {
    char dir[256];      /* temporary directory */
    char agent[300];    /* a stand-in libwasp.so (never loaded) */
    char profile[300];  /* a real profile the fake java copies into place */
    char java[300];     /* the fake java script */
    char args[300];     /* where the fake java writes the argv it got */
};

static struct fixture fx;

static int setup(void **state)
{
    (void)state;
    strcpy(fx.dir, "/tmp/wasp-test-run-XXXXXX");
    if (!mkdtemp(fx.dir))
        return -1;
    snprintf(fx.agent, sizeof fx.agent, "%s/libwasp.so", fx.dir);
    snprintf(fx.profile, sizeof fx.profile, "%s/fixture.wprof", fx.dir);
    snprintf(fx.java, sizeof fx.java, "%s/java", fx.dir);
    snprintf(fx.args, sizeof fx.args, "%s/args", fx.dir);
    FILE *f = fopen(fx.agent, "w");
    if (!f)
        return -1;
    fclose(f);
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "test", "fixture");
    char err[256];
    int rc = wasp_profile_write(p, fx.profile, err, sizeof err);
    wasp_profile_free(p);
    if (rc != 0)
        fprintf(stderr, "fixture profile: %s\n", err);
    wasp_run_set_renderer(stub_render);
    return rc;
}

static int teardown(void **state)
{
    (void)state;
    wasp_run_set_renderer(NULL);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes the fake java: it records its argv one per line, runs `body`, and
 * can copy the fixture profile to the file= path with `write_profile`. */
static void make_java(const char *body)
{
    FILE *f = fopen(fx.java, "w");
    assert_non_null(f);
    fprintf(f,
            "#!/bin/sh\n"
            "printf '%%s\\n' \"$@\" > '%s'\n"
            "write_profile() { cp '%s' \"${1##*file=}\"; }\n"
            "%s\n",
            fx.args, fx.profile, body);
    fclose(f);
    assert_int_equal(chmod(fx.java, 0755), 0);
}

static int run(int argc, char **argv)
{
    render_calls = 0;
    return wasp_cmd_run(argc, argv);
}
#define RUN(...) run(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static char *read_line(const char *path, int n, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *r = NULL;
    for (int i = 0; i <= n; i++)
        if (!(r = fgets(buf, (int)len, f)))
            break;
    fclose(f);
    if (r)
        buf[strcspn(buf, "\n")] = '\0';
    return r;
}

static void test_run_writes_and_renders(void **state)
{
    (void)state;
    char out[400], line[8192], want[8192];
    snprintf(out, sizeof out, "%s/out.wprof", fx.dir);
    unlink(out);
    make_java("write_profile \"$1\"\nexit 0");
    assert_int_equal(RUN("--agent", fx.agent, "-o", out, "--format", "json", "--top", "3",
                         "--by", "instruction", "--watchpoints", "2", "--", fx.java, "-cp", "x",
                         "Main"),
                     0);
    assert_int_equal(render_calls, 1);
    assert_int_equal(render_opts.format, WASP_FORMAT_JSON);
    assert_int_equal(render_opts.top, 3);
    assert_int_equal(render_opts.by, WASP_BY_INSTRUCTION);
    assert_string_equal(render_meta, "fixture");
    /* argv[1] is -agentpath, then the user's arguments unchanged. */
    assert_non_null(read_line(fx.args, 0, line, sizeof line));
    snprintf(want, sizeof want, "-agentpath:%s=watchpoints=2,file=%s", fx.agent, out);
    assert_string_equal(line, want);
    assert_string_equal(read_line(fx.args, 1, line, sizeof line), "-cp");
    assert_string_equal(read_line(fx.args, 3, line, sizeof line), "Main");
}

static void test_run_relative_output_is_absolute(void **state)
{
    (void)state;
    char old[4096], line[8192], want[8192];
    assert_non_null(getcwd(old, sizeof old));
    assert_int_equal(chdir(fx.dir), 0);
    unlink("wasp.wprof");
    make_java("write_profile \"$1\"");
    int rc = RUN("--agent", "libwasp.so", "-q", "--", "./java");
    assert_int_equal(chdir(old), 0);
    assert_int_equal(rc, 0);
    assert_int_equal(render_calls, 0); /* -q */
    read_line(fx.args, 0, line, sizeof line);
    char real_dir[1024];
    assert_non_null(realpath(fx.dir, real_dir));
    snprintf(want, sizeof want, "-agentpath:%s/libwasp.so=file=%s/wasp.wprof", real_dir, real_dir);
    assert_string_equal(line, want);
}

static void test_run_exit_status(void **state)
{
    (void)state;
    char out[400];
    snprintf(out, sizeof out, "%s/st.wprof", fx.dir);
    /* Profile written, program failed: report shown, program's status kept. */
    unlink(out);
    make_java("write_profile \"$1\"\nexit 3");
    assert_int_equal(RUN("--agent", fx.agent, "-o", out, "--", fx.java), 3);
    assert_int_equal(render_calls, 1);
    /* No profile: 1, or the program's own non-zero status. */
    unlink(out);
    make_java("exit 0");
    assert_int_equal(RUN("--agent", fx.agent, "-o", out, "--", fx.java), 1);
    assert_int_equal(render_calls, 0);
    make_java("exit 5");
    assert_int_equal(RUN("--agent", fx.agent, "-o", out, "--", fx.java), 5);
    /* A profile left by an earlier run does not count as written. */
    make_java("write_profile \"$1\"");
    assert_int_equal(RUN("--agent", fx.agent, "-o", out, "--", fx.java), 0);
    make_java("exit 0");
    assert_int_equal(RUN("--agent", fx.agent, "-o", out, "--", fx.java), 1);
    assert_int_equal(render_calls, 0);
    /* Killed by a signal: 128 + signal. */
    make_java("kill -KILL $$");
    assert_int_equal(RUN("--agent", fx.agent, "-o", out, "--", fx.java), 128 + SIGKILL);
}

/* Mistakes wasp run can see before it starts the program: a launcher that is
 * not java (it would take -agentpath as its own option), an output it cannot
 * write. The program must not run (it would write fx.args). */
static void test_run_checks_before_starting(void **state)
{
    (void)state;
    make_java("write_profile \"$1\"\nexit 0");
    char sh[400], out[600], ro[400];
    snprintf(sh, sizeof sh, "%s/launch.sh", fx.dir); /* a script, not java */
    assert_int_equal(link(fx.java, sh), 0);
    unlink(fx.args);
    assert_int_equal(RUN("--agent", fx.agent, "--", sh, "-cp", "x", "Main"), 2);
    assert_int_equal(access(fx.args, F_OK), -1);
    char err[512];
    assert_int_equal(wasp_run_check_launcher("sh", err, sizeof err), -1);
    assert_non_null(strstr(err, "not a java launcher"));
    assert_int_equal(wasp_run_check_launcher(fx.java, err, sizeof err), 0);
    /* An output directory that does not exist, or is not writable. */
    snprintf(out, sizeof out, "%s/no-such-dir/p.wprof", fx.dir);
    assert_int_equal(RUN("--agent", fx.agent, "-o", out, "--", fx.java), 2);
    assert_int_equal(access(fx.args, F_OK), -1);
    assert_int_equal(wasp_run_check_output("run", fx.dir, err, sizeof err), -1); /* a directory */
    snprintf(ro, sizeof ro, "%s/ro", fx.dir);
    assert_int_equal(mkdir(ro, 0555), 0);
    snprintf(out, sizeof out, "%s/p.wprof", ro);
    if (geteuid() != 0) { /* root writes anywhere */
        assert_int_equal(wasp_run_check_output("run", out, err, sizeof err), -1);
        assert_non_null(strstr(err, "cannot write the profile"));
    }
    rmdir(ro);
    char why[1024];
    wasp_run_exit x = {128 + SIGKILL, 0, NULL, NULL, 0, NULL, -1};
    wasp_run_explain_missing("/x.wprof", &x, why, sizeof why);
    assert_non_null(strstr(why, "killed by signal 9"));
    x.status = 3;
    wasp_run_explain_missing("/x.wprof", &x, why, sizeof why);
    assert_non_null(strstr(why, "status 3"));
    /* An agent seen started is never said not to have started. */
    char *oom_argv[] = {"-Xmx16m", "-XX:+ExitOnOutOfMemoryError", "Main", NULL};
    x.argv = oom_argv;
    x.agent_loaded = 1;
    wasp_run_explain_missing("/x.wprof", &x, why, sizeof why);
    assert_non_null(strstr(why, "exited with status 3 (what -XX:+ExitOnOutOfMemoryError exits "
                                "with on an OutOfMemoryError) before the agent could write it"));
    assert_null(strstr(why, "never started"));
    /* A JVM that died of a fatal error: its report named, from -XX:ErrorFile
     * with %p expanded; without the file, the plain message. */
    char dir[] = "/tmp/wasp-hserr-XXXXXX", report[600], opt[700];
    assert_non_null(mkdtemp(dir));
    snprintf(opt, sizeof opt, "-XX:ErrorFile=%s/crash-%%p.log", dir);
    snprintf(report, sizeof report, "%s/crash-4242.log", dir);
    char *argv[] = {"java", opt, "-cp", ".", "Main", NULL};
    wasp_run_exit crash = {128 + SIGABRT, 4242, argv, NULL, 0, "libwasp.so", 1};
    wasp_run_explain_missing("/x.wprof", &crash, why, sizeof why);
    assert_non_null(strstr(why, "killed by signal 6"));
    FILE *f = fopen(report, "w");
    assert_non_null(f);
    fputs("#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n"
          "#  SIGSEGV (0xb) at pc=0x00007f00, pid=4242, tid=4243\n#\n"
          "# JRE version: OpenJDK (17.0)\n# Problematic frame:\n"
          "# C  [libwasp.so+0x1234]  wasp_handler+0x12\n#\n\n--- S U M M A R Y\n", f);
    fclose(f);
    wasp_run_explain_missing("/x.wprof", &crash, why, sizeof why);
    assert_non_null(strstr(why, "fatal error"));
    assert_non_null(strstr(why, report));
    assert_non_null(strstr(why, "in wasp's agent (C  [libwasp.so+0x1234]  wasp_handler+0x12)"));
    assert_non_null(strstr(why, "please report"));
    /* The same JVM started after the report was written: not its report. */
    crash.started = time(NULL) + 10;
    wasp_run_explain_missing("/x.wprof", &crash, why, sizeof why);
    assert_null(strstr(why, report));
    crash.started = 0;
    /* HotSpot's own OutOfMemoryError abort names no frame: not blamed on wasp. */
    f = fopen(report, "w");
    assert_non_null(f);
    fputs("#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n"
          "#  Internal Error (debug.cpp:362), pid=4242, tid=4243\n"
          "#  fatal error: OutOfMemory encountered: Java heap space\n#\n"
          "# JRE version: OpenJDK (17.0)\n#\n\n--- S U M M A R Y\n", f);
    fclose(f);
    wasp_run_explain_missing("/x.wprof", &crash, why, sizeof why);
    assert_non_null(strstr(why, "OutOfMemoryError: HotSpot aborted (CrashOnOutOfMemoryError, Java "
                                "heap space)"));
    assert_non_null(strstr(why, report));
    assert_null(strstr(why, "please report"));
    /* A profile that came back as the agent's last snapshot says so. */
    x.status = 128 + SIGKILL;
    wasp_run_explain_written("/x.wprof", &x, "last snapshot, the JVM ended without a normal exit",
                             why, sizeof why);
    assert_non_null(strstr(why, "/x.wprof is the agent's last snapshot (last snapshot"));
    x.status = 0;
    wasp_run_explain_written("/x.wprof", &x, NULL, why, sizeof why);
    assert_string_equal(why, "");
    unlink(report);
    rmdir(dir);
}

static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* -o naming another user's symbolic link (planted in a shared directory to
 * make a root-run wasp overwrite the file it names) is refused before the
 * program starts; the agent's writer would refuse it only after the run. */
static void test_run_refuses_foreign_link_before_starting(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip(); /* only root can give a link to another user */
    make_java("write_profile \"$1\"\nexit 0");
    char victim[400], link_path[400], err[1024], want[1400];
    snprintf(victim, sizeof victim, "%s/victim", fx.dir);
    snprintf(link_path, sizeof link_path, "%s/planted.wprof", fx.dir);
    FILE *f = fopen(victim, "w");
    assert_non_null(f);
    fputs("precious\n", f);
    fclose(f);
    assert_int_equal(symlink(victim, link_path), 0);
    assert_int_equal(lchown(link_path, NOBODY, NOBODY), 0);
    unlink(fx.args);
    assert_int_equal(RUN("--agent", fx.agent, "-o", link_path, "--", fx.java), 2);
    assert_int_equal(access(fx.args, F_OK), -1); /* the program did not start */
    assert_int_equal(file_size(victim), 9);     /* nor was the victim touched */
    assert_int_equal(wasp_run_check_output("run", link_path, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "wasp run: -o %s: %s is a symbolic link owned by another user (uid 65534); wasp "
             "does not write through it",
             link_path, link_path);
    assert_string_equal(err, want);
    /* A link of root's own is followed as before. */
    assert_int_equal(lchown(link_path, 0, 0), 0);
    assert_int_equal(wasp_run_check_output("run", link_path, err, sizeof err), 0);
    unlink(link_path);
    unlink(victim);
}

/* An output directory the user cannot write, checked as a user who really
 * cannot (root writes anywhere, so the test drops to uid 65534 in a child):
 * the exact message, and the program never started. */
static void test_run_unwritable_directory_unprivileged(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip(); /* needs to become another user */
    char top[] = "/tmp/wasp-test-unwritable-XXXXXX";
    assert_non_null(mkdtemp(top));
    assert_int_equal(chmod(top, 0755), 0);
    char locked[100], scratch[100], java[100], agent[100], marker[200], out[200], msg[200];
    snprintf(locked, sizeof locked, "%s/locked", top);   /* root's, 0755: not 65534's */
    snprintf(scratch, sizeof scratch, "%s/scratch", top); /* anyone's */
    snprintf(java, sizeof java, "%s/java", top);
    snprintf(agent, sizeof agent, "%s/libwasp.so", top);
    snprintf(marker, sizeof marker, "%s/ran", scratch);
    snprintf(msg, sizeof msg, "%s/stderr", scratch);
    snprintf(out, sizeof out, "%s/p.wprof", locked);
    assert_int_equal(mkdir(locked, 0755), 0);
    assert_int_equal(mkdir(scratch, 0777), 0);
    assert_int_equal(chmod(scratch, 0777), 0); /* whatever the umask */
    FILE *f = fopen(java, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\ntouch '%s'\n", marker);
    fclose(f);
    assert_int_equal(chmod(java, 0755), 0);
    f = fopen(agent, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(chmod(agent, 0644), 0);

    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pipefd[0]);
        int fd = open(msg, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd < 0 || fchown(fd, NOBODY, NOBODY) != 0 || dup2(fd, STDERR_FILENO) < 0 ||
            become_nobody() != 0)
            _exit(99);
        char err[1024];
        int checked = wasp_run_check_output("run", out, err, sizeof err);
        if (write(pipefd[1], err, checked < 0 ? strlen(err) + 1 : 1) < 0)
            _exit(98);
        int rc = wasp_cmd_run(ARGC("--agent", agent, "-o", out, "--", java),
                              ARGV("--agent", agent, "-o", out, "--", java));
        fflush(NULL);
        _exit(rc);
    }
    close(pipefd[1]);
    char err[1024] = "";
    ssize_t got = read(pipefd[0], err, sizeof err - 1);
    close(pipefd[0]);
    err[got > 0 ? got : 0] = '\0';
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    char want[800];
    snprintf(want, sizeof want,
             "wasp run: cannot write the profile into %s: Permission denied (choose another "
             "with -o)",
             locked);
    assert_string_equal(err, want);
    assert_int_equal(WEXITSTATUS(status), 2);
    assert_int_equal(access(marker, F_OK), -1); /* the program never started */
    char line[1024];
    assert_non_null(read_line(msg, 0, line, sizeof line));
    assert_string_equal(line, want);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    assert_int_equal(system(cmd), 0);
}

static void test_run_cannot_start(void **state)
{
    (void)state;
    assert_int_equal(RUN("--agent", fx.agent, "--", "/nonexistent/java"), 127);
    assert_int_equal(RUN("--agent", fx.agent, "--", "wasp-no-such-java-launcher"), 127);
    char missing[400];
    snprintf(missing, sizeof missing, "%s/nope/libwasp.so", fx.dir);
    assert_int_equal(RUN("--agent", missing, "--", fx.java), 2);
    assert_int_equal(RUN("--agent", fx.dir, "--", fx.java), 2); /* a directory */
    assert_int_equal(RUN("--watchpoints", "9", "--", fx.java), 2);
    /* --help prints the usage to stdout and succeeds. */
    fflush(stdout);
    int saved = dup(STDOUT_FILENO), devnull = open("/dev/null", O_WRONLY);
    assert_true(saved >= 0 && devnull >= 0);
    dup2(devnull, STDOUT_FILENO);
    int rc = RUN("--help");
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    close(devnull);
    assert_int_equal(rc, 0);
}

/* SIGINT/SIGQUIT sent to wasp are ignored (java gets its own from the
 * terminal); SIGTERM is forwarded to java. */
static void test_run_signals(void **state)
{
    (void)state;
    char out[400];
    snprintf(out, sizeof out, "%s/sig.wprof", fx.dir);
    unlink(out);
    make_java("kill -INT $PPID; kill -QUIT $PPID\n"
              "trap 'write_profile \"$1\"; exit 42' TERM\n"
              "kill -TERM $PPID\n"
              "i=0; while [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done\n"
              "exit 9");
    assert_int_equal(RUN("--agent", fx.agent, "-o", out, "--", fx.java), 42);
    assert_int_equal(render_calls, 1);
    /* The dispositions are restored afterwards. */
    struct sigaction sa;
    sigaction(SIGINT, NULL, &sa);
    assert_true(sa.sa_handler == SIG_DFL);
    sigaction(SIGTERM, NULL, &sa);
    assert_true(sa.sa_handler == SIG_DFL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_flag),
        cmocka_unit_test(test_flag_spellings),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_agent_option_errors),
        cmocka_unit_test(test_cli_option_errors),
        cmocka_unit_test(test_command_errors),
        cmocka_unit_test(test_build_argv),
        cmocka_unit_test(test_build_argv_every_option_round_trips),
        cmocka_unit_test(test_build_argv_refusals),
        cmocka_unit_test(test_abs_path),
        cmocka_unit_test(test_parse_uint),
        cmocka_unit_test(test_option_detail),
        cmocka_unit_test(test_exe_dir),
        cmocka_unit_test(test_run_writes_and_renders),
        cmocka_unit_test(test_run_relative_output_is_absolute),
        cmocka_unit_test(test_run_exit_status),
        cmocka_unit_test(test_run_checks_before_starting),
        cmocka_unit_test(test_run_refuses_foreign_link_before_starting),
        cmocka_unit_test(test_run_unwritable_directory_unprivileged),
        cmocka_unit_test(test_run_cannot_start),
        cmocka_unit_test(test_run_signals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
