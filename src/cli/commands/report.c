/*
 * `wasp report`: options, reading and merging the profile files, choosing
 * the renderer. argv[0] is the subcommand's name ("report"); options and
 * files follow.
 */
#include "cli/commands/report.h"
#include "analysis/alloc/ranking.h"
#include "cli/render/render.h"
#include "cli/commands/run.h"
#include "profile/group.h"
#include "cli/commands/cli_output.h"
#include "cli/commands/cli_util.h"
#include "cli/render/thread_filter.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The page embeds its data: past the top 50 pairs and sites per analysis a
 * large profile's page outgrows what a browser opens quickly (bench/render.py). */
enum { EXIT_USAGE = 2, TEXT_DEFAULT_TOP = 10, HTML_DEFAULT_TOP = 50 };

/* The report formats, indexed by wasp_format: a new format is a row here. */
static const struct format_row {
    const char *name; /* the --format value */
    const char *help; /* the rest of its line in the usage */
    int default_top;  /* pairs per analysis without --top; 0: all */
    int (*render)(const wasp_profile *p, int top, FILE *out);
} formats[] = {
    [WASP_FORMAT_TEXT] = {"text", "for people (default)", TEXT_DEFAULT_TOP, wasp_render_text},
    [WASP_FORMAT_JSON] = {"json", "for tools (schema: docs/report-json.md)", 0, wasp_render_json},
    [WASP_FORMAT_HTML] = {"html", "one page with tables and flame graphs (use -o)", HTML_DEFAULT_TOP,
                          wasp_render_html},
    [WASP_FORMAT_COLLAPSED] = {"collapsed", "flame-graph stacks: flamegraph.pl, speedscope", 0,
                               wasp_render_collapsed},
    [WASP_FORMAT_PPROF] = {"pprof", "gzipped profile.proto for go tool pprof (needs -o)", 0,
                           wasp_render_pprof},
};
#define NFORMATS (sizeof formats / sizeof *formats)
_Static_assert(NFORMATS == WASP_FORMAT_COUNT, "every wasp_format has a row in formats[]");

/* The names of the formats in accepted, indexed by wasp_format (NULL: not accepted). */
static void accepted_names(unsigned accepted, const char *names[NFORMATS])
{
    for (size_t i = 0; i < NFORMATS; i++)
        names[i] = accepted & (1u << i) ? formats[i].name : NULL;
}

void wasp_format_names(unsigned accepted, const char *sep, char *out, size_t outlen)
{
    const char *names[NFORMATS];
    accepted_names(accepted, names);
    wasp_cli_join_names(names, NFORMATS, sep, sep, out, outlen);
}

int wasp_format_parse(const char *option, const char *value, unsigned accepted,
                      wasp_format *out, char *err, size_t errlen)
{
    const char *names[NFORMATS];
    accepted_names(accepted, names);
    int i = wasp_cli_parse_choice(option, value, names, NFORMATS, err, errlen);
    if (i < 0)
        return -1;
    *out = (wasp_format)i;
    return 0;
}

/* --by; method only where asked (wasp report: diff matches lines or
 * instructions). */
static int by_parse(const char *option, const char *value, bool method, wasp_report_by *out,
                    char *err, size_t errlen)
{
    static const char *const names[] = {[WASP_BY_LINE] = "line",
                                        [WASP_BY_INSTRUCTION] = "instruction",
                                        [WASP_BY_METHOD] = "method"};
    int i = wasp_cli_parse_choice(option, value, names, method ? 3 : 2, err, errlen);
    if (i < 0)
        return -1;
    *out = (wasp_report_by)i;
    return 0;
}

int wasp_by_parse(const char *option, const char *value, wasp_report_by *out, char *err,
                  size_t errlen)
{
    return by_parse(option, value, false, out, err, errlen);
}

/* --include/--exclude PATTERN, into list (n of them so far). */
static int pattern_parse(const char *option, const char *value, const char **list, int *n,
                         char *err, size_t errlen)
{
    if (!value || !*value)
        return wasp_cli_bad_option(err, errlen, option, value,
                                   "expected a frame pattern such as com.acme.* or *.parse*");
    if (*n >= WASP_FRAME_PATTERNS_MAX) {
        snprintf(err, errlen, "%s: at most %d patterns", option, WASP_FRAME_PATTERNS_MAX);
        return -1;
    }
    list[(*n)++] = value;
    return 0;
}

int wasp_top_parse(const char *option, const char *value, int *out, char *err, size_t errlen)
{
    uint64_t n;
    if (!value || wasp_cli_parse_uint(value, 1, WASP_TOP_MAX, &n) < 0) {
        char expected[64];
        snprintf(expected, sizeof expected, "expected a number from 1 to %d", WASP_TOP_MAX);
        return wasp_cli_bad_option(err, errlen, option, value, expected);
    }
    *out = (int)n;
    return 0;
}

