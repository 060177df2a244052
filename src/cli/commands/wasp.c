/* The wasp command: dispatch to a subcommand. */
#include "cli/attach/attach.h"
#include "cli/commands/diff.h"
#include "cli/commands/doctor.h"
#include "cli/commands/option_help.h"
#include "cli/commands/report.h"
#include "cli/commands/run.h"
#include "catalog/names.h"

#include <stdio.h>
#include <string.h>

#define WASP_VERSION "0.1.0"

static int help(int argc, char **argv);
static int version(int argc, char **argv);
static void run_help(FILE *out) { wasp_run_usage(out); }
static void report_help(FILE *out)
{
    (void)out;
    char *args[] = {"report", "--help", NULL};
    wasp_cmd_report(2, args);
}

/* Every command once: dispatch, `wasp --help`, `wasp help COMMAND` and the
 * messages that list the accepted ones are made from this table. */
static const struct command {
    const char *name, *args;
    const char *summary; /* lines after the first are indented under it */
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *out); /* wasp help NAME; NULL: none */
} commands[] = {
    {"run", "[options] -- java ARGS...",
     "run a Java program with the wasp agent and\nprint the report of its profile\n(default output "
     "file: wasp.wprof)",
     wasp_cmd_run, run_help},
    {"report", "[options] [FILE...]", "print the report of saved profiles", wasp_cmd_report,
     report_help},
    {"diff", "[options] BEFORE AFTER",
     "what changed between two profiles: F_prog\nand the pairs/sites that vanished,\nappeared, "
     "shrank or grew",
     wasp_cmd_diff, wasp_diff_usage},
    {"attach", "[options] PID",
     "profile a running HotSpot JVM: with -d SECONDS,\nfor that long, then print the report",
     wasp_cmd_attach, wasp_attach_usage},
    {"dump", "[options] PID",
     "write the profile so far of a JVM being\nprofiled (profiling goes on) and print it",
     wasp_cmd_dump, wasp_dump_usage},
    {"detach", "[options] PID",
     "stop profiling it (the agent writes the\nprofile) and print the report",
     wasp_cmd_detach, wasp_detach_usage},
    {"doctor", "[--json]",
     "what this machine supports and what wasp\nwould use here (exit 1: profiling will\nnot work)",
     wasp_cmd_doctor, wasp_doctor_usage},
    {"help", "[COMMAND|agent]",
     "this help, a command's help, or the agent's\noptions (for -agentpath by hand)", help, NULL},
    {"--version", "", "print the version", version, NULL},
};
enum { NCOMMANDS = sizeof commands / sizeof *commands };

/* "run, report, ..." (with extra appended). */
static void command_names(char *buf, size_t n, const char *extra)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < NCOMMANDS && len < n; i++)
        if (commands[i].usage)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", commands[i].name);
    if (extra && len < n)
        snprintf(buf + len, n - len, ", %s", extra);
}

static void usage(FILE *out)
{
    fputs("Usage: wasp COMMAND [options]\n"
          "\n"
          "wasp finds where a Java program wastes memory work, and which code and\n"
          "which objects are to blame. Its analyses (run and attach: -e NAME,...;\n"
          "default: the first three):\n",
          out);
    for (int id = 0; id < WASP_ANALYSES; id++)
        fprintf(out, "  %-13s %s\n", wasp_analysis_id_name(id), wasp_analysis_summary(id));
    fputs("\n"
          "Commands:\n",
          out);
    for (int i = 0; i < NCOMMANDS; i++) {
        char head[64];
        snprintf(head, sizeof head, "%s %s", commands[i].name, commands[i].args);
        const char *line = commands[i].summary;
        for (int first = 1;; first = 0) {
            int len = (int)strcspn(line, "\n");
            fprintf(out, "  %-31s %.*s\n", first ? head : "", len, line);
            if (!line[len])
                break;
            line += len + 1;
        }
    }
    fputs("\n"
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
    if (!strcmp(argv[1], "agent")) {
        agent_usage(stdout);
        return 0;
    }
    for (int i = 0; i < NCOMMANDS; i++)
        if (commands[i].usage && !strcmp(argv[1], commands[i].name)) {
            commands[i].usage(stdout);
            return 0;
        }
    char names[256];
    command_names(names, sizeof names, "agent");
    fprintf(stderr, "wasp help: unknown topic '%s' (accepted: %s)\n", argv[1], names);
    return 2;
}

static int version(int argc, char **argv)
{
    (void)argc, (void)argv;
    printf("wasp %s\n", WASP_VERSION);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        cmd = "help";
    if (!strcmp(cmd, "version"))
        cmd = "--version";
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    char names[256];
    command_names(names, sizeof names, "help, --version");
    fprintf(stderr, "wasp: unknown command '%s' (accepted: %s)\nTry 'wasp --help'.\n", cmd,
            names);
    return 2;
}
