/* The wasp command: dispatch to a subcommand. */
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
          "  attach PID                      (coming) profile a running JVM\n"
          "  detach PID                      (coming) stop profiling it, write the profile\n"
          "  help [COMMAND]                  this help, or a command's help\n"
          "  --version                       print the version\n"
          "\n"
          "Examples:\n"
          "  wasp run -- java -jar app.jar\n"
          "  wasp run -e deadstore,silentstore -o app.wprof -- java -cp app.jar Main\n"
          "  wasp report --format json app.wprof\n"
          "\n"
          "'wasp help run' and 'wasp help report' list every option with its default.\n"
          "To load the agent without this command, see the comment in src/agent/options.h:\n"
          "  java -agentpath:/path/to/libwasp.so=events=deadstore,file=out.wprof ...\n",
          out);
}

static int not_implemented(const char *cmd)
{
    fprintf(stderr, "wasp %s: not implemented yet\n", cmd);
    return 2;
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
    if (!strcmp(argv[1], "attach") || !strcmp(argv[1], "detach"))
        return not_implemented(argv[1]);
    fprintf(stderr, "wasp help: unknown command '%s' (accepted: run, report, attach, detach)\n",
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
    if (!strcmp(cmd, "attach") || !strcmp(cmd, "detach"))
        return not_implemented(cmd);
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        return help(argc - 1, argv + 1);
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("wasp %s\n", WASP_VERSION);
        return 0;
    }
    fprintf(stderr,
            "wasp: unknown command '%s' (accepted: run, report, attach, detach, help, "
            "--version)\nTry 'wasp --help'.\n",
            cmd);
    return 2;
}