int wasp_report_render(const wasp_profile *p, const wasp_report_opts *o, FILE *out)
{
    const struct format_row *f =
        (size_t)o->format < NFORMATS ? &formats[o->format] : &formats[WASP_FORMAT_TEXT];
    int top = o->top > 0 ? o->top : f->default_top;
    wasp_profile *grouped = NULL;
    const wasp_frame_filter *ff = &o->filter;
    wasp_context_filter hide = {wasp_frame_filter_hides, ff, WASP_HIDDEN_FRAME};
    bool filtered = ff->ninclude + ff->nexclude + ff->nthread > 0;
    wasp_group_key key = o->by == WASP_BY_LINE     ? WASP_GROUP_LINE
                         : o->by == WASP_BY_METHOD ? WASP_GROUP_METHOD
                                                   : WASP_GROUP_EXACT;
    if ((key != WASP_GROUP_EXACT || filtered) &&
        !(p = grouped = wasp_profile_group(p, key, filtered ? &hide : NULL)))
        return -1;
    if (filtered) {
        char text[1024];
        wasp_profile_set_meta(grouped, WASP_FILTER_META,
                              wasp_frame_filter_text(ff, text, sizeof text));
    }
    int rc = o->format == WASP_FORMAT_COLLAPSED
                 ? wasp_render_collapsed_choice(p, o->analysis - 1, o->side, out)
             : o->format == WASP_FORMAT_TEXT ? wasp_render_text_verbose(p, top, o->verbose, out)
                                             : f->render(p, top, out);
    wasp_profile_free(grouped);
    if (fflush(out) != 0 || ferror(out))
        rc = -1;
    return rc;
}

static void usage(FILE *out)
{
    char names[256];
    wasp_format_names(WASP_FORMATS_ALL, "|", names, sizeof names);
    fprintf(out,
            "usage: wasp report [--format %s] [--top N]\n"
            "                   [--by line|method|instruction] [--include PATTERN]...\n"
            "                   [--exclude PATTERN]... [--thread PATTERN]... [--verbose]\n"
            "                   [-o OUT] [FILE...]\n"
            "\n"
            "Reads wasp profiles (merging them when there are several) and prints\n"
            "the report: first a summary, each analysis's top findings with their\n"
            "place in the program, their cost in CPU and what to try\n"
            "(docs/findings.md), then each analysis's detail. A FILE of - is\n"
            "standard input; with no FILE, " WASP_RUN_DEFAULT_OUTPUT " (what wasp run writes).\n"
            "A profile is at most 256 MiB.\n"
            "\n"
            "  --format FORMAT     one of:\n",
            names);
    for (size_t i = 0; i < NFORMATS; i++)
        fprintf(out, "                        %-9s %s\n", formats[i].name, formats[i].help);
    fputs("  --top N             pairs shown per analysis (default: 10 in text, 50 in html,\n"
          "                      else all)\n"
          "  --by line|method|instruction\n"
          "                      line: pairs that differ only in the leaf machine\n"
          "                      instruction summed into one, showing the heaviest\n"
          "                      instruction and \"(+N more instructions)\"; method: the\n"
          "                      same with lines ignored too; instruction: every pair\n"
          "                      as recorded (default: line)\n"
          "  --include PATTERN   show only the stacks with a frame whose method matches\n"
          "                      (a glob: * any run of characters, ? one; com.acme.*,\n"
          "                      *.parse*); repeatable: any of them\n"
          "  --exclude PATTERN   hide the stacks with a frame that matches; repeatable.\n"
          "                      Hidden stacks sum under one entry; shares stay of the\n"
          "                      whole profile (docs/findings.md)\n"
          "  --thread PATTERN    keep only the evidence of the threads whose name matches\n"
          "                      (a glob, digits folded to #: main, pool-#-thread-#,\n"
          "                      worker*); repeatable: any of them. The profile must be\n"
          "                      recorded with wasp run --threads\n"
          "  --alloc-rank bytes|count\n"
          "                      alloc: rank classes and sites by estimated bytes\n"
          "                      (default) or by sampled creations\n"
          "  --side watched|trapped|all, --analysis NAME|all\n"
          "                      collapsed: the stacks of one side of one analysis, so\n"
          "                      that totals are true (default: the first analysis\n"
          "                      shown, its watched side; docs/formats.md)\n"
          "  -v, --verbose       text: also how it was measured (the sampler, the\n"
          "                      watchpoints, their counters and dropped samples)\n"
          "  -o, --output OUT    write the report to OUT instead of standard output\n"
          "  -h, --help          show this help\n"
          "\n"
          "Exit status: 0 on success, 1 when a file cannot be read or written,\n"
          "2 on a usage error.\n",
          out);
}

