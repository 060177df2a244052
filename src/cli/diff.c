/*
 * `wasp diff [options] BEFORE AFTER` (diff.h): options, reading the two
 * profiles (with the messages `wasp report` gives), grouping them by line
 * unless asked not to, and writing the matched changes.
 */
#include "cli/diff.h"
#include "cli/cli_output.h"
#include "cli/cli_util.h"
#include "profile/group.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_UNREADABLE = 1, EXIT_USAGE = 2, TEXT_DEFAULT_TOP = 10,
       /* A page stays small and quick to draw however large the profiles. */
       HTML_DEFAULT_TOP = 200 };

/* The formats diff writes (docs/diff.md). */
static const struct diff_format {
    const char *name;
    int (*render)(const wasp_diff *d, const wasp_diff_names *names, int top, FILE *out);
    int default_top; /* 0: every changed entry */
} formats[] = {
    {"text", wasp_diff_render_text, TEXT_DEFAULT_TOP},
    {"json", wasp_diff_render_json, 0},
    {"html", wasp_diff_render_html, HTML_DEFAULT_TOP},
};
#define FORMAT_NAMES "text, json or html"

struct diff_args {
    const struct diff_format *format;
    bool by_instruction;
    int top; /* 0: the format's default */
    const char *output;
    const char *file[2];
};

void wasp_diff_usage(FILE *out)
{
    fputs("usage: wasp diff [--format text|json|html] [--top N] [--by line|instruction]\n"
          "                 [-o OUT] BEFORE AFTER\n"
          "\n"
          "Compares two wasp profiles, e.g. before and after a fix: per analysis the\n"
          "change of F_prog (before -> after, and the difference in points), then the\n"
          "pairs (dead/silent stores, silent loads) and allocation sites (objects,\n"
          "replicas) that VANISHED, APPEARED, SHRANK or GREW, largest change of share\n"
          "first. Entries are matched by their calling contexts' frames (method,\n"
          "file, line) and classes, not by ids, so profiles of different runs and\n"
          "hosts compare. A FILE of - is standard input (for one of the two).\n"
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
          "  -o, --output OUT    write to OUT instead of standard output\n"
          "  -h, --help          show this help\n"
          "\n"
          "Exit status: 0 on success, 1 when a file cannot be read or written,\n"
          "2 on a usage error.\n",
          out);
}

#define usage_error(...) wasp_cli_usage_error("diff", __VA_ARGS__)

#define option_value wasp_cli_option_value

/* 0 to go on, or an exit code; *done when --help was printed. */
static int parse_args(int argc, char **argv, struct diff_args *r, bool *done)
{
    int nfiles = 0;
    bool options = true;
    *done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool m;
        if (!options || a[0] != '-' || a[1] == 0) {
            if (nfiles == 2)
                return usage_error("one profile before and one after, not also '%.200s'", a);
            r->file[nfiles++] = a;
        } else if (strcmp(a, "--") == 0) {
            options = false;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            wasp_diff_usage(stdout);
            *done = true;
            return 0;
        } else if ((v = option_value(argc, argv, &i, "--format", &m)) || m) {
            r->format = NULL;
            for (size_t f = 0; v && f < sizeof formats / sizeof formats[0]; f++)
                if (strcmp(v, formats[f].name) == 0)
                    r->format = &formats[f];
            if (!r->format)
                return usage_error("--format expects " FORMAT_NAMES " (for diff), not '%.200s'",
                                   v ? v : "");
        } else if ((v = option_value(argc, argv, &i, "--top", &m)) || m) {
            uint64_t n;
            if (!v || wasp_cli_parse_uint(v, 1, 1000000000, &n) != 0)
                return usage_error("--top expects a positive number, not '%.200s'", v ? v : "");
            r->top = (int)n;
        } else if ((v = option_value(argc, argv, &i, "--by", &m)) || m) {
            if (v && strcmp(v, "line") == 0)
                r->by_instruction = false;
            else if (v && strcmp(v, "instruction") == 0)
                r->by_instruction = true;
            else
                return usage_error("--by expects 'line' or 'instruction', not '%.200s'",
                                   v ? v : "");
        } else if ((v = option_value(argc, argv, &i, "-o", &m)) || m ||
                   (v = option_value(argc, argv, &i, "--output", &m)) || m) {
            if (!v || !*v)
                return usage_error("%s expects a file name", a);
            r->output = v;
        } else {
            return usage_error("unknown option '%.200s'", a);
        }
    }
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
    wasp_diff_names names = {{r->file[0], r->file[1]}, !r->by_instruction};
    FILE *out = wasp_cli_output_open("diff", r->output);
    if (!out)
        return EXIT_UNREADABLE;
    int top = r->top > 0 ? r->top : r->format->default_top;
    errno = 0;
    return wasp_cli_output_close("diff", r->output, out, r->format->render(d, &names, top, out));
}

int wasp_cmd_diff(int argc, char **argv)
{
    struct diff_args r = {.format = &formats[0]};
    bool done;
    int rc = parse_args(argc, argv, &r, &done);
    if (rc != 0 || done)
        return rc;
    wasp_profile *before = load(r.file[0], r.by_instruction);
    wasp_profile *after = before ? load(r.file[1], r.by_instruction) : NULL;
    if (!after) {
        wasp_profile_free(before);
        return EXIT_UNREADABLE;
    }
    wasp_diff d;
    if (wasp_diff_build(before, after, r.by_instruction, &d) != 0) {
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
