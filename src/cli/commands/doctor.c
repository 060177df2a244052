/*
 * `wasp doctor` (see doctor.h): gather the facts first, then print them as
 * text or as one JSON object. Every proof is the agent's own (the samplers'
 * wasp_source_prove, the engines' self_test), run on this thread.
 */
#include "cli/commands/doctor.h"

#include "agent/options.h"
#include "cli/render/json_writer.h"
#include "sample/signal.h"
#include "sample/source.h"
#include "watch/engine.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LABEL "  %-18s"
#define NEEDED_JDK 17

enum { MAX_JDKS = 32, MAX_ENGINES = 4, MAX_SAMPLERS = 4 };

typedef struct verdict {
    bool ok;
    char why[1536]; /* when !ok: what failed, with advice */
    char cause[1024]; /* when !ok: what failed, without the perf refusal's advice */
} verdict;

/* Where a JDK was found (it may be found several ways). */
enum { VIA_JVM_DIR = 1, VIA_JAVA_HOME = 2, VIA_PATH = 4 };

typedef struct jdk {
    char path[PATH_MAX]; /* realpath of bin/java */
    char version[256];   /* first line of `java -version`, or why there is none */
    bool version_ok;     /* version[] is java's own line */
    int major;           /* feature release parsed from it, 0 when unknown */
    int via;
} jdk;

typedef struct facts {
    char kernel[sizeof(((struct utsname *)0)->release)];
    char machine[sizeof(((struct utsname *)0)->machine)];
    int paranoid;        /* -1: unreadable */
    verdict perf;        /* perf_event_open works */
    int seccomp;         /* 0 none, 1 strict, 2 filter, -1 unknown */
    int sigtrap;         /* 1 perf sigtrap, 0 F_SETSIG route, -1 unknown (no perf events) */
    verdict samplers[MAX_SAMPLERS]; /* as wasp_samplers lists them */
    bool sampler_present[MAX_SAMPLERS]; /* false: not proven, its absent_why says why */
    int nsamplers;
    verdict engines[MAX_ENGINES]; /* as wasp_watch_engines lists them */
    uint64_t engine_ns[MAX_ENGINES];
    double engine_string_slowdown[MAX_ENGINES]; /* string moves under a watch: times slower */
    int nengines;
    int numa_nodes;      /* 0: unknown */
    jdk jdks[MAX_JDKS];
    int njdks;
    const char *sampler; /* what auto would choose, NULL: none */
    const char *watch;
} facts;

void wasp_doctor_usage(FILE *out)
{
    fputs("Usage: wasp doctor [--json]\n"
          "\n"
          "Prints what this machine supports and what wasp would use here, each\n"
          "missing item with what to do about it: the kernel, perf events\n"
          "(kernel.perf_event_paranoid), the seccomp mode, perf sigtrap (Linux 5.13+),\n"
          "the samplers (pmu when a hardware PMU is present, perf, timer), the\n"
          "watchpoint engines (debug registers, page protection) with the measured\n"
          "cost of one event, the NUMA nodes, and the JDKs found (/usr/lib/jvm,\n"
          "$JAVA_HOME, java on PATH) with their versions.\n"
          "\n"
          "Samplers and engines are proven as the agent proves them when profiling\n"
          "starts: a sample or a trap must arrive, not merely a system call succeed.\n"
          "Takes a few seconds: it also runs each JDK's `java -version`.\n"
          "\n"
          "Options:\n"
          "      --json               print the same facts as one JSON object\n"
          "  -h, --help               this help\n"
          "\n"
          "Exit status: 0 when a sampler and a watchpoint engine both work here\n"
          "(wasp can profile); 1 when not; 2 on a bad option.\n"
          "\n"
          "Examples:\n"
          "  wasp doctor\n"
          "  wasp doctor --json > machine.json\n",
          out);
}

/* ------------------------------------------------------------------ */
/* Gathering                                                           */

/* kernel.perf_event_paranoid is readable (-1 is also a value it takes). */
static bool paranoid_known(int paranoid)
{
    return paranoid != -1 || access("/proc/sys/kernel/perf_event_paranoid", R_OK) == 0;
}

