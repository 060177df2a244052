/*
 * `wasp attach` / `wasp detach` and the HotSpot attach protocol client:
 * request bytes, both JDK reply styles, the checks made before any signal,
 * the handshake against a fake JVM (a forked child that speaks the listener
 * side), and the whole round trip against real JVMs with a stand-in agent
 * (tests/integration/fake_agent.c, compiled here).
 *
 * The JVMs: `java` from PATH, or the colon-separated list of java
 * executables in WASP_TEST_JAVA (e.g. to add a JDK 25).
 *
 * Linked against libwaspcli.a; the report renderer is replaced, through
 * run_internal.h's seam, by a stub that counts its calls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/attach/attach.h"
#include "cli/attach/hotspot_attach.h"
#include "cli/commands/run.h"
#include "cli/commands/run_internal.h"
#include "unprivileged.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

/* ---- report stub ---- */

static int render_calls;

static int stub_render(const wasp_profile *p, const wasp_report_opts *o, FILE *out)
{
    (void)p, (void)o;
    render_calls++;
    fprintf(out, "[stub report]\n");
    return 0;
}

/* ---- fixture ---- */

static struct {
    char dir[256];     /* temporary directory */
    char fixture[300]; /* a valid (empty) profile */
    char agent[300];   /* fake_agent.so, built from tests/integration/fake_agent.c */
    char classes[300]; /* where Lifecycle.class is */
    pid_t jvm;         /* a running Lifecycle JVM, killed by teardown if a test failed */
} fx;

static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

static int setup(void **state)
{
    (void)state;
    strcpy(fx.dir, "/tmp/wasp-test-attach-XXXXXX");
    if (!mkdtemp(fx.dir))
        return -1;
    snprintf(fx.fixture, sizeof fx.fixture, "%s/fixture.wprof", fx.dir);
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "test", "fixture");
    char err[256];
    int rc = wasp_profile_write(p, fx.fixture, err, sizeof err);
    wasp_profile_free(p);
    if (rc != 0) {
        fprintf(stderr, "fixture profile: %s\n", err);
        return -1;
    }
    snprintf(fx.agent, sizeof fx.agent, "%s/fake_agent.so", fx.dir);
    if (sh("cc -shared -fPIC -O2 -Wall -Wextra -Werror -o '%s' tests/integration/fake_agent.c",
           fx.agent) != 0) {
        fprintf(stderr, "cannot build the fake agent (run from the repository root)\n");
        return -1;
    }
    if (access("build/workloads/Lifecycle.class", R_OK) == 0)
        snprintf(fx.classes, sizeof fx.classes, "build/workloads");
    else
        snprintf(fx.classes, sizeof fx.classes, "%s/classes", fx.dir);
    wasp_run_set_renderer(stub_render);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    wasp_run_set_renderer(NULL);
    if (fx.jvm > 0) { /* a failed assertion skipped jvm_stop */
        kill(fx.jvm, SIGKILL);
        waitpid(fx.jvm, NULL, 0);
        fx.jvm = 0;
    }
    return sh("rm -rf '%s'", fx.dir) == 0 ? 0 : -1;
}

static int contains(const char *s, const char *sub)
{
    return s && strstr(s, sub) != NULL;
}
#define assert_contains(s, sub)                                                                 \
    do {                                                                                        \
        if (!contains((s), (sub)))                                                              \
            fail_msg("'%s' does not contain '%s'", (s), (sub));                                 \
    } while (0)

static int alive(pid_t pid)
{
    int status;
    return waitpid(pid, &status, WNOHANG) == 0;
}

