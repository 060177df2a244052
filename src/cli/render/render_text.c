/*
 * The text report: what ran (and, --verbose, how it was sampled and the
 * sampler's counters), the summary (report_summary.c), then the section of
 * each analysis shown, written by its report part
 * (report_part.h) in registry order; and the text helpers the parts share:
 * contexts printed like a Java stack trace, leaf first.
 */
#include "catalog/ids.h"
#include "cli/render/render.h"
#include "cli/render/report_part.h"
#include "cli/render/units.h"
#include "profile/thread_frame.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Frames per context: from the leaf to the first application frame (the
 * summary's place, wasp_place_frame) and TEXT_CALLERS callers past it, then
 * "... N more": who called the code involved, not the whole way from main,
 * which made a 15 s run's report 921 lines (the JSON has every frame). */
enum { TEXT_MAX_FRAMES = 12, TEXT_CALLERS = 3 };
/* When the application frame is deeper than TEXT_MAX_FRAMES: the innermost
 * frames shown before the JDK and JVM frames are folded. */
enum { TEXT_LEAF_FRAMES = 3 };

/* ---- header ---- */

static void line(FILE *out, const char *label, const char *text)
{
    fprintf(out, "  %-10s %s\n", label, text);
}

static void header_sampler(const wasp_profile *p, FILE *out)
{
    const char *s = wasp_profile_get_meta(p, "sampler");
    const char *detail = wasp_profile_get_meta(p, "sampler_detail");
    const char *period = wasp_profile_get_meta(p, "period");
    const char *rate = wasp_profile_get_meta(p, "samples_per_second");
    if (!s && !detail && !period && !rate)
        return;
    fprintf(out, "  %-10s %s", "sampler", s ? s : "unknown");
    if (detail)
        fprintf(out, " (%s)", detail);
    if (period)
        fprintf(out, ", period %s", period);
    if (rate)
        fprintf(out, ", %s samples/s", rate);
    fputc('\n', out);
    const char *raised = wasp_profile_get_meta(p, "period_max_us");
    if (raised)
        fprintf(out, "  %-10s the handler passed its CPU budget: period raised up to %s us "
                     "on some threads\n", "", raised);
    const char *passed = wasp_profile_get_meta(p, "sampler_passed_over");
    if (passed)
        fprintf(out, "  %-10s passed over: %s\n", "", passed);
}

/* Which watchpoint engine ran, what it passed over, and what its budget did. */
static void header_watch(const wasp_profile *p, FILE *out)
{
    const char *w = wasp_profile_get_meta(p, "watch");
    const char *passed = wasp_profile_get_meta(p, "watch_passed_over");
    if (!w && !passed)
        return;
    const char *detail = wasp_profile_get_meta(p, "watch_detail");
    fprintf(out, "  %-10s %s", "watch", w ? w : "none");
    if (detail)
        fprintf(out, " (%s)", detail);
    const char *budget = wasp_profile_get_meta(p, "watch_budget");
    if (budget && atof(budget) > 0)
        fprintf(out, ", budget %.3g%% of CPU", 100 * atof(budget));
    fputc('\n', out);
    if (passed)
        fprintf(out, "  %-10s passed over: %s\n", "", passed);
    uint64_t faults = wasp_profile_get_counter(p, "watch.faults");
    if (faults) {
        const char *em = wasp_profile_get_meta(p, "watch_emulated_us");
        const char *load = wasp_profile_get_meta(p, "watch_emulated_load_us");
        const char *st = wasp_profile_get_meta(p, "watch_stepped_us");
        char each[96]; /* profiles before 2026-11-27 give one cost for both */
        if (load && (!em || strcmp(load, em) != 0))
            snprintf(each, sizeof each, "~%s us a store, ~%s us a load", em ? em : "?", load);
        else
            snprintf(each, sizeof each, "~%s us each", em ? em : "?");
        fprintf(out, "  %-10s %llu faults on watched pages: %llu emulated (%s), %llu "
                     "single-stepped (~%s us each)\n", "",
                (unsigned long long)faults,
                (unsigned long long)wasp_profile_get_counter(p, "watch.emulated"), each,
                (unsigned long long)(faults - wasp_profile_get_counter(p, "watch.emulated")),
                st ? st : "?");
    }
    uint64_t paced = wasp_profile_get_counter(p, "sampler.paced_skips");
    char not_taken[96] = "";
    if (paced)
        snprintf(not_taken, sizeof not_taken, ", %llu not taken (sampling slowed meanwhile)",
                 (unsigned long long)paced);
    if (wasp_report_budget_spent(p))
        fprintf(out, "  %-10s budget spent: %llu samples not armed (%llu armed)%s; raise "
                     "--watch-budget for more pairs at more cost\n", "",
                (unsigned long long)wasp_profile_get_counter(p, "dropped.budget"),
                (unsigned long long)wasp_profile_get_counter(p, "armed"), not_taken);
    char thin[WASP_THIN_WARNING_MAX];
    if (wasp_report_thin_evidence(p, thin, sizeof thin))
        line(out, "", thin);
}

