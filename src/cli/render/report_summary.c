/*
 * The summary, the report's first screen (issue 40; docs/findings.md): for
 * each analysis shown, its first findings (report_part.h, the parts'
 * `summary`), one line each: the place in the application, what happens
 * there in plain words with its share, and its cost in CPU, the share of the
 * program's CPU samples spent in the code involved, with a 95% interval
 * from the samples behind it; then what to try. Text here, the JSON
 * "summary" member too (docs/report-json.md); the page draws the JSON's.
 */
#include "catalog/names.h"
#include "cli/render/render.h"
#include "cli/render/report_part.h"
#include "cli/render/units.h"
#include "cli/render/evidence_share.h"
#include "cli/render/exception_cost.h"
#include "cli/render/frame_filter.h"
#include "cli/render/native_share.h"
#include "cli/render/startup_frames.h"
#include "cli/render/summary_items.h"
#include "profile/cpu_lines.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A finding resting on fewer samples than this says so: with k samples the
 * 95% interval's half-width is about 1.96/sqrt(k) of the estimate, over a
 * third of it below 30, so such a share (and its rank) may move that much
 * from one run to the next. */
enum { FEW_SAMPLES = 30 };
/* Findings asked of a part, so that some are left when start-up work and
 * hidden stacks are passed over. */
enum { CANDIDATES = 32 };

typedef struct found {
    wasp_finding_sink sink;
    wasp_finding f[WASP_SUMMARY_PER_ANALYSIS];
    int n, max;
    double startup, shown; /* shares of the evidence (evidence_share.h); NAN: none */
} found;

void wasp_finding_say(wasp_finding *f, const char *fmt, ...)
{
    size_t len = strnlen(f->what, sizeof f->what);
    va_list ap;
    va_start(ap, fmt);
    if (len + 1 < sizeof f->what)
        vsnprintf(f->what + len, sizeof f->what - len, fmt, ap);
    va_end(ap);
}

/* Start-up work (startup_frames.h) and the stand-in of stacks hidden by
 * --include/--exclude are not findings. */
static bool passed_over(const wasp_profile *p, const wasp_finding *f)
{
    const wasp_context *x = f->ctx < p->ncontexts ? &p->contexts[f->ctx] : NULL;
    return x && (wasp_context_startup(p, x) || wasp_context_hidden(p, x));
}

static int keep(wasp_finding_sink *sink, const wasp_profile *p, const wasp_finding *f)
{
    found *c = (found *)sink;
    if (passed_over(p, f))
        return 0;
    if (c->n < c->max)
        c->f[c->n++] = *f;
    return 0;
}

static bool unhidden(const wasp_profile *p, const wasp_context *c)
{
    return !wasp_context_hidden(p, c);
}

/* The findings of analysis id, into c: WASP_SUMMARY_PER_ANALYSIS, or fewer
 * when --top asks for fewer entries (top > 0). 0, or -1. */
static int collect(const wasp_profile *p, int id, int top, found *c)
{
    *c = (found){.sink = {keep}, .shown = NAN};
    const wasp_report_part *part = wasp_report_part_of(id);
    c->max = top > 0 && top < WASP_SUMMARY_PER_ANALYSIS ? top : WASP_SUMMARY_PER_ANALYSIS;
    c->startup = wasp_evidence_share(p, id, wasp_context_startup);
    if (wasp_profile_get_meta(p, WASP_FILTER_META))
        c->shown = wasp_evidence_share(p, id, unhidden);
    if (c->startup < 0 || c->shown < 0)
        return -1;
    return part->summary(p, id, CANDIDATES, &c->sink);
}

/* Does analysis id take part in the summary? */
static bool in_summary(uint32_t shown, int id)
{
    return (shown & (1u << id)) && wasp_report_part_of(id)->summary;
}

/* Writes one analysis's part of the summary (its findings in c). */
typedef void (*write_analysis)(const wasp_profile *p, int id, const found *c, double due,
                               void *out);

/* Each analysis of the summary in registry order, its findings collected,
 * through write. 0, or -1. */
static int each_analysis(const wasp_profile *p, uint32_t shown, int top, write_analysis write,
                         void *out)
{
    double due = wasp_report_samples_due(p);
    for (int id = 0; id < WASP_ANALYSES; id++) {
        found c;
        if (!in_summary(shown, id))
            continue;
        if (collect(p, id, top, &c) != 0)
            return -1;
        write(p, id, &c, due, out);
    }
    return 0;
}

/* Where f is: its context's place (the created objects' past their
 * constructors); NULL when it has no frames. */