static void reap(pid_t pid)
{
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* Line n (0-based) of a file, without its newline. */
static char *file_line(const char *path, int n, char *buf, size_t len)
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

#define ARGV(...) ((char *[]){__VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)))

/* ---- requests and replies ---- */

static void test_request_bytes(void **state)
{
    (void)state;
    char buf[4096], err[256];
    const char *args[] = {"/opt/wasp/lib/libwasp.so", "true", "file=/tmp/a.wprof,action=start"};
    long n = wasp_hs_build_request("load", args, 3, buf, sizeof buf, err, sizeof err);
    static const char want[] = "1\0load\0/opt/wasp/lib/libwasp.so\0true\0"
                               "file=/tmp/a.wprof,action=start";
    assert_int_equal(n, sizeof want); /* sizeof counts the final NUL */
    assert_memory_equal(buf, want, sizeof want);

    /* Missing and NULL arguments go out empty: always three. */
    const char *one[] = {NULL};
    n = wasp_hs_build_request("properties", one, 1, buf, sizeof buf, err, sizeof err);
    static const char want2[] = "1\0properties\0\0\0";
    assert_int_equal(n, sizeof want2);
    assert_memory_equal(buf, want2, sizeof want2);
    n = wasp_hs_build_request("threaddump", NULL, 0, buf, sizeof buf, err, sizeof err);
    assert_int_equal(n, sizeof "1\0threaddump\0\0\0");

    /* The protocol's limits: 1024 bytes an argument, 16 a name. */
    char big[1100];
    memset(big, 'x', sizeof big);
    big[1024] = '\0';
    const char *ok[] = {big};
    assert_true(wasp_hs_build_request("load", ok, 1, buf, sizeof buf, err, sizeof err) > 0);
    big[1024] = 'x';
    big[1025] = '\0';
    assert_int_equal(wasp_hs_build_request("load", ok, 1, buf, sizeof buf, err, sizeof err), -1);
    assert_contains(err, "1025 bytes, more than the 1024");
    assert_int_equal(
        wasp_hs_build_request("aaaaaaaaaaaaaaaaa", NULL, 0, buf, sizeof buf, err, sizeof err),
        -1);
    assert_int_equal(wasp_hs_build_request("load", args, 3, buf, 20, err, sizeof err), -1);
}

static void test_parse_status(void **state)
{
    (void)state;
    int st;
    const char *out;
    const char r1[] = "0\nreturn code: 0\n";
    assert_int_equal(wasp_hs_parse_status(r1, strlen(r1), &st, &out), 0);
    assert_int_equal(st, 0);
    assert_string_equal(out, "return code: 0\n");
    const char r2[] = "-1\nOperation bogus not recognized!";
    assert_int_equal(wasp_hs_parse_status(r2, strlen(r2), &st, &out), 0);
    assert_int_equal(st, -1);
    assert_string_equal(out, "Operation bogus not recognized!");
    assert_int_equal(wasp_hs_parse_status("101", 3, &st, &out), 0);
    assert_int_equal(st, 101);
    assert_string_equal(out, "");
    assert_int_equal(wasp_hs_parse_status("", 0, &st, &out), -1);
    assert_int_equal(wasp_hs_parse_status("x\n", 2, &st, &out), -1);
    assert_int_equal(wasp_hs_parse_status("\n0\n", 3, &st, &out), -1);
}

static void test_parse_load_output(void **state)
{
    (void)state;
    int rc = 42;
    assert_int_equal(wasp_hs_parse_load_output("0\n", &rc), 0); /* JDK 17 before 17.0.9 */
    assert_int_equal(rc, 0);
    assert_int_equal(wasp_hs_parse_load_output("return code: 0\n", &rc), 0); /* later */
    assert_int_equal(rc, 0);
    assert_int_equal(wasp_hs_parse_load_output("return code: 7\n", &rc), 0);
    assert_int_equal(rc, 7);
    assert_int_equal(wasp_hs_parse_load_output("-1", &rc), 0);
    assert_int_equal(rc, -1);
    assert_int_equal(wasp_hs_parse_load_output("/x.so was not loaded.\n"
                                               "/x.so: cannot open shared object file\n",
                                               &rc),
                     -1);
    assert_int_equal(wasp_hs_parse_load_output("", &rc), -1);
    assert_int_equal(wasp_hs_parse_load_output("return code: \n", &rc), -1);
}

static int verdict(const char *reply, wasp_hs_load_result *res, char *err, size_t errlen)
{
    err[0] = '\0';
    return wasp_hs_load_verdict(reply, strlen(reply), res, err, errlen);
}

static void test_load_verdict(void **state)
{
    (void)state;
    wasp_hs_load_result res;
    char err[2048];
    /* Success, both styles. */
    assert_int_equal(verdict("0\n0\n", &res, err, sizeof err), 0);
    assert_true(res.have_rc && res.agent_rc == 0);
    assert_int_equal(verdict("0\nreturn code: 0\n", &res, err, sizeof err), 0);
    assert_true(res.have_rc && res.agent_rc == 0);

    /* The agent refused: Agent_OnAttach returned non-zero. */
    assert_int_equal(verdict("0\n5\n", &res, err, sizeof err), -1);
    assert_int_equal(res.agent_rc, 5);
    assert_contains(err, "Agent_OnAttach returned 5");
    assert_int_equal(verdict("0\nreturn code: 7\n", &res, err, sizeof err), -1);
    assert_contains(err, "Agent_OnAttach returned 7 (the JVM said 'return code: 7')");

    /* Attach-level errors. */
    assert_int_equal(verdict("-1\nOperation bogus not recognized!", &res, err, sizeof err), -1);
    assert_string_equal(err, "the JVM refused to load the agent (status -1): Operation bogus "
                             "not recognized!");
    /* JDK 17 cannot open the library: status -1 and why. */
    assert_int_equal(verdict("-1\n/x.so was not loaded.\n/x.so: cannot open shared object "
                             "file: No such file or directory\n",
                             &res, err, sizeof err),
                     -1);
    assert_contains(err, "(status -1): /x.so was not loaded. /x.so: cannot open shared object");
    /* JDK 25: status 0, but a message instead of a return code. */
    assert_int_equal(verdict("0\n/x.so was not loaded.\n/x.so: cannot open shared object file\n",
                             &res, err, sizeof err),
                     -1);
    assert_false(res.have_rc);
    assert_string_equal(err, "the JVM could not load the agent: /x.so was not loaded. /x.so: "
                             "cannot open shared object file");
    assert_int_equal(verdict("101\n", &res, err, sizeof err), -1);
    assert_contains(err, "does not speak version 1");
    assert_int_equal(verdict("", &res, err, sizeof err), -1);
    assert_contains(err, "closed the connection without answering");
    assert_int_equal(verdict("hello\n", &res, err, sizeof err), -1);
    assert_contains(err, "not the attach protocol's: 'hello'");
}

/* ---- a dead JVM's fatal-error report (cli/attach/jvm_death.c) ---- */

static void test_hs_err_reports(void **state)
{
    (void)state;
    wasp_hs_err e;
    char says[2048];
    /* A crash in the agent: its problematic frame names libwasp.so. */
    const char *ours = "#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n"
                       "#  SIGSEGV (0xb) at pc=0x00007f00, pid=42, tid=43\n#\n"
                       "# JRE version: OpenJDK (17.0)\n# Java VM: OpenJDK 64-Bit Server VM\n"
                       "# Problematic frame:\n# C  [libwasp.so+0x12e3]  Agent_OnAttach+0x143\n#\n"
                       "\n---------------  T H R E A D  ---------------\n";
    assert_int_equal(wasp_hs_err_parse(ours, "libwasp.so", &e), 0);
    assert_string_equal(e.error, "SIGSEGV (0xb) at pc=0x00007f00");
    assert_string_equal(e.frame, "C  [libwasp.so+0x12e3]  Agent_OnAttach+0x143");
    assert_true(e.frame_in_agent && !e.out_of_memory);
    wasp_hs_err_describe("/w/hs_err_pid42.log", &e, says, sizeof says);
    assert_contains(says, "its report is /w/hs_err_pid42.log; its problematic frame is in "
                          "wasp's agent (C  [libwasp.so+0x12e3]  Agent_OnAttach+0x143)");
    assert_contains(says, "please report it with that file");
    /* A crash in the JVM, with the agent on the crashing thread's stack. */
    const char *jvm = "#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n"
                      "#  SIGSEGV (0xb) at pc=0x1, pid=42, tid=43\n#\n"
                      "# Problematic frame:\n# V  [libjvm.so+0xeda214]  Unsafe_PutLong+0x124\n#\n"
                      "\nNative frames: (J=compiled Java code)\n"
                      "V  [libjvm.so+0xeda214]  Unsafe_PutLong+0x124\n"
                      "C  [libwasp.so+0x99]  wasp_sample+0x9\n\nJava frames:\n";
    assert_int_equal(wasp_hs_err_parse(jvm, "libwasp.so", &e), 0);
    assert_false(e.frame_in_agent);
    assert_true(e.agent_on_stack);
    wasp_hs_err_describe("/w/r.log", &e, says, sizeof says);
    assert_contains(says, "HotSpot reported SIGSEGV (0xb) at pc=0x1 in V  [libjvm.so+0xeda214]  "
                          "Unsafe_PutLong+0x124, not in wasp's agent (though");
    /* HotSpot's own abort on an OutOfMemoryError names no frame. */
    const char *oom = "#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n"
                      "#  Internal Error (debug.cpp:362), pid=42, tid=43\n"
                      "#  fatal error: OutOfMemory encountered: Java heap space\n#\n"
                      "# JRE version: OpenJDK (17.0)\n#\n\n---\n";
    assert_int_equal(wasp_hs_err_parse(oom, "libwasp.so", &e), 0);
    assert_string_equal(e.error, "Internal Error (debug.cpp:362)");
    assert_string_equal(e.detail, "fatal error: OutOfMemory encountered: Java heap space");
    assert_true(e.out_of_memory && !e.frame[0] && !e.frame_in_agent);
    wasp_hs_err_describe("/w/r.log", &e, says, sizeof says);
    assert_string_equal(says, "its report is /w/r.log; OutOfMemoryError: HotSpot aborted "
                              "(CrashOnOutOfMemoryError, Java heap space); it names no "
                              "problematic frame");
    assert_int_equal(wasp_hs_err_parse("hello\n", "libwasp.so", &e), -1);

    /* Where the report goes: -XX:ErrorFile (the last, from the environment
     * too, %p expanded, relative to the JVM's directory), then the default
     * name there, then /tmp. */
    wasp_jvm_death d;
    char *args[] = {"-XX:ErrorFile=first.log", "-XX:ErrorFile=crash-%p.log", "Main", NULL};
    char *env[] = {"JAVA_TOOL_OPTIONS=-XX:ErrorFile=/tool.log", NULL};
    wasp_jvm_death_from(&d, 42, "/app", args, env, 0);
    assert_int_equal(d.n, 3);
    assert_string_equal(d.file[0], "/app/crash-42.log");
    assert_string_equal(d.file[1], "/app/hs_err_pid42.log");
    assert_string_equal(d.file[2], "/tmp/hs_err_pid42.log");
    char *under[] = {"_JAVA_OPTIONS=-Xmx1g -XX:ErrorFile=/late-%p.log", NULL};
    wasp_jvm_death_from(&d, 42, "/app", args, under, 0);
    assert_string_equal(d.file[0], "/late-42.log");
    wasp_jvm_death_from(&d, 7, NULL, NULL, NULL, 0);
    assert_int_equal(d.n, 2);
    assert_string_equal(d.file[0], "hs_err_pid7.log");
}

/* ---- options ---- */

static int parse_cmd(wasp_cli_cmd cmd, int argc, char **argv, wasp_run_config *cfg, char *err,
                     size_t errlen)
{
    err[0] = '\0';
    return wasp_cli_parse_args(cmd, argc, argv, cfg, err, errlen);
}
#define PARSE(cmd, cfg, err, ...)                                                               \
    parse_cmd((cmd), ARGC("x", __VA_ARGS__), ARGV("x", __VA_ARGS__), (cfg), (err), sizeof(err))

static void test_parse_attach(void **state)
{
    (void)state;
    wasp_run_config cfg;
    char err[8192];
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "1234"), WASP_RUN_OK);
    assert_int_equal(cfg.pid, 1234);
    assert_int_equal(cfg.duration_s, 0);
    assert_string_equal(cfg.agent.file, "wasp-1234.wprof");
    assert_int_equal(cfg.output_given, 0);

    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "-d", "30", "-e", "deadstore", "-o",
                           "x.wprof", "--period", "500us", "--format=json", "--top", "3", "-q",
                           "1234"),
                     WASP_RUN_OK);
    assert_int_equal(cfg.duration_s, 30);
    assert_int_equal(cfg.agent.events, 1u << WASP_AN_DEADSTORE);
    assert_string_equal(cfg.agent.file, "x.wprof");
    assert_int_equal(cfg.agent.period_ns, 500000);
    assert_int_equal(cfg.report.format, WASP_FORMAT_JSON);
    assert_int_equal(cfg.report.top, 3);
    assert_int_equal(cfg.quiet, 1);
    /* The PID may come first, or after "--". */
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "77", "-d5"), WASP_RUN_OK);
    assert_int_equal(cfg.pid, 77);
    assert_int_equal(cfg.duration_s, 5);
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "--duration=2", "--", "78"), WASP_RUN_OK);
    assert_int_equal(cfg.pid, 78);
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "-h"), WASP_RUN_HELP);

    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "-d", "30"), WASP_RUN_ERROR);
    assert_string_equal(err, "wasp attach: missing the PID of the JVM, e.g. wasp attach -d 30 "
                             "1234");
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "12", "13"), WASP_RUN_ERROR);
    assert_string_equal(err, "wasp attach: unexpected argument '13': give one PID");
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "12x"), WASP_RUN_ERROR);
    assert_string_equal(err, "wasp attach: bad PID '12x': expected a process id (a number)");
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "0"), WASP_RUN_ERROR);
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "-d", "0", "12"), WASP_RUN_ERROR);
    assert_string_equal(err, "wasp attach: bad option '-d 0': expected a whole number of "
                             "seconds, 1 or more, bare or with a unit (s, m, h): 30, 30s, 5m, "
                             "1h");
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "-d", "5m", "12"), 0);
    assert_int_equal(cfg.duration_s, 300);
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "--watchpoints", "9", "12"),
                     WASP_RUN_ERROR);
    assert_string_equal(err, "wasp attach: bad option '--watchpoints 9': expected a number from "
                             "1 to 4");
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "-o", "a,b", "12"), WASP_RUN_ERROR);
    assert_contains(err, "wasp attach: bad option '-o a,b': expected a path without commas");
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "--bogus", "12"), WASP_RUN_ERROR);
    assert_contains(err, "wasp attach: unknown option '--bogus' (accepted: -e/--events, ");
    assert_contains(err, "-d/--duration");
}