/* How contexts were taken, when not by the default walk (--context chain:
 * docs/context-chain.md). */
static void header_context(const wasp_profile *p, FILE *out)
{
    const char *mode = wasp_profile_get_meta(p, "context");
    if (!mode)
        return;
    const char *detail = wasp_profile_get_meta(p, "context_detail");
    fprintf(out, "  %-10s %s%s%s%s\n", "context", mode, detail ? " (" : "", detail ? detail : "",
            detail ? ")" : "");
}

/* Appends ", text" (or text first) to a line being built. */
static void append(char *line_buf, size_t n, const char *text)
{
    size_t len = strlen(line_buf);
    snprintf(line_buf + len, n - len, "%s%s", len ? ", " : "", text);
}

/* Seconds from a metadata value, or -1 when absent or not a number. */
static double meta_seconds(const wasp_profile *p, const char *key, double scale)
{
    const char *v = wasp_profile_get_meta(p, key);
    char *end;
    double d = v && *v ? strtod(v, &end) : -1;
    return v && *v && !*end && d >= 0 ? d * scale : -1;
}

/* Wall time, CPU time, threads, pid: whichever the profile recorded. */
/* Seconds as nanoseconds, held at the largest count for a duration beyond
 * it (finite and not negative, as the reader checks, but maybe huge). */
static uint64_t seconds_ns(double seconds)
{
    double ns = seconds * 1e9;
    return ns < 1.8e19 ? (uint64_t)ns : UINT64_MAX;
}

static void header_run(const wasp_profile *p, FILE *out)
{
    char buf[WASP_UNIT_BUF], item[96], text[256] = "";
    /* duration_seconds is whole seconds: 0 means "under a second", not 0 ms */
    double wall = meta_seconds(p, "duration_seconds", 1);
    if (wall < 0)
        wall = meta_seconds(p, "duration_ns", 1e-9);
    else if (wall == 0)
        wall = -2;
    if (wall == -2) {
        append(text, sizeof text, "<1 s wall");
    } else if (wall >= 0) {
        snprintf(item, sizeof item, "%s wall",
                 wasp_fmt_duration_ns(seconds_ns(wall), buf, sizeof buf));
        append(text, sizeof text, item);
    } else if (wasp_profile_get_meta(p, "duration")) {
        append(text, sizeof text, wasp_profile_get_meta(p, "duration"));
    }
    double cpu = meta_seconds(p, "cpu_seconds", 1);
    if (cpu >= 0) {
        snprintf(item, sizeof item, "%s CPU",
                 wasp_fmt_duration_ns(seconds_ns(cpu), buf, sizeof buf));
        append(text, sizeof text, item);
    }
    const char *threads = wasp_profile_get_meta(p, "threads");
    const char *busy = wasp_profile_get_meta(p, "busy_threads");
    if (threads) {
        snprintf(item, sizeof item, "%s thread%s", threads, strcmp(threads, "1") ? "s" : "");
        if (busy)
            snprintf(item + strlen(item), sizeof item - strlen(item), " (%s busy)", busy);
        append(text, sizeof text, item);
    }
    const char *pid = wasp_profile_get_meta(p, "pid");
    if (pid) {
        snprintf(item, sizeof item, "pid %s", pid);
        append(text, sizeof text, item);
    }
    if (*text)
        line(out, "run", text);
    if (p->merged > 1) {
        snprintf(text, sizeof text, "%" PRIu32 " profiles (metadata above from the first)",
                 p->merged);
        line(out, "merged", text);
    }
    const char *disabled = wasp_profile_get_meta(p, "disabled_reason");
    if (disabled && *disabled)
        line(out, "DISABLED", disabled);
    /* A snapshot (docs/design.md, "Sessions, dumps and snapshots"), or how
     * the session ended. */
    const char *snapshot = wasp_profile_get_meta(p, "snapshot");
    const char *ended = wasp_profile_get_meta(p, "ended");
    if (snapshot && *snapshot)
        line(out, "SNAPSHOT", snapshot);
    else if (ended && *ended)
        line(out, "ended", ended);
}

static bool is_main_counter(const char *name)
{
    static const char *const main_counters[] = {"samples", "samples.memory", "armed", "trapped",
                                                "classified"};
    for (size_t i = 0; i < sizeof main_counters / sizeof *main_counters; i++)
        if (strcmp(name, main_counters[i]) == 0)
            return true;
    return strncmp(name, "dropped.", 8) == 0;
}