static const wasp_frame *finding_place(const wasp_profile *p, const wasp_finding *f)
{
    return f->ctx < p->ncontexts ? wasp_created_place(p, &p->contexts[f->ctx], f->created) : NULL;
}

/* Whether f's cost is a share of every CPU sample counted by line
 * (cpu_lines.h): its part summed its lines' samples, or it asks for its
 * line's and p has them. */
static bool by_line(const wasp_profile *p, const wasp_finding *f)
{
    return f->has_cpu_line_samples || (f->cpu_by_line && wasp_profile_has_cpu_lines(p));
}

/* Whether f's cost is an estimate: it asks for its line's samples, which a
 * profile of an older wasp lacks, and has a figure without them
 * (docs/findings.md; an allocation has none: not measured). */
static bool estimate(const wasp_profile *p, const wasp_finding *f)
{
    return f->cpu_by_line && !wasp_profile_has_cpu_lines(p) && isfinite(f->cpu);
}

/* How the native methods' CPU divides among their callers' places
 * (native_share.h), for the rendering under way: set by the entry points
 * below (wasp_summary_text, _json, _items) for their call, NULL otherwise
 * (a native method's samples then count whole). */
static const wasp_native_shares *native_shares;

/* The innermost Java frame of f's context when it is a native method (no
 * line) other than f's place: its native code's samples count at it
 * (cpu.via_caller). NULL: none. */
static const wasp_frame *native_callee(const wasp_profile *p, const wasp_finding *f)
{
    if (f->ctx >= p->ncontexts)
        return NULL;
    const wasp_frame *native = wasp_inner_java_frame(p, &p->contexts[f->ctx]);
    return native && native->line < 0 && native != finding_place(p, f) ? native : NULL;
}

/* The part of native's CPU samples that is at's (1 without a place or
 * without shares). */
static double native_part(const wasp_profile *p, const wasp_frame *native, const wasp_frame *at)
{
    if (!at)
        return 1;
    return wasp_native_share(native_shares, wasp_profile_string(p, native->name),
                             wasp_profile_string(p, at->name), at->line);
}

/* The CPU samples at f's lines: those its part summed, else those at its
 * place (method and line), code inlined there included, and, when its
 * access is in a native method the place calls (zlib under
 * Deflater.deflateBytesBytes), that method's: the access's own code, which
 * runs in no line of the place's; its part of them when other places call
 * it too (native_share.h). */
static double line_samples(const wasp_profile *p, const wasp_finding *f)
{
    if (f->has_cpu_line_samples)
        return f->cpu_line_samples;
    if (f->ctx >= p->ncontexts)
        return 0;
    const wasp_frame *at = finding_place(p, f), *native = native_callee(p, f);
    double n = at ? wasp_profile_cpu_at(p, at->name, at->line) : 0;
    if (native)
        n += wasp_profile_cpu_at(p, native->name, native->line) * native_part(p, native, at);
    return n;
}

/* A finding's cost in CPU: with samples by line, its lines' share of them
 * and Wilson's interval for it. Else its share of the samples due and the 95%
 * interval. The finding's samples may be weighted (a paced sample stands
 * for several periods, a window's pairs share one sample): the interval is
 * Wilson's for the samples it rests on (evidence) as successes, among as
 * many draws as keep its share, so a weighted share is as uncertain as its
 * evidence makes it. false when not measured. */
static bool cpu_draws(const wasp_profile *p, const wasp_finding *f, double due, double *share,
                      double *lo, double *hi, double *k, double *n)
{
    if (by_line(p, f)) {
        *n = (double)wasp_profile_get_counter(p, WASP_CPU_SAMPLES);
        /* lines summed by a part count code inlined into two of them twice */
        *k = fmin(line_samples(p, f), *n);
        *share = *n > 0 ? *k / *n : 0;
        wasp_wilson95(*k, *n, lo, hi);
        return *n > 0;
    }
    if (!isfinite(f->cpu) || !(due > 0))
        return false;
    *share = f->cpu > 0 ? (f->cpu < due ? f->cpu / due : 1) : 0;
    *k = isfinite(f->evidence) && f->evidence > 0 ? f->evidence : f->cpu;
    if (*share > 0 && *k > 0) {
        *n = *k / *share;
    } else {
        *k = 0;
        *n = due;
    }
    wasp_wilson95(*k, *n, lo, hi);
    return true;
}

static bool cpu_cost(const wasp_profile *p, const wasp_finding *f, double due, double *share,
                     double *lo, double *hi)
{
    double k, n;
    return cpu_draws(p, f, due, share, lo, hi, &k, &n);
}

