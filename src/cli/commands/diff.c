/*
 * `wasp diff [options] BEFORE AFTER` (diff.h): options, reading the two
 * profiles (with the messages `wasp report` gives), grouping them by line
 * unless asked not to, and writing the matched changes.
 */
#include "cli/commands/diff.h"
#include "cli/commands/cli_output.h"
#include "cli/commands/cli_util.h"
#include "cli/commands/report.h"
#include "profile/group.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_UNREADABLE = 1, EXIT_USAGE = 2, TEXT_DEFAULT_TOP = 10,
       /* A page stays small and quick to draw however large the profiles. */
       HTML_DEFAULT_TOP = 200 };

/* The formats diff writes (docs/diff.md), indexed by wasp_format: a format
 * without a renderer here is refused by --format (wasp_format_parse). */
static const struct diff_format {
    int (*render)(const wasp_diff *d, const wasp_diff_names *names, int top, FILE *out);
    int default_top; /* 0: every changed entry */
} formats[WASP_FORMAT_COUNT] = {
    [WASP_FORMAT_TEXT] = {wasp_diff_render_text, TEXT_DEFAULT_TOP},
    [WASP_FORMAT_JSON] = {wasp_diff_render_json, 0},
    [WASP_FORMAT_HTML] = {wasp_diff_render_html, HTML_DEFAULT_TOP},
};
#define DIFF_FORMATS \
    ((1u << WASP_FORMAT_TEXT) | (1u << WASP_FORMAT_JSON) | (1u << WASP_FORMAT_HTML))

struct diff_args {
    wasp_report_opts view; /* top 0: the format's default */
    bool verbose;          /* text: the contexts of changes within noise too */
    const char *output;
    const char *file[2];
};

void wasp_diff_usage(FILE *out)
{
    fputs("usage: wasp diff [--format text|json|html] [--top N] [--by line|instruction]\n"
          "                 [--verbose] [-o OUT] BEFORE AFTER\n"
          "\n"
          "Compares two wasp profiles, e.g. before and after a fix. First a summary:\n"
          "the places (method, file, line) of both reports' first findings, each\n"
          "with its cost in CPU before and after and whether the change is beyond\n"
          "what two runs of one program differ by. Then per analysis the\n"
          "change of its measure (F_prog before -> after, and the difference in\n"
          "points; or its totals), then its entries (pairs of dead/silent stores and\n"
          "silent loads; allocation sites; fields; locked classes, and the time\n"
          "blocked on locks by class) that VANISHED, APPEARED, SHRANK or GREW,\n"
          "significant changes first, then the largest change of share. A change\n"
          "within sampling noise (two runs of one program differ by chance) says\n"
          "so: \"[within noise]\" (docs/diff.md). Entries are matched by their\n"
          "calling contexts' frames (method, file, line) and classes, not by ids,\n"
          "so profiles of different runs and hosts compare.\n"
          "A FILE of - is standard input (for one of the two).\n"
          "\n"
          "  --format text|json|html\n"
          "                      text for people (default), json for tools, html: one\n"
          "                      page to open from disk (with -o FILE)\n"
          "  --top N             changed entries shown per analysis (default: 10 in\n"
          "                      text, all in json, 200 in html)\n"
          "  --by line|instruction\n"
          "                      line: contexts matched by their frames, so copies of\n"
          "                      a line compiled differently (C1/C2, unrolled) are one\n"
          "                      entry; instruction: the leaf instruction must match\n"
          "                      too (default: line)\n"
          "  -v, --verbose       text: the calling contexts of changes within noise too\n"
          "                      (else one line each, their places)\n"
          "  -o, --output OUT    write to OUT instead of standard output\n"
          "  -h, --help          show this help\n"
          "\n"
          "Exit status: 0 on success, 1 when a file cannot be read or written,\n"
          "2 on a usage error.\n",
          out);
}

#define usage_error(...) wasp_cli_usage_error("diff", __VA_ARGS__)


/* 0 to go on, or an exit code; *done when --help was printed. */
static int parse_args(int argc, char **argv, struct diff_args *r, bool *done)
{
    int nfiles = 0;
    bool options = true;
    *done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char why[512];
        if (!options || a[0] != '-' || a[1] == 0) {
            if (nfiles == 2)
                return usage_error("one profile before and one after, not also '%.200s'", a);
            r->file[nfiles++] = a;
        } else if (strcmp(a, "--") == 0) {
            options = false;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            r->verbose = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            wasp_diff_usage(stdout);
            *done = true;
            return 0;
        } else {
            int taken = wasp_report_view_option(argc, argv, &i, DIFF_FORMATS, &r->view,
                                                &r->output, why, sizeof why);
            if (taken < 0)
                return usage_error("%s", why);
            if (!taken)
                return usage_error("unknown option '%.200s'", a);
        }
    }
    if (r->view.side != WASP_SIDE_WATCHED || r->view.analysis != 0) /* shared, not diff's */
        return usage_error("%s", "--side and --analysis choose the stacks of wasp report "
                                 "--format collapsed; a diff compares every analysis");
    if (nfiles < 2)
        return usage_error("%s", nfiles ? "no AFTER profile given" : "no profiles given");
    if (strcmp(r->file[0], "-") == 0 && strcmp(r->file[1], "-") == 0)
        return usage_error("%s", "only one of the profiles can be standard input");
    return 0;
}

/* Read as `wasp report` reads (its message too), grouped unless by
 * instruction. NULL after printing why. */
static wasp_profile *load(const char *file, bool by_instruction)
{
    char err[256];
    bool in = strcmp(file, "-") == 0;
    wasp_profile *p = wasp_profile_read(in ? "/dev/stdin" : file, err, sizeof err);
    if (!p) {
        fprintf(stderr, "wasp diff: %s: %s\n", in ? "standard input" : file, err);
        return NULL;
    }
    if (by_instruction)
        return p;
    wasp_profile *g = wasp_profile_group_by_line(p);
    wasp_profile_free(p);
    if (!g)
        fprintf(stderr, "wasp diff: %s: out of memory while grouping by line\n", file);
    return g;
}

static int write_out(const wasp_diff *d, const struct diff_args *r)
{
    wasp_diff_names names = {{r->file[0], r->file[1]}, r->view.by == WASP_BY_LINE, r->verbose};
    FILE *out = wasp_cli_output_open("diff", r->output);
    if (!out)
        return EXIT_UNREADABLE;
    const struct diff_format *f = &formats[r->view.format];
    int top = r->view.top > 0 ? r->view.top : f->default_top;
    errno = 0;
    return wasp_cli_output_close("diff", r->output, out, f->render(d, &names, top, out));
}

int wasp_cmd_diff(int argc, char **argv)
{
    struct diff_args r = {.view = {.format = WASP_FORMAT_TEXT, .by = WASP_BY_LINE}};
    bool done;
    int rc = parse_args(argc, argv, &r, &done);
    if (rc != 0 || done)
        return rc;
    bool by_instruction = r.view.by == WASP_BY_INSTRUCTION;
    wasp_profile *before = load(r.file[0], by_instruction);
    wasp_profile *after = before ? load(r.file[1], by_instruction) : NULL;
    if (!after) {
        wasp_profile_free(before);
        return EXIT_UNREADABLE;
    }
    wasp_diff d;
    if (wasp_diff_build(before, after, by_instruction, &d) != 0) {
        fputs("wasp diff: out of memory while matching the profiles\n", stderr);
        rc = EXIT_UNREADABLE;
    } else {
        rc = write_out(&d, &r);
        wasp_diff_free(&d);
    }
    wasp_profile_free(before);
    wasp_profile_free(after);
    return rc;
}
