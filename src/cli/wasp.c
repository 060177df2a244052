/* The wasp command: dispatch to a subcommand. */
#include "cli/attach.h"
#include "cli/doctor.h"
#include "cli/report.h"
#include "cli/run.h"

#include <stdio.h>
#include <string.h>

#define WASP_VERSION "0.1.0"

static void usage(FILE *out)
{
    fputs("Usage: wasp COMMAND [options]\n"
          "\n"
          "wasp finds wasteful memory behaviour in Java programs: dead stores, silent\n"
          "stores and silent loads, with the calling contexts responsible.\n"
          "\n"
          "Commands:\n"
          "  run [options] -- java ARGS...   run a Java program with the wasp agent and\n"
          "                                  print the report of its profile\n"
          "                                  (default output file: wasp.wprof)\n"
          "  report [options] FILE...        print the report of saved profiles\n"
          "  attach [options] PID            profile a running HotSpot JVM: with -d SECONDS,\n"
          "                                  for that long, then print the report\n"
          "  detach [options] PID            stop profiling it (the agent writes the\n"
          "                                  profile) and print the report\n"
          "  doctor [--json]                 what this machine supports and what wasp\n"
          "                                  would use here (exit 1: profiling will\n"
          "                                  not work)\n"
          "  help [COMMAND|agent]            this help, a command's help, or the agent's\n"
          "                                  options (for -agentpath by hand)\n"
          "  --version                       print the version\n"
          "\n"
          "Examples:\n"
          "  wasp run -- java -jar app.jar\n"
          "  wasp run -e deadstore,silentstore -o app.wprof -- java -cp app.jar Main\n"
          "  wasp report --format json app.wprof\n"
          "  wasp attach -d 30 12345\n"
          "  wasp doctor\n"
          "\n"
          "'wasp help COMMAND' lists every option of COMMAND with its default;\n"
          "'wasp help agent' describes loading libwasp.so without this command.\n",
          out);
}

/* For people who add -agentpath themselves (mirrors src/agent/options.h). */
static void agent_usage(FILE *out)
{
    fputs("Usage: java -agentpath:/path/to/libwasp.so[=OPTIONS] ...\n"
          "\n"
          "OPTIONS is key=value items separated by commas, so no value can contain a\n"
          "comma (file and log paths included). A key given twice: the last one wins.\n"
          "\n"
          "  events=LIST            analyses joined by '+' or ':': deadstore, silentstore,\n"
          "                         silentload, objects, replicas, or all (default:\n"
          "                         deadstore+silentstore+silentload)\n"
          "  file=PATH              profile file (default: wasp-<pid>.wprof in the\n"
          "                         working directory)\n"
          "  sampler=auto|perf|timer|pmu\n"
          "                         address source: perf task-clock, POSIX CPU-time\n"
          "                         timer (no perf events), hardware PMU; auto: the\n"
          "                         first of pmu, perf, timer that proves itself\n"
          "                         (default: auto)\n"
          "  period=DURATION        perf/timer sampler period, 10us..10s (under 100us is\n"
          "                         raised to 100us), unit ns|us|ms|s, a bare number is\n"
          "                         ns (default: 1ms)\n"
          "  pmu-period=N           PMU sampler period, 1..1000000000 (default: 20011)\n"
          "  pmu-event=NAME         libpfm4 event (default: chosen per CPU)\n"
          "  watchpoints=N          watchpoints per thread, 1..4 (default: 4)\n"
          "  watch=auto|debugreg|page\n"
          "                         watchpoint engine: debug registers, or page\n"
          "                         protection; auto: debugreg when a test breakpoint\n"
          "                         traps, else page (default: auto)\n"
          "  watch-budget=X         most CPU the watchpoint engine may cost, a share of\n"
          "                         the thread's time, 0..50%, 0 = no limit (default:\n"
          "                         2% for page, 10% for debugreg)\n"
          "  float-threshold=X      fraction in [0, 1) or percentage (default: 0.01)\n"
          "  max-frames=N           deepest Java stack recorded, 1..2048 (default: 256)\n"
          "  log=stderr|none|PATH   where the agent logs (default: stderr)\n"
          "  seed=N                 reservoir RNG seed, 0 = time-based (default: 0)\n"
          "  min-size=BYTES         objects: smallest object tracked (default: 1024)\n"
          "  alloc-interval=BYTES   objects: JVMTI heap sampling interval, 0 = every\n"
          "                         allocation (default: 262144)\n"
          "  alloc-rate=N           objects: allocation events/s above which the\n"
          "                         interval grows, 0 = no cap (default: 1000)\n"
          "  verify-top=N           replicas: verify the N top sites whole (default: 0)\n"
          "  track-existing=0|1     at attach: track objects already in the heap\n"
          "                         (one heap walk; default: 0)\n"
          "  signal=auto|sigtrap|fasync\n"
          "                         how perf events signal threads (default: auto)\n"
          "  action=start|stop      for wasp attach / detach (default: start)\n"
          "\n"
          "Example:\n"
          "  java -agentpath:/opt/wasp/lib/libwasp.so=events=deadstore+silentstore,"
          "file=/tmp/app.wprof -jar app.jar\n"
          "  wasp report /tmp/app.wprof\n",
          out);
}

static int help(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "run")) {
        wasp_run_usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "report")) {
        char *args[] = {"report", "--help", NULL};
        return wasp_cmd_report(2, args);
    }
    if (!strcmp(argv[1], "agent")) {
        agent_usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "attach")) {
        wasp_attach_usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "detach")) {
        wasp_detach_usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "doctor")) {
        wasp_doctor_usage(stdout);
        return 0;
    }
    fprintf(stderr,
            "wasp help: unknown topic '%s' (accepted: run, report, agent, attach, detach, "
            "doctor)\n",
            argv[1]);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "run"))
        return wasp_cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "report"))
        return wasp_cmd_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "attach"))
        return wasp_cmd_attach(argc - 1, argv + 1);
    if (!strcmp(cmd, "detach"))
        return wasp_cmd_detach(argc - 1, argv + 1);
    if (!strcmp(cmd, "doctor"))
        return wasp_cmd_doctor(argc - 1, argv + 1);
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        return help(argc - 1, argv + 1);
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("wasp %s\n", WASP_VERSION);
        return 0;
    }
    fprintf(stderr,
            "wasp: unknown command '%s' (accepted: run, report, attach, detach, doctor, "
            "help, --version)\nTry 'wasp --help'.\n",
            cmd);
    return 2;
}