/* Whether the code the place calls adds to its cost beyond the sampling
 * noise: the estimate with the calls is then shown beside the line's own
 * measured share (its interval below the estimate's; an older profile's
 * estimate of the line is from the same armed samples: nothing to add). */
static bool calls_matter(const wasp_profile *p, const wasp_finding *f, bool measured, double hi)
{
    return f->has_with_calls && measured && !estimate(p, f) && f->with_calls_lo > hi;
}

/* The rank (1-based) of an earlier finding of c whose cost is the same
 * code's, counted by line at the same place (three classes allocated at
 * SableCC's Production.rightside:80 each showed that line's 22.9%, which
 * reads as 69%); 0 when none is. */
static int same_cpu_as(const wasp_profile *p, const found *c, int i)
{
    const wasp_finding *f = &c->f[i];
    if (!by_line(p, f) || f->has_cpu_line_samples)
        return 0;
    const wasp_frame *at = finding_place(p, f);
    for (int k = 0; at && k < i; k++) {
        const wasp_finding *g = &c->f[k];
        if (by_line(p, g) && !g->has_cpu_line_samples && finding_place(p, g) == at &&
            line_samples(p, g) == line_samples(p, f))
            return k + 1;
    }
    return 0;
}

/* "(3.2–5.2%)": the interval, one percent sign. */
static const char *interval_text(double lo, double hi, char *buf, size_t n)
{
    char l[WASP_UNIT_BUF], h[WASP_UNIT_BUF];
    wasp_fmt_percent(lo, l, sizeof l);
    l[strlen(l) - 1] = 0;
    snprintf(buf, n, "(%s\xe2\x80\x93%s)", l, wasp_fmt_percent(hi, h, sizeof h));
    return buf;
}

static bool few(const wasp_finding *f)
{
    return !(f->evidence >= FEW_SAMPLES);
}

static const char *evidence_unit(const wasp_finding *f)
{
    return f->evidence_unit ? f->evidence_unit : "samples";
}

/* "few samples: 8", "few watched samples: 2" ("under 1" below a half: a
 * window's share of one sample; "no samples" at none). */
static const char *few_text(const wasp_finding *f, char *buf, size_t n)
{
    if (!(f->evidence > 0))
        snprintf(buf, n, "no %s", evidence_unit(f));
    else if (f->evidence < 0.5)
        snprintf(buf, n, "few %s: under 1", evidence_unit(f));
    else
        snprintf(buf, n, "few %s: %.0f", evidence_unit(f), f->evidence);
    return buf;
}

/* ---- text ---- */

/* The method the place called where f's code runs (text and JSON name it
 * after the place), NULL when it is the place or f sums several. */
static const wasp_frame *finding_inner(const wasp_profile *p, const wasp_finding *f)
{
    return f->ctx < p->ncontexts && !f->spread ? wasp_created_inner(p, &p->contexts[f->ctx], f->created)
                                                : NULL;
}

/* "Main.work(Main.java:42)" (the place at), and ", in
 * java.util.TreeMap.getEntry(TreeMap.java:350)" when f's code runs in a
 * method the place called. */
static void place_label(const wasp_profile *p, const wasp_finding *f, const wasp_frame *at,
                        char *buf, size_t n)
{
    wasp_frame_label(p, at, buf, n);
    const wasp_frame *inner = finding_inner(p, f);
    size_t len = strlen(buf);
    if (inner && len + 5 < n) {
        memcpy(buf + len, ", in ", 5);
        wasp_frame_label(p, inner, buf + len + 5, n - len - 5);
    }
}

static void finding_text(const wasp_profile *p, const wasp_finding *f, int rank, int same_as,
                         double due, FILE *out)
{
    char place[WASP_FRAME_LABEL_MAX], s[WASP_UNIT_BUF], l[2 * WASP_UNIT_BUF + 8],
        h[2 * WASP_UNIT_BUF + 8], w[64];
    const wasp_frame *at = finding_place(p, f);
    if (at)
        place_label(p, f, at, place, sizeof place);
    else
        snprintf(place, sizeof place, "(no frames)");
    double share, lo, hi;
    char cpu[6 * WASP_UNIT_BUF + 96];
    bool measured = cpu_cost(p, f, due, &share, &lo, &hi);
    if (measured && same_as) {
        snprintf(cpu, sizeof cpu, "CPU counted with %d (the same line)", same_as);
    } else if (measured) {
        snprintf(cpu, sizeof cpu, "%s of CPU%s %s", wasp_fmt_percent(share, s, sizeof s),
                 estimate(p, f) ? ", estimate" : "", interval_text(lo, hi, l, sizeof l));
        if (calls_matter(p, f, measured, hi)) {
            size_t n = strlen(cpu);
            snprintf(cpu + n, sizeof cpu - n, ", with the code it calls at least %s %s",
                     wasp_fmt_percent(f->with_calls, s, sizeof s),
                     interval_text(f->with_calls_lo, f->with_calls_hi, h, sizeof h));
        }
    } else
        snprintf(cpu, sizeof cpu, "%s", f->waiting ? "waiting uses no CPU" : "CPU not measured");
    fprintf(out, "  %d. %s: %s; %s", rank, place, f->what, cpu);
    if (few(f))
        fprintf(out, "; %s", few_text(f, w, sizeof w));
    fputc('\n', out);
}