/* Is the counter shown by the section of an analysis shown? */
static bool counter_of_a_section(uint32_t shown, const char *name)
{
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const char *prefix = wasp_report_part_of(id)->counter_prefix;
        if ((shown & (1u << id)) && prefix && strncmp(name, prefix, strlen(prefix)) == 0)
            return true;
    }
    return false;
}

/* The samples line counts armed and trapped samples when an analysis shown
 * arms a watchpoint per sample, or when none is shown (nothing to hide them
 * for); then each shown analysis's own lines (once per function); the drops;
 * and the counters no section shows. */
static void header_counters(const wasp_profile *p, uint32_t shown, FILE *out)
{
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], d[WASP_UNIT_BUF];
    if (!shown || wasp_report_arms_samples(shown))
        fprintf(out, "  %-10s %s taken, %s with a memory access, %s armed, %s trapped\n",
                "samples", wasp_fmt_u64(wasp_profile_get_counter(p, "samples"), a, sizeof a),
                wasp_fmt_u64(wasp_profile_get_counter(p, "samples.memory"), b, sizeof b),
                wasp_fmt_u64(wasp_profile_get_counter(p, "armed"), c, sizeof c),
                wasp_fmt_u64(wasp_profile_get_counter(p, "trapped"), d, sizeof d));
    else if (wasp_profile_get_counter(p, "samples.memory") > 0)
        fprintf(out, "  %-10s %s taken, %s with a memory access\n", "samples",
                wasp_fmt_u64(wasp_profile_get_counter(p, "samples"), a, sizeof a),
                wasp_fmt_u64(wasp_profile_get_counter(p, "samples.memory"), b, sizeof b));
    else
        fprintf(out, "  %-10s %s taken\n", "samples",
                wasp_fmt_u64(wasp_profile_get_counter(p, "samples"), a, sizeof a));
    for (int id = 0; id < WASP_ANALYSES; id++) {
        void (*lines)(const wasp_profile *, FILE *) = wasp_report_part_of(id)->header_text;
        bool first = true; /* the first shown part with this function */
        for (int k = 0; k < id && first; k++)
            first = !((shown & (1u << k)) && wasp_report_part_of(k)->header_text == lines);
        if ((shown & (1u << id)) && lines && first)
            lines(p, out);
    }

    uint64_t dropped = 0;
    for (uint32_t i = 0; i < p->ncounters; i++)
        if (strncmp(p->counters[i].name, "dropped.", 8) == 0)
            dropped += p->counters[i].value;
    fprintf(out, "  %-10s %s", "dropped", dropped ? wasp_fmt_u64(dropped, a, sizeof a) : "none");
    const char *sep = ": ";
    for (uint32_t i = 0; i < p->ncounters; i++) {
        const wasp_counter *k = &p->counters[i];
        if (strncmp(k->name, "dropped.", 8) == 0 && k->value) {
            fprintf(out, "%s%s %s", sep, wasp_fmt_u64(k->value, a, sizeof a), k->name + 8);
            sep = ", ";
        }
    }
    fputc('\n', out);

    sep = "";
    for (uint32_t i = 0; i < p->ncounters; i++) {
        const wasp_counter *k = &p->counters[i];
        if (is_main_counter(k->name) || counter_of_a_section(shown, k->name))
            continue;
        if (!*sep)
            fprintf(out, "  %-10s ", "counters");
        fprintf(out, "%s%s %s", sep, k->name, wasp_fmt_u64(k->value, a, sizeof a));
        sep = ", ";
    }
    if (*sep)
        fputc('\n', out);
}

/* The default header's one line of how wasp measured, the rest under
 * --verbose. */
static void header_used(const wasp_profile *p, FILE *out)
{
    const char *s = wasp_profile_get_meta(p, "sampler");
    const char *w = wasp_profile_get_meta(p, "watch");
    if (!s && !w)
        return;
    fprintf(out, "  %-10s sampler %s, watchpoints %s (--verbose: how, counters, drops)\n",
            "wasp used", s ? s : "unknown", w ? w : "none");
    char thin[WASP_THIN_WARNING_MAX];
    if (wasp_report_thin_evidence(p, thin, sizeof thin))
        line(out, "warning", thin);
}

static void header(const wasp_profile *p, uint32_t shown, bool verbose, FILE *out)
{
    const char *cmd = wasp_profile_get_meta(p, "java_command");
    const char *programs = wasp_profile_get_meta(p, "programs"); /* merged: they differ */
    if (programs)
        fprintf(out, "wasp profile of %s\n", programs);
    else
        fprintf(out, "wasp profile of %s\n", cmd && *cmd ? cmd : "(command not recorded)");
    const char *jvm = wasp_profile_get_meta(p, "jvm");
    if (jvm)
        line(out, "jvm", jvm);
    if (!verbose) {
        header_run(p, out);
        header_used(p, out);
    } else {
        header_sampler(p, out);
        header_watch(p, out);
        header_context(p, out);
        header_run(p, out);
        header_counters(p, shown, out);
    }
    for (uint32_t k = 0; wasp_report_blind(p, k); k++)
        line(out, "warning", wasp_report_blind(p, k));
}

