/* The wasp command: dispatch to a subcommand. */
#include "cli/attach.h"
#include "cli/diff.h"
#include "cli/doctor.h"
#include "cli/option_help.h"
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
          "  diff [options] BEFORE AFTER     what changed between two profiles: F_prog\n"
          "                                  and the pairs/sites that vanished,\n"
          "                                  appeared, shrank or grew\n"
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
          "  wasp diff before.wprof after.wprof\n"
          "  wasp attach -d 30 12345\n"
          "  wasp doctor\n"
          "\n"
          "'wasp help COMMAND' lists every option of COMMAND with its default;\n"
          "'wasp help agent' describes loading libwasp.so without this command.\n",
          out);
}

/* For people who add -agentpath themselves: the rows of the option table. */
static void agent_usage(FILE *out)
{
    fputs("Usage: java -agentpath:/path/to/libwasp.so[=OPTIONS] ...\n"
          "\n"
          "OPTIONS is key=value items separated by commas, so no value can contain a\n"
          "comma (file and log paths included). A key given twice: the last one wins.\n"
          "\n",
          out);
    wasp_option_help_agent(out);
    fputs("\n"
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
    if (!strcmp(argv[1], "diff")) {
        wasp_diff_usage(stdout);
        return 0;
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
            "wasp help: unknown topic '%s' (accepted: run, report, diff, agent, attach, "
            "detach, doctor)\n",
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
    if (!strcmp(cmd, "diff"))
        return wasp_cmd_diff(argc - 1, argv + 1);
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
            "wasp: unknown command '%s' (accepted: run, report, diff, attach, detach, "
            "doctor, help, --version)\nTry 'wasp --help'.\n",
            cmd);
    return 2;
}