/* The interpreter's share of the samples from which the summary says so: a
 * short run's findings in code not yet compiled show less CPU than they cost. */
#define INTERPRETED_NOTE 0.1
#define KERNEL_NOTE 0.05

/* The share of the profiled threads' CPU spent in the kernel, where the perf
 * and PMU samplers take no sample (they sample user code only), so no share
 * of the samples includes it; NAN where the profile does not say, or where
 * the sampler sees it (the timer's signal arrives at the user instruction
 * that entered the kernel, and counts there). */
static double kernel_share(const wasp_profile *p)
{
    const char *sampler = wasp_profile_get_meta(p, "sampler");
    double cpu, kernel;
    if (!sampler || (strcmp(sampler, "perf") != 0 && strcmp(sampler, "pmu") != 0) ||
        !wasp_profile_get_meta_num(p, "cpu_seconds", &cpu) ||
        !wasp_profile_get_meta_num(p, "cpu_kernel_seconds", &kernel) || !(cpu > 0))
        return NAN;
    return kernel < cpu ? kernel / cpu : 1;
}

/* The share of the program's CPU samples in memset's and memcpy's string
 * moves while a debug register was armed on the thread, which runs them
 * many times slower (watch.string_samples, meta watch_string_slowdown);
 * NAN where the engine does not slow them. */
#define STRING_NOTE 0.02
static double string_share(const wasp_profile *p, double *slowdown)
{
    double due = wasp_report_samples_due(p);
    if (!wasp_profile_get_meta_num(p, "watch_string_slowdown", slowdown) || !(due > 0))
        return NAN;
    return (double)wasp_profile_get_counter(p, "watch.string_samples") / due;
}

/* The share of the samples counted by line that ran in code compiled before
 * an attach turned DebugNonSafepoints on (agent/exact_code.h), whose lines
 * are its safepoints'; NAN without samples by line. */
#define COARSE_NOTE 0.05
static double coarse_share(const wasp_profile *p)
{
    double by_line = (double)wasp_profile_get_counter(p, WASP_CPU_SAMPLES);
    return by_line > 0 ? (double)wasp_profile_get_counter(p, WASP_CPU_COARSE) / by_line : NAN;
}

/* Start-up work below this share of an analysis's evidence goes unsaid in
 * the text (the JSON has it): a note about 0.1% is noise on the first screen. */
#define STARTUP_NOTE 0.01

/* The text's stream, and how many findings it placed at a method of a class
 * without line numbers (nor source file: javac -g:none, "Unknown Source"). */
typedef struct text_out {
    FILE *out;
    int unnumbered;
} text_out;

static bool unnumbered(const wasp_profile *p, const wasp_finding *f)
{
    const wasp_frame *at = finding_place(p, f);
    return at && at->kind == WASP_FRAME_JAVA && at->line < 0 && !at->file;
}

/* Why a watching analysis found nothing, when it is too few samples armed
 * (render.h, wasp_report_thin_nothing): false otherwise. */
static bool empty_why(const wasp_profile *p, const wasp_report_part *part, const found *c,
                      char *buf, size_t n)
{
    return c->n == 0 && part->counts_armed && wasp_report_thin_nothing(p, buf, n);
}