#define usage_error(...) wasp_cli_usage_error("report", __VA_ARGS__)

#define option_value wasp_cli_option_value

struct report_args {
    wasp_report_opts opts;
    const char *output;
    char **files;
    int nfiles;
};

/* Options may come before or after the files (until "--"). Returns 0 to go
 * on, or an exit code; *done is set when --help was printed. r->files must
 * have room for argc entries. */
int wasp_report_view_option(int argc, char **argv, int *i, unsigned accepted,
                            wasp_report_opts *o, const char **output, char *err, size_t errlen)
{
    const char *a = argv[*i], *v;
    bool m;
    int rc;
    if ((v = option_value(argc, argv, i, "--format", &m)) || m)
        rc = wasp_format_parse("--format", v, accepted, &o->format, err, errlen);
    else if ((v = option_value(argc, argv, i, "--top", &m)) || m)
        rc = wasp_top_parse("--top", v, &o->top, err, errlen);
    else if ((v = option_value(argc, argv, i, "--by", &m)) || m)
        rc = wasp_by_parse("--by", v, &o->by, err, errlen);
    else if ((v = option_value(argc, argv, i, "--alloc-rank", &m)) || m)
        rc = wasp_alloc_rank_parse("--alloc-rank", v, err, errlen);
    else if ((v = option_value(argc, argv, i, "--side", &m)) || m)
        rc = wasp_side_parse("--side", v, &o->side, err, errlen);
    else if ((v = option_value(argc, argv, i, "--analysis", &m)) || m) {
        rc = wasp_analysis_choice_parse("--analysis", v, &o->analysis, err, errlen);
        o->analysis += rc == 0; /* 0 stays "not given" */
    }
    else if ((v = option_value(argc, argv, i, "-o", &m)) || m ||
             (v = option_value(argc, argv, i, "--output", &m)) || m) {
        rc = v && *v ? 0 : -1;
        if (rc == 0)
            *output = v;
        else
            snprintf(err, errlen, "%s expects a file name", a);
    } else
        return 0;
    return rc < 0 ? -1 : 1;
}

/* The options of wasp report alone: --by (with method), --include,
 * --exclude, --thread. true when argv[*i] is one (*taken: 1, or -1 with err set). */
static bool report_only_option(int argc, char **argv, int *i, wasp_report_opts *o, char *err,
                               size_t errlen, int *taken)
{
    const char *v;
    bool m;
    wasp_frame_filter *f = &o->filter;
    if ((v = option_value(argc, argv, i, "--by", &m)) || m)
        *taken = by_parse("--by", v, true, &o->by, err, errlen);
    else if ((v = option_value(argc, argv, i, "--include", &m)) || m)
        *taken = pattern_parse("--include", v, f->include, &f->ninclude, err, errlen);
    else if ((v = option_value(argc, argv, i, "--exclude", &m)) || m)
        *taken = pattern_parse("--exclude", v, f->exclude, &f->nexclude, err, errlen);
    else if ((v = option_value(argc, argv, i, "--thread", &m)) || m)
        *taken = wasp_thread_pattern_add("--thread", v, f, err, errlen);
    else
        return false;
    *taken = *taken < 0 ? -1 : 1;
    return true;
}

static int parse_args(int argc, char **argv, struct report_args *r, bool *done)
{
    *done = false;
    bool options = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char why[512];
        int taken;
        if (!options || a[0] != '-' || a[1] == 0) {
            r->files[r->nfiles++] = argv[i];
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options = false;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            r->opts.verbose = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            *done = true;
            return 0;
        } else if (report_only_option(argc, argv, &i, &r->opts, why, sizeof why, &taken)) {
            if (taken < 0)
                return usage_error("%s", why);
        } else {
            taken = wasp_report_view_option(argc, argv, &i, WASP_FORMATS_ALL, &r->opts,
                                                &r->output, why, sizeof why);
            if (taken < 0)
                return usage_error("%s", why);
            if (!taken)
                return usage_error("unknown option '%.200s'", a);
        }
    }
    if (r->nfiles == 0) { /* what wasp run writes by default */
        if (access(WASP_RUN_DEFAULT_OUTPUT, F_OK) != 0)
            return usage_error("%s", "no profile given, and no " WASP_RUN_DEFAULT_OUTPUT
                                     " (what wasp run writes) in this directory");
        r->files[r->nfiles++] = WASP_RUN_DEFAULT_OUTPUT;
    }
    return 0;
}

/* The name a message gives input i. */
static const char *shown_name(const char *file)
{
    return strcmp(file, "-") == 0 ? "standard input" : file;
}

/* Refuses the same run given twice (its counts would double): profiles carry
 * the run id the agent drew. Keeps a copy of input i's id in ids[i]. 0, or -1
 * with the message printed. Profiles from before run ids cannot be checked. */