static void test_parse_detach(void **state)
{
    (void)state;
    wasp_run_config cfg;
    char err[8192];
    assert_int_equal(PARSE(WASP_CLI_DETACH, &cfg, err, "99"), WASP_RUN_OK);
    assert_int_equal(cfg.pid, 99);
    assert_string_equal(cfg.agent.file, ""); /* from the record */
    assert_int_equal(PARSE(WASP_CLI_DETACH, &cfg, err, "-o", "p.wprof", "--by", "instruction",
                           "-q", "--agent", "/x/libwasp.so", "99"),
                     WASP_RUN_OK);
    assert_string_equal(cfg.agent.file, "p.wprof");
    assert_int_equal(cfg.output_given, 1);
    assert_int_equal(cfg.report.by, WASP_BY_INSTRUCTION);
    assert_string_equal(cfg.agent_path, "/x/libwasp.so");

    /* Agent options belong to attach; -d too. */
    assert_int_equal(PARSE(WASP_CLI_DETACH, &cfg, err, "-e", "deadstore", "99"), WASP_RUN_ERROR);
    assert_string_equal(err, "wasp detach: unknown option '-e' (accepted: -o/--output, --format, "
                             "--top, --by, --thread, -v/--verbose, -q/--quiet, --agent, -h/--help)");
    assert_int_equal(PARSE(WASP_CLI_DETACH, &cfg, err, "-d", "3", "99"), WASP_RUN_ERROR);
    assert_int_equal(PARSE(WASP_CLI_DETACH, &cfg, err, "--period", "1ms", "99"), WASP_RUN_ERROR);
    assert_int_equal(PARSE(WASP_CLI_DETACH, &cfg, err, "-q"), WASP_RUN_ERROR);
    assert_string_equal(err, "wasp detach: missing the PID of the JVM, e.g. wasp detach 1234");
    /* run is unchanged: no -d, no PID. */
    assert_int_equal(PARSE(WASP_CLI_RUN, &cfg, err, "-d", "3", "--", "java"), WASP_RUN_ERROR);
    assert_contains(err, "wasp run: unknown option '-d'");
}