static void analysis_text(const wasp_profile *p, int id, const found *c, double due, void *arg)
{
    text_out *t = arg;
    FILE *out = t->out;
    const wasp_report_part *part = wasp_report_part_of(id);
    fprintf(out, "\n%s\n", part->title);
    for (int i = 0; i < c->n; i++) {
        finding_text(p, &c->f[i], i + 1, same_cpu_as(p, c, i), due, out);
        t->unnumbered += unnumbered(p, &c->f[i]);
    }
    char thin[200];
    if (c->n == 0 && (c->startup > 0 || (isfinite(c->shown) && c->shown < 1)))
        fputs("  nothing else found\n", out);
    else if (empty_why(p, part, c, thin, sizeof thin))
        fprintf(out, "  nothing found: %s\n", thin);
    else if (c->n == 0)
        fputs("  nothing found (the detail below says why)\n", out);
    /* Notes after the findings, which come first under their heading. */
    char s[WASP_UNIT_BUF];
    if (isfinite(c->shown))
        fprintf(out, "  the filter shows %s of its evidence\n", wasp_fmt_percent(c->shown, s, sizeof s));
    if (c->startup >= STARTUP_NOTE || (c->n == 0 && c->startup > 0))
        fprintf(out, "  %s of its %s %s JVM start-up work (class loading, linking, lambda "
                     "bootstrap), not among these findings\n",
                wasp_fmt_percent(c->startup, s, sizeof s),
                part->evidence ? part->evidence : "evidence", part->evidence ? "are" : "is");
    if (c->n > 0 && part->hint)
        fprintf(out, "  try: %s\n", part->hint);
}

/* The share of the CPU samples from which the summary names the cost of
 * filling in exceptions' stack traces (exception_cost.h). */
#define EXCEPTIONS_NOTE 0.02

/* "26.2% of the CPU samples (24.2-28.3%) fill in exceptions' stack traces
 * ..., mostly (87% of the sampled stacks there) at PLACE: ..." 0, or -1. */
static int exceptions_text(const wasp_profile *p, uint32_t shown, FILE *out)
{
    wasp_exception_cost c;
    if (wasp_exception_cost_of(p, shown, &c) != 0)
        return -1;
    if (!(c.share >= EXCEPTIONS_NOTE))
        return 0;
    char s[WASP_UNIT_BUF], i[2 * WASP_UNIT_BUF + 8], at[WASP_UNIT_BUF], place[WASP_FRAME_LABEL_MAX];
    fprintf(out, "  %s of the CPU samples %s fill in exceptions' stack traces "
                 "(Throwable.fillInStackTrace, run by every exception created)",
            wasp_fmt_percent(c.share, s, sizeof s), interval_text(c.lo, c.hi, i, sizeof i));
    if (c.place) {
        wasp_frame_label(p, c.place, place, sizeof place);
        fprintf(out, ", mostly (%s of the sampled stacks there) under %s",
                wasp_fmt_percent(c.at_place / c.stacks, at, sizeof at), place);
    }
    fputs(": an exception per call costs that; try testing the condition instead of catching "
          "the exception, or throwing one made once\n", out);
    return 0;
}