static int read_seccomp(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    int mode = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Seccomp: %d", &mode) == 1)
            break;
    fclose(f);
    return mode;
}

static void probe_sampler(wasp_source *s, const wasp_source_config *c, const verdict *perf,
                          verdict *v)
{
    char err[512] = "";
    v->ok = true;
    s->wants = WASP_WANTS_LOADS | WASP_WANTS_STORES; /* the default analyses' */
    if (wasp_source_prove(s, c, err, sizeof err) != 0) {
        snprintf(v->cause, sizeof v->cause, "%s", err);
        /* As the agent says it (agent/probe.c): the perf refusal's advice. */
        if (s->uses_perf && !perf->ok)
            snprintf(v->why, sizeof v->why, "%.900s (%.600s)", err, perf->why);
        else
            snprintf(v->why, sizeof v->why, "%s", err);
        v->ok = false;
    }
}

static void probe_engine(const wasp_watch_engine *e, const verdict *perf, verdict *v,
                         uint64_t *ns)
{
    char err[1024] = "";
    *ns = 0;
    v->ok = e->self_test(err, sizeof err, ns) == 0;
    if (v->ok)
        return;
    snprintf(v->cause, sizeof v->cause, "%s", err);
    if (e->uses_perf && !perf->ok)
        snprintf(v->why, sizeof v->why, "%.900s (%.600s)", err, perf->why);
    else
        snprintf(v->why, sizeof v->why, "%s", err);
}

static int count_numa_nodes(void)
{
    DIR *d = opendir("/sys/devices/system/node");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *p = e->d_name;
        if (strncmp(p, "node", 4) != 0 || !isdigit((unsigned char)p[4]))
            continue;
        for (p += 4; isdigit((unsigned char)*p); p++)
            ;
        if (!*p)
            n++;
    }
    closedir(d);
    return n;
}

/* The feature release in a `java -version` line: "17.0.9" -> 17, "1.8.0_392" -> 8. */
static int java_major(const char *line)
{
    const char *q = strchr(line, '"');
    if (!q)
        return 0;
    int a = 0, b = 0;
    if (sscanf(q + 1, "%d.%d", &a, &b) >= 1)
        return a == 1 ? b : a;
    return 0;
}