static void test_attach_agent_options(void **state)
{
    (void)state;
    wasp_run_config cfg;
    char err[8192], opts[3 * WASP_PATH_MAX];
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "-e", "deadstore,silentload",
                           "--watchpoints", "2", "-o", "/data/x.wprof", "55"),
                     WASP_RUN_OK);
    assert_int_equal(wasp_attach_agent_options(&cfg, opts, sizeof opts, err, sizeof err), 0);
    assert_string_equal(opts,
                        "events=deadstore+silentload,watchpoints=2,file=/data/x.wprof,"
                        "log=/data/x.wprof.log,action=start");
    /* What the agent gets parses back to the same options. */
    wasp_options back;
    assert_int_equal(wasp_options_parse(opts, &back, err, sizeof err), 0);
    assert_int_equal(back.events, cfg.agent.events);
    assert_int_equal(back.watchpoints, 2);
    assert_int_equal(back.action, WASP_ACTION_START);

    /* A device or a pipe as the output: no log (nor progress file) beside
     * it — /dev/null.log would be a new file in /dev. */
    assert_true(wasp_attach_files_beside("/data/x.wprof")); /* not there yet */
    assert_false(wasp_attach_files_beside("/dev/null"));
    /* Paths that are another file in the JVM: refused by attach. */
    assert_true(wasp_attach_output_per_process("/dev/stdout"));
    assert_true(wasp_attach_output_per_process("/dev/fd/1"));
    assert_true(wasp_attach_output_per_process("/proc/self/fd/2"));
    assert_false(wasp_attach_output_per_process("/dev/null"));
    assert_false(wasp_attach_output_per_process("/data/x.wprof"));
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "-e", "deadstore", "-o", "/dev/null", "55"),
                     WASP_RUN_OK);
    assert_int_equal(wasp_attach_agent_options(&cfg, opts, sizeof opts, err, sizeof err), 0);
    assert_string_equal(opts, "events=deadstore,file=/dev/null,action=start");

    /* An output path the protocol's 1024 bytes cannot carry. */
    char path[1100] = "/";
    memset(path + 1, 'p', 1050);
    path[1051] = '\0';
    assert_int_equal(PARSE(WASP_CLI_ATTACH, &cfg, err, "-o", path, "55"), WASP_RUN_OK);
    assert_int_equal(wasp_attach_agent_options(&cfg, opts, sizeof opts, err, sizeof err), -1);
    assert_contains(err, "wasp attach: the agent option string is 2129 bytes, more than the "
                         "1024 the attach protocol carries; choose a shorter -o path");
}

/* ---- the record attach leaves for detach ---- */