static int summary_text(const wasp_profile *p, uint32_t shown, int top, FILE *out)
{
    bool any = false;
    for (int id = 0; id < WASP_ANALYSES; id++)
        any |= in_summary(shown, id);
    if (!any)
        return 0;
    /* Shares by line (pairs, alloc, replicas) are of the samples counted by
     * line, the others' of the samples due: both named when they differ. */
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF + 96] = "";
    double by_line = (double)wasp_profile_get_counter(p, WASP_CPU_SAMPLES);
    /* Pacing (watch/sampler_period.h) takes no sample while the watch
     * budget is spent, so the lines' samples are then a few of those due
     * (h2 under page protection: 166 of 4,076) and their shares rough. */
    bool paced = wasp_profile_get_counter(p, "sampler.paced_skips") > by_line;
    if (wasp_profile_has_cpu_lines(p) && by_line != wasp_report_samples_due(p))
        snprintf(b, sizeof b, " (%s counted by line%s)", wasp_fmt_count(by_line, a, sizeof a),
                 paced ? ": the others were not taken while the watch budget was spent" : "");
    fprintf(out, "\nSUMMARY: the top findings of each analysis (docs/findings.md explains them); "
                 "\"of CPU\": of the program's %s CPU samples%s, with a 95%% interval\n",
            wasp_fmt_count(wasp_report_samples_due(p), a, sizeof a), b);
    const char *filter = wasp_profile_get_meta(p, WASP_FILTER_META);
    if (filter)
        fprintf(out, "  filtered (%s): only the stacks it keeps are shown, the others summed under "
                     "\"" WASP_HIDDEN_FRAME "\"; shares are of the whole profile\n",
                filter);
    double interpreted = (double)wasp_profile_get_counter(p, WASP_CPU_INTERPRETER);
    if (by_line > 0 && interpreted / by_line >= INTERPRETED_NOTE)
        fprintf(out, "  %s of the CPU samples ran in the interpreter (code the JIT had not compiled "
                     "yet) and count at no line: a longer run shows more of the program at its "
                     "lines\n",
                wasp_fmt_percent(interpreted / by_line, a, sizeof a));
    double kernel = kernel_share(p);
    const char *watch = wasp_profile_get_meta(p, "watch");
    if (kernel >= KERNEL_NOTE)
        fprintf(out, "  %s of the profiled threads' CPU ran in the kernel (page faults, as on new heap "
                     "memory; system calls%s), where the %s sampler takes no sample: no share here "
                     "includes it (--sampler timer counts it at the code that entered the kernel)\n",
                wasp_fmt_percent(kernel, a, sizeof a),
                watch && !strcmp(watch, "page") ? "; wasp's own page-protection faults" : "",
                wasp_profile_get_meta(p, "sampler"));
    double slowdown, strings = string_share(p, &slowdown);
    if (strings >= STRING_NOTE)
        fprintf(out, "  %s of the CPU samples were in memset or memcpy while wasp's debug registers "
                     "watched the thread, which runs them %.0fx slower here: wasp's cost, held "
                     "within its watch budget (--watch-budget); the code that clears or copies "
                     "memory shows more CPU than it takes without wasp\n",
                wasp_fmt_percent(strings, a, sizeof a), slowdown);
    double coarse = coarse_share(p);
    if (coarse >= COARSE_NOTE)
        fprintf(out, "  %s of the CPU samples ran in code compiled before wasp attached, in a JVM "
                     "started without -XX:+DebugNonSafepoints: HotSpot placed their lines at "
                     "safepoints only, so a finding there may name a loop's header rather than "
                     "the line in its body, or a method the JIT inlined nearby (code compiled "
                     "since is exact; for exact lines "
                     "everywhere, attach with --recompile, or start the JVM with "
                     "-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints, or under wasp "
                     "run)\n",
                wasp_fmt_percent(coarse, a, sizeof a));
    if (exceptions_text(p, shown, out) != 0)
        return -1;
    text_out t = {out, 0};
    if (each_analysis(p, shown, top, analysis_text, &t) != 0)
        return -1;
    if (t.unnumbered)
        fprintf(out, "\n%d of these findings %s in classes compiled without line numbers "
                     "(\"Unknown Source\"): each is placed at its method, and its CPU is the "
                     "whole method's\n", t.unnumbered, t.unnumbered == 1 ? "is" : "are");
    fputs("\nDETAIL\n", out);
    return 0;
}

/* ---- JSON ---- */

/* "method", "file" and "line" (null when unknown) of a place. */
static void json_where(wasp_json *j, const wasp_profile *p, uint32_t name, uint32_t file,
                       int32_t line)
{
    wasp_json_string(j, "method", wasp_profile_string(p, name));
    wasp_json_string(j, "file", file ? wasp_profile_string(p, file) : NULL);
    if (line >= 0)
        wasp_json_i64(j, "line", line);
    else
        wasp_json_null(j, "line");
}

static void finding_json(wasp_json *j, const wasp_profile *p, const wasp_finding *f, int same_as,
                         double due)
{
    char place[WASP_FRAME_LABEL_MAX];
    const wasp_frame *at = finding_place(p, f);
    wasp_json_begin_object(j, NULL, false);
    const wasp_frame *inner = finding_inner(p, f);
    if (at) {
        wasp_frame_label(p, at, place, sizeof place);
        wasp_json_string(j, "place", place);
        json_where(j, p, at->name, at->file, at->line);
    } else {
        wasp_json_null(j, "place");
        wasp_json_null(j, "method");
        wasp_json_null(j, "file");
        wasp_json_null(j, "line");
    }
    if (inner) {
        wasp_frame_label(p, inner, place, sizeof place);
        wasp_json_string(j, "inner", place);
    } else
        wasp_json_null(j, "inner");
    wasp_json_string(j, "what", f->what);
    wasp_json_double(j, "share", f->share);
    double share, lo, hi;
    bool measured = cpu_cost(p, f, due, &share, &lo, &hi);
    wasp_json_double(j, "cpu_share", measured ? share : NAN); /* null when not measured */
    wasp_json_double(j, "cpu_low", measured ? lo : NAN);
    wasp_json_double(j, "cpu_high", measured ? hi : NAN);
    wasp_json_double(j, "cpu_samples", by_line(p, f) ? line_samples(p, f) : f->cpu);
    wasp_json_bool(j, "cpu_estimate", estimate(p, f));
    wasp_json_double(j, "cpu_with_calls", f->has_with_calls ? f->with_calls : NAN);
    wasp_json_double(j, "cpu_with_calls_low", f->has_with_calls ? f->with_calls_lo : NAN);
    wasp_json_double(j, "cpu_with_calls_high", f->has_with_calls ? f->with_calls_hi : NAN);
    wasp_json_bool(j, "cpu_calls_matter", calls_matter(p, f, measured, hi));
    if (same_as)
        wasp_json_i64(j, "cpu_same_as", same_as);
    else
        wasp_json_null(j, "cpu_same_as");
    wasp_json_double(j, "samples", f->evidence);
    wasp_json_string(j, "samples_unit", evidence_unit(f));
    wasp_json_bool(j, "few_samples", few(f));
    wasp_json_bool(j, "waiting", f->waiting);
    wasp_json_end_object(j);
}