static void java_version(jdk *j)
{
    j->version_ok = false;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(j->version, sizeof j->version, "cannot run it: pipe: %s", strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(j->version, sizeof j->version, "cannot run it: fork: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        dup2(p[1], 1);
        dup2(p[1], 2);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execl(j->path, j->path, "-version", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    char buf[4096];
    size_t used = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool timed_out = false;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
        if (ms >= WASP_DOCTOR_JAVA_TIMEOUT_MS) {
            timed_out = true;
            break;
        }
        struct pollfd pf = {.fd = p[0], .events = POLLIN};
        int r = poll(&pf, 1, (int)(WASP_DOCTOR_JAVA_TIMEOUT_MS - ms));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue; /* the deadline is checked above */
        char chunk[1024];
        ssize_t n = read(p[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        size_t take = (size_t)n < sizeof buf - 1 - used ? (size_t)n : sizeof buf - 1 - used;
        memcpy(buf + used, chunk, take);
        used += take;
    }
    close(p[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    buf[used] = '\0';
    /* The first line that is java's own (JAVA_TOOL_OPTIONS adds "Picked up ..."). */
    const char *first = NULL;
    size_t flen = 0;
    for (char *line = buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        size_t len = next ? (size_t)(next - line) : strlen(line);
        if (next)
            next++;
        while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
            len--;
        if (!len || !strncmp(line, "Picked up ", 10) || !strncmp(line, "NOTE: ", 6))
            continue;
        first = line;
        flen = len;
        break;
    }
    if (timed_out) {
        snprintf(j->version, sizeof j->version, "`java -version` did not finish in %d s",
                 WASP_DOCTOR_JAVA_TIMEOUT_MS / 1000);
    } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        snprintf(j->version, sizeof j->version, "`java -version` failed (exit %d)%s%.*s", code,
                 first ? ": " : "", first ? (int)(flen > 160 ? 160 : flen) : 0,
                 first ? first : "");
    } else if (!first) {
        snprintf(j->version, sizeof j->version, "`java -version` printed nothing");
    } else {
        snprintf(j->version, sizeof j->version, "%.*s",
                 (int)(flen < sizeof j->version - 1 ? flen : sizeof j->version - 1), first);
        j->version_ok = true;
        j->major = java_major(j->version);
    }
}

static void add_jdk(facts *f, const char *candidate, int via)
{
    struct stat st;
    if (access(candidate, X_OK) != 0 || stat(candidate, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    char real[PATH_MAX];
    if (!realpath(candidate, real))
        return;
    for (int i = 0; i < f->njdks; i++)
        if (!strcmp(f->jdks[i].path, real)) {
            f->jdks[i].via |= via;
            return;
        }
    if (f->njdks == MAX_JDKS)
        return;
    jdk *j = &f->jdks[f->njdks++];
    memset(j, 0, sizeof *j);
    snprintf(j->path, sizeof j->path, "%s", real);
    j->via = via;
}

static void find_jdks(facts *f)
{
    glob_t g;
    if (glob("/usr/lib/jvm/*/bin/java", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++)
            add_jdk(f, g.gl_pathv[i], VIA_JVM_DIR);
        globfree(&g);
    }
    const char *home = getenv("JAVA_HOME");
    char path[PATH_MAX];
    if (home && *home && snprintf(path, sizeof path, "%s/bin/java", home) < (int)sizeof path)
        add_jdk(f, path, VIA_JAVA_HOME);
    /* The java a shell would run: the first executable one on PATH ("" is "."). */
    const char *d = getenv("PATH");
    while (d && *d) {
        size_t len = strcspn(d, ":");
        struct stat st;
        int n = snprintf(path, sizeof path, "%.*s/java", len ? (int)len : 1, len ? d : ".");
        if (n < (int)sizeof path && access(path, X_OK) == 0 && stat(path, &st) == 0 &&
            S_ISREG(st.st_mode)) {
            add_jdk(f, path, VIA_PATH);
            break;
        }
        d = d[len] ? d + len + 1 : NULL;
    }
    for (int i = 0; i < f->njdks; i++)
        java_version(&f->jdks[i]);
}

static void gather(facts *f)
{
    memset(f, 0, sizeof *f);
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(f->kernel, sizeof f->kernel, "%s", u.release);
        snprintf(f->machine, sizeof f->machine, "%s", u.machine);
    }
    f->paranoid = wasp_perf_paranoid();
    f->perf.ok = wasp_perf_refusal(f->perf.why, sizeof f->perf.why) == 0;
    f->seccomp = read_seccomp();
    /* Decide the route as the agent does before opening any event. */
    wasp_perf_signal_route_init(0);
    f->sigtrap = f->perf.ok ? !wasp_perf_fasync : -1;

    /* Every sampler present, as `auto` tries them, at the default options:
     * the first that works is used. */
    wasp_options o;
    wasp_options_defaults(&o);
    wasp_source_config c = {WASP_PERIOD_DEFAULT_NS, o.pmu_period, o.pmu_event, o.period_jitter};
    for (int i = 0; i < MAX_SAMPLERS && wasp_samplers[i]; i++, f->nsamplers++) {
        wasp_source *s = wasp_samplers[i];
        f->sampler_present[i] = wasp_source_present(s, &c);
        if (f->sampler_present[i])
            probe_sampler(s, &c, &f->perf, &f->samplers[i]);
        else
            snprintf(f->samplers[i].why, sizeof f->samplers[i].why, "%s", s->absent_why);
        if (!f->sampler && f->samplers[i].ok)
            f->sampler = s->name;
    }

    /* Every engine, as `auto` tries them: the first that works is used. */
    for (int i = 0; i < MAX_ENGINES && wasp_watch_engines[i]; i++, f->nengines++) {
        probe_engine(wasp_watch_engines[i], &f->perf, &f->engines[i], &f->engine_ns[i]);
        const wasp_watch_engine *e = wasp_watch_engines[i];
        f->engine_string_slowdown[i] =
            f->engines[i].ok && e->string_slowdown ? e->string_slowdown() : 1.0;
        if (!f->watch && f->engines[i].ok)
            f->watch = wasp_watch_engines[i]->name;
    }

    f->numa_nodes = count_numa_nodes();
    find_jdks(f);
}

/* ------------------------------------------------------------------ */
/* Text                                                                */

/* The first of n mechanisms (as auto tries them) that works, -1: none. */
static int first_ok(const verdict *v, int n)
{
    for (int k = 0; k < n; k++)
        if (v[k].ok)
            return k;
    return -1;
}

/* The end of the line of mechanism i, which does not work: which one wasp
 * uses instead (a later one, label; after lead) or that it is not needed (an
 * earlier one works); nothing when none works (used = -1). */
static void print_instead(int i, int used, const char *label, const char *lead, FILE *out)
{
    if (used >= 0)
        fprintf(out, "; %swasp uses %s%s", used > i ? lead : "not needed: ", label,
                used > i ? " instead" : "");
    fputc('\n', out);
}

static const char *perf_refused(bool uses_perf, const facts *f)
{
    return uses_perf && !f->perf.ok ? " (perf events are refused: see above)" : "";
}

static void print_engine(const facts *f, int i, FILE *out)
{
    const wasp_watch_engine *e = wasp_watch_engines[i];
    const verdict *v = &f->engines[i];
    if (v->ok) {
        fprintf(out, LABEL "works, %.1f µs per %s", e->label, (double)f->engine_ns[i] / 1000.0,
                e->event_word);
        if (f->engine_string_slowdown[i] > 1.0)
            fprintf(out, "; memset and memcpy run %.0fx slower on a thread while one is armed "
                         "(charged to the watch budget)",
                    f->engine_string_slowdown[i]);
        fputc('\n', out);
        return;
    }
    int used = first_ok(f->engines, f->nengines);
    fprintf(out, LABEL "no — %s%s", e->label, v->cause, perf_refused(e->uses_perf, f));
    print_instead(i, used, used >= 0 ? wasp_watch_engines[used]->label : NULL, "", out);
}

/* A sampler's line; one this machine lacks (no PMU) is no failure: there is
 * nothing to do when a later one works. */
static void print_sampler(const facts *f, int i, FILE *out)
{
    const wasp_source *s = wasp_samplers[i];
    const verdict *v = &f->samplers[i];
    if (v->ok) {
        fprintf(out, LABEL "works (%s)\n", s->label, s->how);
        return;
    }
    int used = first_ok(f->samplers, f->nsamplers);
    bool present = f->sampler_present[i];
    if (present)
        fprintf(out, LABEL "no — %s%s", s->label, v->cause, perf_refused(s->uses_perf, f));
    else
        fprintf(out, LABEL "absent — %s", s->label, s->absent_why);
    print_instead(i, used, used >= 0 ? wasp_samplers[used]->label : NULL,
                  present ? "" : "nothing to do: ", out);
}

static void print_text(const facts *f, FILE *out)
{
    fprintf(out, LABEL "%s (%s)%s\n", "kernel", f->kernel[0] ? f->kernel : "unknown",
            f->machine[0] ? f->machine : "?",
            strcmp(f->machine, "x86_64") ? " — wasp supports Linux x86-64 only" : "");

    if (f->perf.ok && !paranoid_known(f->paranoid))
        fprintf(out, LABEL "yes (kernel.perf_event_paranoid unreadable)\n", "perf events");
    else if (f->perf.ok && f->paranoid > 2)
        fprintf(out, LABEL "yes (kernel.perf_event_paranoid=%d, allowed by a capability)\n",
                "perf events", f->paranoid);
    else if (f->perf.ok)
        fprintf(out, LABEL "yes (kernel.perf_event_paranoid=%d)\n", "perf events", f->paranoid);
    else
        fprintf(out, LABEL "no — %s; wasp then needs the timer sampler and page protection (below)\n",
                "perf events", f->perf.why);

    if (f->seccomp == 0)
        fprintf(out, LABEL "none\n", "seccomp");
    else if (f->seccomp == 1)
        fprintf(out, LABEL "strict — only read, write, exit and sigreturn are allowed: nothing "
                           "can be profiled in this process\n", "seccomp");
    else if (f->seccomp == 2 && f->perf.ok)
        fprintf(out, LABEL "filter — it allows perf_event_open here (a filter may refuse it)\n",
                "seccomp");
    else if (f->seccomp == 2)
        fprintf(out, LABEL "filter — a filter may be what refuses perf_event_open: allow it in "
                           "the seccomp profile (docker: --security-opt seccomp=PROFILE)\n",
                "seccomp");
    else
        fprintf(out, LABEL "unknown (no Seccomp line in /proc/self/status)\n", "seccomp");

    if (f->sigtrap == 1)
        fprintf(out, LABEL "yes (Linux 5.13+: perf events signal their thread synchronously)\n",
                "perf sigtrap");
    else if (f->sigtrap == 0)
        fprintf(out, LABEL "no — this kernel lacks perf sigtrap (Linux < 5.13); wasp signals "
                           "through F_SETSIG, which may lose a sample when two coincide; a "
                           "5.13+ kernel avoids it\n", "perf sigtrap");
    else
        fprintf(out, LABEL "unknown — perf events are refused (see above)\n", "perf sigtrap");

    for (int i = 0; i < f->nsamplers; i++)
        print_sampler(f, i, out);
    fprintf(out, LABEL "%s\n", "sampler auto",
            f->sampler ? f->sampler : "none — no sampler works here (see above)");

    for (int i = 0; i < f->nengines; i++)
        print_engine(f, i, out);
    fprintf(out, LABEL "%s\n", "watchpoints auto",
            f->watch ? f->watch : "none — no watchpoint engine works here (see above)");

    if (f->numa_nodes > 0)
        fprintf(out, LABEL "%d\n", "NUMA nodes", f->numa_nodes);
    else
        fprintf(out, LABEL "unknown (no /sys/devices/system/node/node*); the objects analysis "
                           "assumes one\n", "NUMA nodes");

    bool usable = false;
    for (int i = 0; i < f->njdks; i++) {
        const jdk *j = &f->jdks[i];
        char via[64] = "";
        if (j->via & VIA_JAVA_HOME)
            strcat(via, via[0] ? ", JAVA_HOME" : " (JAVA_HOME");
        if (j->via & VIA_PATH)
            strcat(via, via[0] ? ", on PATH" : " (on PATH");
        if (via[0])
            strcat(via, ")");
        const char *advice = "";
        if (!j->version_ok)
            advice = " — not usable";
        else if (j->major && j->major < NEEDED_JDK)
            advice = " — too old: wasp needs HotSpot JDK 17 or newer";
        else
            usable = true;
        fprintf(out, LABEL "%s%s: %s%s\n", i ? "" : "JDKs", j->path, via, j->version, advice);
    }
    if (!f->njdks)
        fprintf(out, LABEL "none found (in /usr/lib/jvm, $JAVA_HOME or PATH) — install "
                           "openjdk-17-jdk-headless\n", "JDKs");
    else if (!usable)
        fprintf(out, LABEL "no usable JDK 17+ — install openjdk-17-jdk-headless\n", "");

    fputc('\n', out);
    if (f->sampler && f->watch)
        fprintf(out, "wasp would use: sampler %s, watchpoints %s\n", f->sampler, f->watch);
    else if (f->sampler)
        fprintf(out, "profiling will not work here: no watchpoint engine works (see above); "
                     "only -e objects can run (sampler %s)\n", f->sampler);
    else if (f->watch)
        fprintf(out, "profiling will not work here: no sampler works (see above)\n");
    else
        fprintf(out, "profiling will not work here: no sampler and no watchpoint engine "
                     "works (see above)\n");
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */

static void json_verdict(wasp_json *j, const char *key, const verdict *v)
{
    wasp_json_begin_object(j, key, true);
    wasp_json_bool(j, "ok", v->ok);
    wasp_json_string(j, "why", v->ok ? NULL : v->why);
}

static void json_engine(wasp_json *j, const char *key, const verdict *v, uint64_t ns,
                        double string_slowdown)
{
    json_verdict(j, key, v);
    if (v->ok) {
        wasp_json_double(j, "event_us", (double)ns / 1000.0);
        wasp_json_double(j, "string_slowdown", string_slowdown);
    } else {
        wasp_json_null(j, "event_us");
        wasp_json_null(j, "string_slowdown");
    }
    wasp_json_end_object(j);
}

static void print_json(const facts *f, FILE *out)
{
    wasp_json j;
    wasp_json_init(&j, out);
    wasp_json_begin_object(&j, NULL, false);
    wasp_json_string(&j, "kernel", f->kernel[0] ? f->kernel : NULL);
    if (paranoid_known(f->paranoid))
        wasp_json_i64(&j, "perf_event_paranoid", f->paranoid);
    else
        wasp_json_null(&j, "perf_event_paranoid");
    json_verdict(&j, "perf_events", &f->perf);
    wasp_json_end_object(&j);
    if (f->seccomp >= 0)
        wasp_json_i64(&j, "seccomp", f->seccomp);
    else
        wasp_json_null(&j, "seccomp");
    if (f->sigtrap >= 0)
        wasp_json_bool(&j, "sigtrap", f->sigtrap == 1);
    else
        wasp_json_null(&j, "sigtrap");

    wasp_json_begin_object(&j, "samplers", false);
    for (int i = 0; i < f->nsamplers; i++) {
        json_verdict(&j, wasp_samplers[i]->name, &f->samplers[i]);
        wasp_json_bool(&j, "present", f->sampler_present[i]);
        wasp_json_end_object(&j);
    }
    wasp_json_end_object(&j);

    wasp_json_begin_object(&j, "watch", false);
    for (int i = 0; i < f->nengines; i++)
        json_engine(&j, wasp_watch_engines[i]->name, &f->engines[i], f->engine_ns[i],
                    f->engine_string_slowdown[i]);
    wasp_json_end_object(&j);

    if (f->numa_nodes > 0)
        wasp_json_i64(&j, "numa_nodes", f->numa_nodes);
    else
        wasp_json_null(&j, "numa_nodes");

    wasp_json_begin_array(&j, "jdks", false);
    for (int i = 0; i < f->njdks; i++) {
        wasp_json_begin_object(&j, NULL, true);
        wasp_json_string(&j, "path", f->jdks[i].path);
        wasp_json_string(&j, "version", f->jdks[i].version_ok ? f->jdks[i].version : NULL);
        wasp_json_end_object(&j);
    }
    wasp_json_end_array(&j);

    wasp_json_begin_object(&j, "would_use", true);
    wasp_json_string(&j, "sampler", f->sampler);
    wasp_json_string(&j, "watch", f->watch);
    wasp_json_end_object(&j);
    wasp_json_bool(&j, "ok", f->sampler && f->watch);
    wasp_json_end_object(&j); /* and a newline */
}

/* ------------------------------------------------------------------ */
/* The command                                                         */

int wasp_cmd_doctor(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            wasp_doctor_usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--json")) {
            json = true;
            continue;
        }
        if (a[0] == '-')
            fprintf(stderr, "wasp doctor: unknown option '%s' (accepted: --json, -h, --help)\n",
                    a);
        else
            fprintf(stderr, "wasp doctor: unexpected argument '%s' (doctor takes no operands; "
                            "accepted options: --json, -h, --help)\n", a);
        fprintf(stderr, "Try 'wasp doctor --help'.\n");
        return 2;
    }
    static facts f; /* large (JDK paths): not on the stack */
    gather(&f);
    if (json)
        print_json(&f, stdout);
    else
        print_text(&f, stdout);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "wasp doctor: cannot write the output: %s\n", strerror(errno));
        return 1;
    }
    return f.sampler && f.watch ? 0 : 1;
}