/* ---- contexts ---- */

/* Frames leaf-first k in [from, to) of c. */
static void text_frame_run(const wasp_profile *p, const wasp_context *c, uint32_t from,
                           uint32_t to, int indent, FILE *out)
{
    for (uint32_t k = from; k < to; k++) {
        uint32_t fid = p->frame_refs[c->first + c->nframes - 1 - k]; /* leaf first */
        char label[WASP_FRAME_LABEL_MAX];
        wasp_frame_label(p, &p->frames[fid], label, sizeof label);
        fprintf(out, "%*sat %s\n", indent, "", label);
    }
}

void wasp_text_frames(const wasp_profile *p, const wasp_context *c, int indent, FILE *out)
{
    if (c->nframes == 0)
        fprintf(out, "%*s(no frames recorded)\n", indent, "");
    /* The application frame, leaf-first (the leaf when there is none). */
    const wasp_frame *place = wasp_place_frame(p, c);
    uint32_t at = 0;
    while (place && at < c->nframes && &p->frames[p->frame_refs[c->first + c->nframes - 1 - at]] != place)
        at++;
    uint32_t last = at + TEXT_CALLERS + 1; /* past the place and its callers shown */
    if (last > c->nframes)
        last = c->nframes;
    if (last <= TEXT_MAX_FRAMES) {
        text_frame_run(p, c, 0, last, indent, out);
    } else { /* deep under JDK or JVM code: its innermost frames, then the application's */
        text_frame_run(p, c, 0, TEXT_LEAF_FRAMES, indent, out);
        fprintf(out, "%*s... %" PRIu32 " JDK and JVM frames\n", indent, "", at - TEXT_LEAF_FRAMES);
        text_frame_run(p, c, at, last, indent, out);
    }
    if (c->nframes > last) {
        /* The thread (wasp run --threads) is the root frame, folded away
         * with the callers: said on the fold's line. */
        size_t len;
        const char *thread = wasp_context_thread(p, c, &len);
        if (thread && c->nframes - last > 1)
            fprintf(out, "%*s... %" PRIu32 " more, in thread %.*s\n", indent, "",
                    c->nframes - last - 1, (int)len, thread);
        else if (thread)
            fprintf(out, "%*sin thread %.*s\n", indent, "", (int)len, thread);
        else
            fprintf(out, "%*s... %" PRIu32 " more\n", indent, "", c->nframes - last);
    }
}

void wasp_text_context(const wasp_profile *p, const char *label, uint32_t id, FILE *out)
{
    const wasp_context *c = &p->contexts[id];
    const char *insn = wasp_context_insn(p, c);
    if (insn)
        fprintf(out, "      %-11s %s\n", label, insn); /* a space even past 11 */
    else
        fprintf(out, "      %s\n", label);
    wasp_text_frames(p, c, 8, out);
}

void wasp_text_site_allocation(const wasp_profile *p, const wasp_site *s, FILE *out)
{
    fputs("      allocated at:\n", out);
    wasp_text_frames(p, &p->contexts[s->ctx], 8, out);
}

int wasp_text_ranked(const wasp_profile *p, uint32_t *order, uint32_t n, int top,
                     const char *what, wasp_text_entry entry, const void *arg, FILE *out)
{
    uint32_t shown = wasp_report_shown(top, n);
    int width = snprintf(NULL, 0, "%" PRIu32, shown), rc = 0;
    for (uint32_t i = 0; i < shown && rc == 0; i++)
        rc = entry(p, order[i], i + 1, width, arg, out);
    if (rc == 0 && n > shown)
        fprintf(out, "\n  ... %" PRIu32 " more %s%s (--top N shows more)\n", n - shown, what,
                n - shown == 1 ? "" : "s");
    free(order);
    return rc;
}

int wasp_render_text(const wasp_profile *p, int top, FILE *out)
{
    return wasp_render_text_verbose(p, top, false, out);
}

int wasp_render_text_verbose(const wasp_profile *p, int top, bool verbose, FILE *out)
{
    uint32_t shown = wasp_report_shown_analyses(p);
    header(p, shown, verbose, out);
    if (wasp_summary_text(p, shown, top, out) != 0)
        return -1;
    for (int id = 0; id < WASP_ANALYSES; id++)
        if ((shown & (1u << id)) && wasp_report_part_of(id)->text(p, id, top, out) != 0)
            return -1;
    if (!shown)
        fputs("\nno analysis enabled and no data recorded\n", out);
    return 0;
}