static int check_not_seen(const wasp_profile *p, char **files, int i, char **ids)
{
    const char *id = wasp_profile_get_meta(p, "run_id");
    ids[i] = id ? strdup(id) : NULL;
    for (int k = 0; ids[i] && k < i; k++)
        if (ids[k] && strcmp(ids[k], ids[i]) == 0) {
            fprintf(stderr,
                    "wasp report: %s and %s are the same run (run id %s); merged, its counts "
                    "would count twice\n",
                    shown_name(files[k]), shown_name(files[i]), ids[i]);
            return -1;
        }
    return 0;
}

/* Notes, in the merged profile's "programs" metadata, which programs it
 * holds when they differ ("3 programs: A; B; C"), so the report says so
 * instead of taking the first one's name for all. */
static void note_programs(wasp_profile *all, const char **cmds, int n)
{
    char list[1024] = "";
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        int seen = !cmds[i];
        for (int k = 0; k < i && !seen; k++)
            seen = cmds[k] && strcmp(cmds[k], cmds[i]) == 0;
        if (seen)
            continue;
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", distinct ? "; " : "", cmds[i]);
        distinct++;
    }
    if (distinct < 2)
        return;
    char meta[1100];
    snprintf(meta, sizeof meta, "%d programs: %s", distinct, list);
    wasp_profile_set_meta(all, "programs", meta);
    fprintf(stderr, "wasp report: merging profiles of %s\n", meta);
}

/* Reads every file (reporting each bad one) and merges them into the first. */
static wasp_profile *load(char **files, int n)
{
    wasp_profile *all = NULL;
    bool ok = true;
    char **ids = calloc((size_t)n, sizeof *ids);  /* run ids and commands, copied: */
    char **cmds = calloc((size_t)n, sizeof *cmds); /* each input is freed once merged */
    if (!ids || !cmds) {
        free(ids);
        free(cmds);
        fputs("wasp report: out of memory\n", stderr);
        return NULL;
    }
    for (int i = 0; ok && i < n; i++) {
        char err[256];
        /* "-" is standard input, opened afresh through /dev/stdin so the
         * reader checks and bounds it like any file. */
        bool in = strcmp(files[i], "-") == 0;
        wasp_profile *p = wasp_profile_read(in ? "/dev/stdin" : files[i], err, sizeof err);
        if (!p) {
            fprintf(stderr, "wasp report: %s: %s\n", shown_name(files[i]), err);
            ok = false;
            continue;
        }
        const char *cmd = wasp_profile_get_meta(p, "java_command");
        cmds[i] = cmd ? strdup(cmd) : NULL;
        if (check_not_seen(p, files, i, ids) != 0) {
            ok = false;
        } else if (!all) {
            all = p;
            continue;
        } else if (wasp_profile_merge(all, p) != 0) {
            fprintf(stderr, "wasp report: %s: out of memory while merging\n",
                    shown_name(files[i]));
            ok = false;
        }
        wasp_profile_free(p);
    }
    if (ok && all)
        note_programs(all, (const char **)cmds, n);
    for (int i = 0; i < n; i++) {
        free(ids[i]);
        free(cmds[i]);
    }
    free(ids);
    free(cmds);
    if (!ok) {
        wasp_profile_free(all);
        return NULL;
    }
    return all;
}

int wasp_cmd_report(int argc, char **argv)
{
    struct report_args r = {.files = calloc(argc > 0 ? (size_t)argc : 1, sizeof(char *))};
    if (!r.files) {
        fputs("wasp report: out of memory\n", stderr);
        return 1;
    }
    bool done;
    int rc = parse_args(argc, argv, &r, &done);
    if (rc != 0 || done) {
        free(r.files);
        return rc;
    }

    bool to_stdout = !r.output || strcmp(r.output, "-") == 0;
    /* Compressed binary would only garble a terminal. */
    if (r.opts.format == WASP_FORMAT_PPROF && to_stdout && isatty(STDOUT_FILENO)) {
        free(r.files);
        return usage_error("%s", "--format pprof writes binary: give -o FILE or redirect");
    }
    wasp_profile *p = load(r.files, r.nfiles);
    free(r.files);
    if (!p)
        return 1;
    char why[256];
    if (r.opts.filter.nthread > 0 && wasp_thread_filter_check(p, why, sizeof why) != 0) {
        wasp_profile_free(p);
        return usage_error("%s", why);
    }

    FILE *out = wasp_cli_output_open("report", r.output);
    if (!out) {
        wasp_profile_free(p);
        return 1;
    }
    errno = 0;
    rc = wasp_cli_output_close("report", r.output, out, wasp_report_render(p, &r.opts, out));
    wasp_profile_free(p);
    return rc;
}