static void analysis_json(const wasp_profile *p, int id, const found *c, double due, void *arg)
{
    wasp_json *j = arg;
    const wasp_report_part *part = wasp_report_part_of(id);
    wasp_json_begin_object(j, NULL, false);
    wasp_json_string(j, "analysis", wasp_analysis_id_name(id));
    wasp_json_string(j, "title", part->title);
    wasp_json_string(j, "hint", part->hint);
    wasp_json_double(j, "startup_share", c->startup); /* null: no evidence */
    wasp_json_string(j, "startup_of", part->evidence ? part->evidence : "evidence");
    wasp_json_double(j, "shown_share", c->shown);     /* null: no --include/--exclude */
    char thin[200];
    if (empty_why(p, part, c, thin, sizeof thin))
        wasp_json_string(j, "empty_why", thin);
    else
        wasp_json_null(j, "empty_why");
    wasp_json_begin_array(j, "findings", false);
    for (int i = 0; i < c->n; i++)
        finding_json(j, p, &c->f[i], same_cpu_as(p, c, i), due);
    wasp_json_end_array(j);
    wasp_json_end_object(j);
}

/* Leaves (innermost lines) most samples first. */
static int by_leaf_samples(const void *a, const void *b)
{
    const wasp_cpu_line *x = *(wasp_cpu_line *const *)a, *y = *(wasp_cpu_line *const *)b;
    return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/* The lines where the program's threads were (their innermost line, self
 * time), the first `top`: a flat profile of the samples by line. 0, or -1. */
static int hot_lines_json(wasp_json *j, const wasp_profile *p, int top)
{
    const struct wasp_cpu_table *t = &p->cpu_leaves;
    double n = (double)wasp_profile_get_counter(p, WASP_CPU_SAMPLES);
    const wasp_cpu_line **order = malloc((t->n ? t->n : 1) * sizeof *order);
    if (!order)
        return -1;
    for (uint32_t i = 0; i < t->n; i++)
        order[i] = &t->rows[i];
    qsort(order, t->n, sizeof *order, by_leaf_samples);
    wasp_json_begin_array(j, "hot_lines", false);
    for (uint32_t i = 0; i < t->n && (top <= 0 || i < (uint32_t)top); i++) {
        const wasp_cpu_line *l = order[i];
        wasp_json_begin_object(j, NULL, true);
        json_where(j, p, l->name, l->file, l->line);
        wasp_json_double(j, "samples", l->samples);
        wasp_json_double(j, "share", n > 0 ? l->samples / n : 0);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    free(order);
    return 0;
}

/* "exceptions": the CPU filling in stack traces and where (exception_cost.h);
 * null without samples by line. 0, or -1. */
static int exceptions_json(wasp_json *j, const wasp_profile *p, uint32_t shown)
{
    wasp_exception_cost c;
    if (wasp_exception_cost_of(p, shown, &c) != 0)
        return -1;
    if (!wasp_profile_has_cpu_lines(p)) {
        wasp_json_null(j, "exceptions");
        return 0;
    }
    wasp_json_begin_object(j, "exceptions", false);
    wasp_json_double(j, "samples", c.samples);
    wasp_json_double(j, "cpu_share", c.share);
    wasp_json_double(j, "cpu_low", c.lo);
    wasp_json_double(j, "cpu_high", c.hi);
    if (c.place) {
        char place[WASP_FRAME_LABEL_MAX];
        wasp_frame_label(p, c.place, place, sizeof place);
        wasp_json_string(j, "place", place);
        json_where(j, p, c.place->name, c.place->file, c.place->line);
        wasp_json_double(j, "place_share", c.at_place / c.stacks);
    } else {
        wasp_json_null(j, "place");
        wasp_json_null(j, "method");
        wasp_json_null(j, "file");
        wasp_json_null(j, "line");
        wasp_json_null(j, "place_share");
    }
    wasp_json_end_object(j);
    return 0;
}

static int summary_json(wasp_json *j, const wasp_profile *p, uint32_t shown, int top)
{
    wasp_json_begin_object(j, "summary", false);
    wasp_json_double(j, "samples_due", wasp_report_samples_due(p));
    wasp_json_u64(j, "few_samples_below", FEW_SAMPLES);
    double kernel = kernel_share(p);
    if (isnan(kernel))
        wasp_json_null(j, "kernel_share");
    else
        wasp_json_double(j, "kernel_share", kernel);
    double slowdown, strings = string_share(p, &slowdown);
    if (isnan(strings))
        wasp_json_null(j, "string_under_watch_share");
    else
        wasp_json_double(j, "string_under_watch_share", strings);
    double coarse = coarse_share(p);
    if (isnan(coarse))
        wasp_json_null(j, "coarse_line_share");
    else
        wasp_json_double(j, "coarse_line_share", coarse);
    wasp_json_begin_array(j, "analyses", false);
    if (each_analysis(p, shown, top, analysis_json, j) != 0)
        return -1;
    wasp_json_end_array(j);
    if (hot_lines_json(j, p, top) != 0 || exceptions_json(j, p, shown) != 0)
        return -1;
    wasp_json_end_object(j);
    return 0;
}

/* ---- the findings as `wasp diff` compares them (summary_items.h) ---- */

typedef struct item_sink {
    wasp_finding_sink sink;
    wasp_summary_item *items;
    int n, max;
    double due;
} item_sink;

static void item_of(const wasp_profile *p, const wasp_finding *f, double due, wasp_summary_item *it)
{
    const wasp_frame *at = finding_place(p, f);
    *it = (wasp_summary_item){.at = at, .share = f->share, .evidence = f->evidence,
                              .waiting = f->waiting};
    if (at) {
        place_label(p, f, at, it->place, sizeof it->place);
        wasp_frame_label(p, at, it->key, sizeof it->key);
    } else {
        snprintf(it->place, sizeof it->place, "(no frames)");
        snprintf(it->key, sizeof it->key, "(no frames)");
    }
    memcpy(it->what, f->what, sizeof it->what);
    it->created = f->created ? wasp_profile_string(p, f->created) : NULL;
    it->by_line = by_line(p, f) && !f->has_cpu_line_samples;
    it->native = it->by_line ? native_callee(p, f) : NULL;
    it->measured = cpu_draws(p, f, due, &it->cpu, &it->cpu_lo, &it->cpu_hi, &it->cpu_samples,
                             &it->cpu_draws);
}

static int keep_item(wasp_finding_sink *sink, const wasp_profile *p, const wasp_finding *f)
{
    item_sink *c = (item_sink *)sink;
    if (!passed_over(p, f) && c->n < c->max)
        item_of(p, f, c->due, &c->items[c->n++]);
    return 0;
}

static int summary_items(const wasp_profile *p, int id, wasp_summary_item *items, int max)
{
    const wasp_report_part *part = wasp_report_part_of(id);
    if (!part || !part->summary)
        return 0;
    item_sink c = {{keep_item}, items, 0, max < CANDIDATES ? max : CANDIDATES,
                   wasp_report_samples_due(p)};
    return part->summary(p, id, CANDIDATES, &c.sink) != 0 ? -1 : c.n;
}

/* ---- the entry points: each with p's native shares for its call ---- */

/* Sets native_shares to p's, built here. false when out of memory. */
static bool shares_begin(const wasp_profile *p)
{
    native_shares = wasp_native_shares_of(p);
    return native_shares != NULL;
}

static int shares_end(int rc)
{
    wasp_native_shares_free((wasp_native_shares *)native_shares);
    native_shares = NULL;
    return rc;
}

int wasp_summary_text(const wasp_profile *p, uint32_t shown, int top, FILE *out)
{
    return shares_begin(p) ? shares_end(summary_text(p, shown, top, out)) : -1;
}

int wasp_summary_json(wasp_json *j, const wasp_profile *p, uint32_t shown, int top)
{
    return shares_begin(p) ? shares_end(summary_json(j, p, shown, top)) : -1;
}

int wasp_summary_items(const wasp_profile *p, const wasp_native_shares *shares, int id,
                       wasp_summary_item *items, int max)
{
    native_shares = shares;
    int n = summary_items(p, id, items, max);
    native_shares = NULL;
    return n;
}