static void test_state_file(void **state)
{
    (void)state;
    const int pid = 2000000000; /* no such process */
    char path[128], err[256];
    wasp_attach_state_path(pid, path, sizeof path);
    char want[128];
    snprintf(want, sizeof want, "/tmp/wasp-attach-%u-%d", (unsigned)geteuid(), pid);
    assert_string_equal(path, want);
    unlink(path);

    wasp_attach_state s = {0}, r;
    strcpy(s.file, "/data/app.wprof");
    strcpy(s.agent, "/opt/wasp/lib/libwasp.so");
    s.start_time = 123456;
    assert_int_equal(wasp_attach_state_read(pid, &r), -1);
    assert_int_equal(wasp_attach_state_write(pid, &s, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(wasp_attach_state_read(pid, &r), 0);
    assert_string_equal(r.file, s.file);
    assert_string_equal(r.agent, s.agent);
    assert_true(r.start_time == 123456);
    assert_int_equal(r.death.n, 0);
    /* Where the JVM's fatal-error report would go, for a detach after it died. */
    wasp_jvm_death_from(&s.death, pid, "/app", NULL, NULL, 1700000000);
    assert_int_equal(wasp_attach_state_write(pid, &s, err, sizeof err), 0);
    assert_int_equal(wasp_attach_state_read(pid, &r), 0);
    assert_int_equal(r.death.n, 2);
    assert_true(r.death.since == 1700000000);
    assert_string_equal(r.death.file[0], "/app/hs_err_pid2000000000.log");
    assert_string_equal(r.death.file[1], "/tmp/hs_err_pid2000000000.log");
    assert_false(r.has_profile_before);
    /* The profile file as the session began: a later one is the session's. */
    char prof[300];
    snprintf(prof, sizeof prof, "%s/session.wprof", fx.dir);
    FILE *pf = fopen(prof, "w");
    assert_non_null(pf);
    fclose(pf);
    s.has_profile_before = true;
    s.profile_before = wasp_file_id_of(prof);
    assert_int_equal(wasp_attach_state_write(pid, &s, err, sizeof err), 0);
    assert_int_equal(wasp_attach_state_read(pid, &r), 0);
    assert_true(r.has_profile_before);
    assert_false(wasp_file_is_new(&r.profile_before, prof));
    char renamed[320];
    snprintf(renamed, sizeof renamed, "%s.tmp", prof); /* as the agent writes: a new file */
    pf = fopen(renamed, "w");
    assert_non_null(pf);
    fclose(pf);
    assert_int_equal(rename(renamed, prof), 0);
    assert_true(wasp_file_is_new(&r.profile_before, prof));
    s.profile_before = (wasp_file_id){0}; /* none then */
    assert_int_equal(wasp_attach_state_write(pid, &s, err, sizeof err), 0);
    assert_int_equal(wasp_attach_state_read(pid, &r), 0);
    assert_true(r.has_profile_before && !r.profile_before.exists);
    assert_true(wasp_file_is_new(&r.profile_before, prof));
    /* Rewritten in place. */
    strcpy(s.file, "/data/other.wprof");
    assert_int_equal(wasp_attach_state_write(pid, &s, err, sizeof err), 0);
    assert_int_equal(wasp_attach_state_read(pid, &r), 0);
    assert_string_equal(r.file, "/data/other.wprof");
    unlink(path);

    /* A link planted there is not followed. */
    char target[300];
    snprintf(target, sizeof target, "%s/planted", fx.dir);
    FILE *f = fopen(target, "w");
    assert_non_null(f);
    fputs("file=/etc/passwd\n", f);
    fclose(f);
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(wasp_attach_state_read(pid, &r), -1);
    unlink(path);

    /* Newlines cannot be recorded. */
    strcpy(s.file, "/data/a\nb.wprof");
    assert_int_equal(wasp_attach_state_write(pid, &s, err, sizeof err), -1);
    assert_int_equal(access(path, F_OK), -1);
}

/* ---- checks before any signal ---- */

/* fork + exec argv; returns once the exec has happened. */
static pid_t spawn(char **argv)
{
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(p[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(p[1]);
    int e = 0;
    ssize_t r;
    do
        r = read(p[0], &e, sizeof e);
    while (r < 0 && errno == EINTR);
    close(p[0]);
    if (r > 0)
        fail_msg("cannot run %s: %s", argv[0], strerror(e));
    return pid;
}

static void test_no_process(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0); /* now a pid with no process */
    wasp_hs_target t;
    char err[512], pidarg[16];
    assert_int_equal(wasp_hs_inspect(pid, &t, err, sizeof err), WASP_HS_NO_PROCESS);
    char want[64];
    snprintf(want, sizeof want, "no process %d", (int)pid);
    assert_string_equal(err, want);
    snprintf(pidarg, sizeof pidarg, "%d", (int)pid);
    assert_int_equal(wasp_cmd_attach(4, ARGV("attach", "--agent", fx.agent, pidarg)), 1);
    assert_int_equal(wasp_cmd_detach(4, ARGV("detach", "-o", "/tmp/x.wprof", pidarg)), 1);
}

static void test_refuses_non_jvm(void **state)
{
    (void)state;
    pid_t pid = spawn(ARGV("sleep", "60"));
    wasp_hs_target t;
    char err[512], want[128], pidarg[16];
    assert_int_equal(wasp_hs_inspect(pid, &t, err, sizeof err), WASP_HS_NOT_JVM);
    snprintf(want, sizeof want, "process %d (sleep) is not a HotSpot JVM", (int)pid);
    assert_string_equal(err, want);

    /* The whole command refuses too, and the process got no SIGQUIT (which
     * would have killed it). */
    snprintf(pidarg, sizeof pidarg, "%d", (int)pid);
    assert_int_equal(wasp_cmd_attach(4, ARGV("attach", "--agent", fx.agent, pidarg)), 1);
    assert_int_equal(wasp_cmd_detach(4, ARGV("detach", "-o", "/tmp/x.wprof", pidarg)), 1);
    assert_true(alive(pid));
    char attach_file[128];
    snprintf(attach_file, sizeof attach_file, "/proc/%d/cwd/.attach_pid%d", (int)pid, (int)pid);
    assert_int_equal(access(attach_file, F_OK), -1);
    reap(pid);
}

static void test_refuses_other_user(void **state)
{
    (void)state;
    wasp_hs_target t;
    char err[512];
    if (geteuid() != 0) {
        struct stat st;
        if (stat("/proc/1", &st) < 0 || st.st_uid == geteuid())
            skip();
        assert_int_equal(wasp_hs_inspect(1, &t, err, sizeof err), WASP_HS_OTHER_USER);
        assert_contains(err, "process 1 belongs to user ");
        assert_contains(err, "; attach as that user (HotSpot accepts attach only from its own "
                             "user)");
        return;
    }
    /* As root: a child turned into nobody looks at us. */
    pid_t me = getpid();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (become_nobody() != 0)
            _exit(3);
        int rc = wasp_hs_inspect(me, &t, err, sizeof err);
        char want[160];
        snprintf(want, sizeof want,
                 "process %d belongs to user root; attach as that user (HotSpot accepts attach "
                 "only from its own user)",
                 (int)me);
        _exit(rc == WASP_HS_OTHER_USER && !strcmp(err, want) ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- the handshake, against a fake JVM ---- */

/* What the fake JVM does on SIGQUIT. */
enum fake_mode {
    FAKE_IGNORES_QUIT, /* does not catch SIGQUIT (a JVM still starting, or not one) */
    FAKE_NEVER_LISTENS, /* catches it, never opens the socket */
    FAKE_SERVES        /* opens the socket when the attach file is there, answers once */
};

struct fake_jvm {
    pid_t pid;
    int rfd; /* its reports: 'R' ready, 'Q' got SIGQUIT, 'F' saw the attach file, then
                the request (size_t length + bytes) */
};

static volatile sig_atomic_t fake_quits;
static void fake_on_quit(int sig)
{
    (void)sig;
    fake_quits++;
}

static void fake_report(int fd, const void *p, size_t n)
{
    ssize_t w = write(fd, p, n);
    (void)w;
}

static void fake_serve(int wfd, const char *reply)
{
    char path[108];
    snprintf(path, sizeof path, "/tmp/.java_pid%d", (int)getpid());
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, path);
    unlink(path);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || chmod(path, 0600) < 0 ||
        listen(s, 1) < 0)
        _exit(4);
    int c = accept(s, NULL, NULL);
    if (c < 0)
        _exit(5);
    char req[8192];
    size_t len = 0;
    int nuls = 0;
    while (nuls < 5 && len < sizeof req) {
        ssize_t r = read(c, req + len, sizeof req - len);
        if (r <= 0)
            break;
        for (ssize_t i = 0; i < r; i++)
            nuls += req[len + (size_t)i] == '\0';
        len += (size_t)r;
    }
    fake_report(wfd, &len, sizeof len);
    fake_report(wfd, req, len);
    fake_report(wfd, reply, strlen(reply));
    if (write(c, reply, strlen(reply)) < 0)
        _exit(6);
    close(c);
    close(s);
    unlink(path);
    _exit(0);
}

static struct fake_jvm fake_jvm_start(enum fake_mode mode, const char *reply)
{
    /* A file named libjvm.so to map, so that the process passes for a JVM. */
    char lib[300];
    snprintf(lib, sizeof lib, "%s/libjvm.so", fx.dir);
    FILE *f = fopen(lib, "w");
    assert_non_null(f);
    fputs("not really a JVM\n", f);
    fclose(f);

    int p[2];
    assert_int_equal(pipe(p), 0);
    struct fake_jvm fj = {0};
    fj.pid = fork();
    assert_true(fj.pid >= 0);
    if (fj.pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the test binary */
        close(p[0]);
        if (chdir(fx.dir) < 0)
            _exit(2);
        int fd = open(lib, O_RDONLY);
        if (fd < 0 || mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
            _exit(2);
        sigset_t block, old;
        sigemptyset(&block);
        sigaddset(&block, SIGQUIT);
        sigprocmask(SIG_BLOCK, &block, &old);
        sigdelset(&old, SIGQUIT);
        if (mode != FAKE_IGNORES_QUIT) {
            struct sigaction sa = {.sa_handler = fake_on_quit};
            sigemptyset(&sa.sa_mask);
            sigaction(SIGQUIT, &sa, NULL);
        } else {
            signal(SIGQUIT, SIG_DFL);
            sigprocmask(SIG_UNBLOCK, &block, NULL);
        }
        fake_report(p[1], "R", 1);
        int seen = 0;
        for (;;) {
            while (fake_quits == seen)
                sigsuspend(&old);
            seen = fake_quits;
            fake_report(p[1], "Q", 1);
            if (mode != FAKE_SERVES)
                continue;
            char name[64];
            snprintf(name, sizeof name, ".attach_pid%d", (int)getpid());
            if (access(name, F_OK) == 0) { /* as HotSpot: the file in the cwd */
                fake_report(p[1], "F", 1);
                fake_serve(p[1], reply);
            }
        }
    }
    close(p[1]);
    fj.rfd = p[0];
    char c = 0;
    assert_int_equal(read(fj.rfd, &c, 1), 1);
    assert_int_equal(c, 'R');
    return fj;
}

/* Read n bytes of the fake JVM's reports (waiting at most 10 s). */
static void fake_read(struct fake_jvm *fj, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd p = {.fd = fj->rfd, .events = POLLIN};
        if (poll(&p, 1, 10000) <= 0)
            fail_msg("the fake JVM reported nothing");
        ssize_t r = read(fj->rfd, (char *)buf + got, n - got);
        if (r <= 0)
            fail_msg("the fake JVM exited");
        got += (size_t)r;
    }
}

static void fake_jvm_stop(struct fake_jvm *fj)
{
    reap(fj->pid);
    close(fj->rfd);
    char path[64];
    snprintf(path, sizeof path, "/tmp/.java_pid%d", (int)fj->pid);
    unlink(path);
}

static void test_handshake_refuses_without_sigquit_handler(void **state)
{
    (void)state;
    struct fake_jvm fj = fake_jvm_start(FAKE_IGNORES_QUIT, NULL);
    wasp_hs_target t;
    char err[1024], sock[256];
    assert_int_equal(wasp_hs_inspect(fj.pid, &t, err, sizeof err), WASP_HS_OK);
    assert_int_equal(wasp_hs_catches_sigquit(fj.pid), 0);
    assert_int_equal(wasp_hs_start_listener(&t, 1000, sock, sizeof sock, err, sizeof err), -1);
    assert_contains(err, "does not catch SIGQUIT");
    assert_contains(err, "no signal was sent");
    assert_true(alive(fj.pid));
    char attach_file[300];
    snprintf(attach_file, sizeof attach_file, "%s/.attach_pid%d", fx.dir, (int)fj.pid);
    assert_int_equal(access(attach_file, F_OK), -1);
    fake_jvm_stop(&fj);
}

static void test_handshake_timeout(void **state)
{
    (void)state;
    struct fake_jvm fj = fake_jvm_start(FAKE_NEVER_LISTENS, NULL);
    wasp_hs_target t;
    char err[1024], sock[256];
    assert_int_equal(wasp_hs_inspect(fj.pid, &t, err, sizeof err), WASP_HS_OK);
    assert_int_equal(wasp_hs_catches_sigquit(fj.pid), 1);
    assert_int_equal(wasp_hs_start_listener(&t, 400, sock, sizeof sock, err, sizeof err), -1);
    assert_string_equal(err, "the JVM did not open its attach socket within 400 ms (started "
                             "with -XX:+DisableAttachMechanism?)");
    char c;
    fake_read(&fj, &c, 1);
    assert_int_equal(c, 'Q');
    assert_true(alive(fj.pid));
    /* The .attach_pid file is gone again. */
    char attach_file[300];
    snprintf(attach_file, sizeof attach_file, "%s/.attach_pid%d", fx.dir, (int)fj.pid);
    assert_int_equal(access(attach_file, F_OK), -1);
    fake_jvm_stop(&fj);
}

static void handshake_with_reply(const char *reply, int want_rc, const char *want_err)
{
    struct fake_jvm fj = fake_jvm_start(FAKE_SERVES, reply);
    wasp_hs_target t;
    wasp_hs_load_result res;
    char err[2048] = "";
    assert_int_equal(wasp_hs_inspect(fj.pid, &t, err, sizeof err), WASP_HS_OK);
    assert_string_equal(t.name, "test_attach");
    int rc = wasp_hs_load_agent(&t, "/opt/wasp/lib/libwasp.so", "events=deadstore,action=start",
                                5000, &res, err, sizeof err);
    assert_int_equal(rc, want_rc);
    if (want_err)
        assert_contains(err, want_err);

    char c[2];
    fake_read(&fj, c, 2);
    assert_memory_equal(c, "QF", 2);
    size_t len;
    char req[8192];
    fake_read(&fj, &len, sizeof len);
    assert_true(len < sizeof req);
    fake_read(&fj, req, len);
    static const char want[] = "1\0load\0/opt/wasp/lib/libwasp.so\0true\0"
                               "events=deadstore,action=start";
    assert_int_equal(len, sizeof want);
    assert_memory_equal(req, want, sizeof want);

    int status;
    assert_int_equal(waitpid(fj.pid, &status, 0), fj.pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char attach_file[300];
    snprintf(attach_file, sizeof attach_file, "%s/.attach_pid%d", fx.dir, (int)fj.pid);
    assert_int_equal(access(attach_file, F_OK), -1);
    close(fj.rfd);
}

static void test_handshake_and_replies(void **state)
{
    (void)state;
    handshake_with_reply("0\n0\n", 0, NULL);
    handshake_with_reply("0\nreturn code: 0\n", 0, NULL);
    handshake_with_reply("0\nreturn code: 3\n", -1, "Agent_OnAttach returned 3");
    handshake_with_reply("-1\nDynamic agent loading is not enabled.\n", -1,
                         "refused to load the agent (status -1): Dynamic agent loading is not "
                         "enabled.");
}

/* ---- real JVMs, with the fake agent ---- */

struct jvm {
    pid_t pid;
    char pidarg[16];
    char err[300]; /* its stderr */
};

/* Start `java -cp CLASSES Lifecycle forever` and return once it printed
 * "ready". Returns 0, or -1 when java cannot be run (skipped). */
static int jvm_start(const char *java, struct jvm *j)
{
    if (access(fx.classes, F_OK) != 0 &&
        sh("javac --release 17 -d '%s' tests/workloads/Lifecycle.java", fx.classes) != 0)
        fail_msg("cannot compile tests/workloads/Lifecycle.java");
    snprintf(j->err, sizeof j->err, "%s/jvm.err", fx.dir);
    int out[2], ex[2];
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe2(ex, O_CLOEXEC), 0);
    fflush(NULL);
    j->pid = fork();
    assert_true(j->pid >= 0);
    if (j->pid == 0) {
        close(out[0]);
        close(ex[0]);
        dup2(out[1], 1);
        int e = open(j->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (e >= 0)
            dup2(e, 2);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the test binary */
        execlp(java, java, "-cp", fx.classes, "Lifecycle", "forever", (char *)NULL);
        int errnum = errno;
        ssize_t w = write(ex[1], &errnum, sizeof errnum);
        (void)w;
        _exit(127);
    }
    fx.jvm = j->pid;
    close(out[1]);
    close(ex[1]);
    int errnum;
    ssize_t r = read(ex[0], &errnum, sizeof errnum);
    close(ex[0]);
    if (r == (ssize_t)sizeof errnum) {
        waitpid(j->pid, NULL, 0);
        fx.jvm = 0;
        close(out[0]);
        print_message("skipping %s: %s\n", java, strerror(errnum));
        return -1;
    }
    FILE *f = fdopen(out[0], "r");
    char line[256];
    int ready = 0;
    while (!ready && fgets(line, sizeof line, f))
        ready = !strcmp(line, "ready\n");
    fclose(f); /* the JVM may write more: it does not, in this mode */
    if (!ready) {
        sh("cat '%s' >&2", j->err);
        fail_msg("%s did not print ready", java);
    }
    snprintf(j->pidarg, sizeof j->pidarg, "%d", (int)j->pid);
    return 0;
}

static void jvm_stop(struct jvm *j)
{
    kill(j->pid, SIGTERM); /* a clean exit removes its attach socket */
    int status;
    while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
        ;
    fx.jvm = 0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/.java_pid%d", (int)j->pid);
    unlink(path);
}

static void round_trip(const char *java)
{
    struct jvm j;
    if (jvm_start(java, &j) < 0)
        return;
    print_message("JVM %d: %s\n", (int)j.pid, java);
    char prof[300], log[400], src[320], rcfile[320], line[8192], want[8192], state[128];
    snprintf(prof, sizeof prof, "%s/e2e-%d.wprof", fx.dir, (int)j.pid);
    snprintf(log, sizeof log, "%s.attach-log", prof);
    snprintf(src, sizeof src, "%s.src", prof);
    wasp_attach_state_path(j.pid, state, sizeof state);

    /* attach: the agent gets the options, the record is written. */
    assert_int_equal(wasp_cmd_attach(ARGC("attach", "--agent", fx.agent, "-e", "deadstore",
                                          "--max-frames", "64", "-o", prof, j.pidarg),
                                     ARGV("attach", "--agent", fx.agent, "-e", "deadstore",
                                          "--max-frames", "64", "-o", prof, j.pidarg)),
                     0);
    assert_non_null(file_line(log, 0, line, sizeof line));
    snprintf(want, sizeof want,
             "events=deadstore,max-frames=64,file=%s,log=%s.log,action=start", prof, prof);
    assert_string_equal(line, want);
    wasp_attach_state st;
    assert_int_equal(wasp_attach_state_read(j.pid, &st), 0);
    assert_string_equal(st.file, prof);
    char agent_real[PATH_MAX];
    assert_non_null(realpath(fx.agent, agent_real));
    assert_string_equal(st.agent, agent_real);
    assert_true(st.start_time != 0);

    /* detach: action=stop, the "profile" appears, the report is printed,
     * the record is gone. */
    sh("cp '%s' '%s'", fx.fixture, src);
    render_calls = 0;
    assert_int_equal(wasp_cmd_detach(2, ARGV("detach", j.pidarg)), 0);
    assert_int_equal(render_calls, 1);
    assert_non_null(file_line(log, 1, line, sizeof line));
    snprintf(want, sizeof want, "action=stop,log=%s.log", prof);
    assert_string_equal(line, want);
    assert_int_equal(access(prof, R_OK), 0);
    assert_int_equal(access(state, F_OK), -1);
    /* A second detach has nothing to go on: no record; the agent, named
     * by --agent, is mapped, so a session may run (exit 2: pass -o).
     * Without --agent no libwasp.so is mapped (the fixture's agent has
     * another name): not profiled (exit 1). */
    assert_int_equal(wasp_cmd_detach(4, ARGV("detach", "--agent", fx.agent, j.pidarg)), 2);
    assert_int_equal(wasp_cmd_detach(2, ARGV("detach", j.pidarg)), 1);

    /* attach -d: the whole cycle in one command (relative -o: made absolute). */
    char cwd[PATH_MAX], rel[64];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(fx.dir), 0);
    snprintf(rel, sizeof rel, "d-%d.wprof", (int)j.pid);
    sh("cp '%s' '%s.src'", fx.fixture, rel);
    unlink(rel);
    render_calls = 0;
    int rc = wasp_cmd_attach(
        ARGC("attach", "--agent", fx.agent, "-d", "1", "-o", rel, "--top", "1", j.pidarg),
        ARGV("attach", "--agent", fx.agent, "-d", "1", "-o", rel, "--top", "1", j.pidarg));
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(rc, 0);
    assert_int_equal(render_calls, 1);
    snprintf(log, sizeof log, "%s/%s.attach-log", fx.dir, rel);
    assert_non_null(file_line(log, 0, line, sizeof line));
    snprintf(want, sizeof want, "file=%s/%s,log=%s/%s.log,action=start", fx.dir, rel, fx.dir,
             rel);
    assert_string_equal(line, want);
    assert_non_null(file_line(log, 1, line, sizeof line));
    snprintf(want, sizeof want, "action=stop,log=%s/%s.log", fx.dir, rel);
    assert_string_equal(line, want);
    assert_int_equal(access(state, F_OK), -1);

    /* The agent refuses: non-zero Agent_OnAttach is a failure, no record. */
    snprintf(prof, sizeof prof, "%s/refused-%d.wprof", fx.dir, (int)j.pid);
    snprintf(rcfile, sizeof rcfile, "%s.rc", prof);
    FILE *f = fopen(rcfile, "w");
    assert_non_null(f);
    fputs("5\n", f);
    fclose(f);
    assert_int_equal(
        wasp_cmd_attach(6, ARGV("attach", "--agent", fx.agent, "-o", prof, j.pidarg)), 1);
    assert_int_equal(access(state, F_OK), -1);

    /* The JVM cannot load the library at all. */
    char notlib[300];
    snprintf(notlib, sizeof notlib, "%s/notalib.so", fx.dir);
    f = fopen(notlib, "w");
    assert_non_null(f);
    fputs("text\n", f);
    fclose(f);
    assert_int_equal(wasp_cmd_attach(4, ARGV("attach", "--agent", notlib, j.pidarg)), 1);

    assert_true(alive(j.pid)); /* through all of it */
    jvm_stop(&j);
}

static void test_real_jvms(void **state)
{
    (void)state;
    const char *list = getenv("WASP_TEST_JAVA");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", list && *list ? list : "java");
    for (char *save = NULL, *java = strtok_r(buf, ":", &save); java;
         java = strtok_r(NULL, ":", &save))
        round_trip(java);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_bytes),
        cmocka_unit_test(test_parse_status),
        cmocka_unit_test(test_parse_load_output),
        cmocka_unit_test(test_load_verdict),
        cmocka_unit_test(test_hs_err_reports),
        cmocka_unit_test(test_parse_attach),
        cmocka_unit_test(test_parse_detach),
        cmocka_unit_test(test_attach_agent_options),
        cmocka_unit_test(test_state_file),
        cmocka_unit_test(test_no_process),
        cmocka_unit_test(test_refuses_non_jvm),
        cmocka_unit_test(test_refuses_other_user),
        cmocka_unit_test(test_handshake_refuses_without_sigquit_handler),
        cmocka_unit_test(test_handshake_timeout),
        cmocka_unit_test(test_handshake_and_replies),
        cmocka_unit_test(test_real_jvms),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
