/*
 * The text report: what ran and how it was sampled, the sampler's counters,
 * then per analysis F_prog and the top pairs, each context printed like a
 * Java stack trace (leaf first) with the leaf instruction above it, as in
 * JXPerf's Figure 4; then, when the objects analysis ran, the allocation
 * sites ranked by their share of the sampled memory accesses, each with its
 * allocation context and the contexts that accessed its objects (DJXPerf's
 * object-centric view, its Figure 5); then, when the replicas analysis ran,
 * the allocation sites whose objects replicate each other (OJXPerf): θ, and
 * with a verification ω and γ (its Section 6).
 */
#include "cli/render.h"
#include "cli/units.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TEXT_MAX_FRAMES = 12 }; /* frames per context before "... N more" */
enum { TEXT_ACCESSES_PER_SITE = 5 }; /* access contexts shown per allocation site */
enum { TEXT_COMPARES_PER_SITE = 3 }; /* comparison contexts shown per replica site */

static const char *const titles[WASP_AN_COUNT] = {"Dead stores", "Silent stores", "Silent loads"};
static const char *const verbs[WASP_AN_COUNT] = {"stored", "stored", "loaded"};
static const char *const adjectives[WASP_AN_COUNT] = {"dead", "silent", "silent"};

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
        const char *st = wasp_profile_get_meta(p, "watch_stepped_us");
        fprintf(out, "  %-10s %llu faults on watched pages: %llu emulated (~%s us each), %llu "
                     "single-stepped (~%s us each)\n", "",
                (unsigned long long)faults,
                (unsigned long long)wasp_profile_get_counter(p, "watch.emulated"), em ? em : "?",
                (unsigned long long)(faults - wasp_profile_get_counter(p, "watch.emulated")),
                st ? st : "?");
    }
    uint64_t skipped = wasp_profile_get_counter(p, "dropped.budget");
    uint64_t armed = wasp_profile_get_counter(p, "armed");
    if (skipped)
        fprintf(out, "  %-10s budget spent: %llu samples not armed (%llu armed); raise "
                     "--watch-budget for more pairs at more cost\n", "",
                (unsigned long long)skipped, (unsigned long long)armed);
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
                 wasp_fmt_duration_ns((uint64_t)(wall * 1e9), buf, sizeof buf));
        append(text, sizeof text, item);
    } else if (wasp_profile_get_meta(p, "duration")) {
        append(text, sizeof text, wasp_profile_get_meta(p, "duration"));
    }
    double cpu = meta_seconds(p, "cpu_seconds", 1);
    if (cpu >= 0) {
        snprintf(item, sizeof item, "%s CPU",
                 wasp_fmt_duration_ns((uint64_t)(cpu * 1e9), buf, sizeof buf));
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

/* objects: the objects section shows the "objects." counters, so the
 * generic counters line leaves them out. pairs: a pair analysis is shown;
 * without one (an objects-only run) no watchpoint is armed, and the
 * samples line does not count them. */
static void header_counters(const wasp_profile *p, bool objects, bool pairs, FILE *out)
{
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], d[WASP_UNIT_BUF];
    if (pairs || !objects)
        fprintf(out, "  %-10s %s taken, %s with a memory access, %s armed, %s trapped\n",
                "samples", wasp_fmt_u64(wasp_profile_get_counter(p, "samples"), a, sizeof a),
                wasp_fmt_u64(wasp_profile_get_counter(p, "samples.memory"), b, sizeof b),
                wasp_fmt_u64(wasp_profile_get_counter(p, "armed"), c, sizeof c),
                wasp_fmt_u64(wasp_profile_get_counter(p, "trapped"), d, sizeof d));
    else if (wasp_has_counter(p, "samples.memory"))
        fprintf(out, "  %-10s %s taken, %s with a memory access\n", "samples",
                wasp_fmt_u64(wasp_profile_get_counter(p, "samples"), a, sizeof a),
                wasp_fmt_u64(wasp_profile_get_counter(p, "samples.memory"), b, sizeof b));
    else
        fprintf(out, "  %-10s %s taken\n", "samples",
                wasp_fmt_u64(wasp_profile_get_counter(p, "samples"), a, sizeof a));
    if (wasp_has_counter(p, "classified"))
        fprintf(out, "  %-10s %s classified\n", "pairs",
                wasp_fmt_u64(wasp_profile_get_counter(p, "classified"), a, sizeof a));

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
        if (is_main_counter(k->name) || (objects && strncmp(k->name, "objects.", 8) == 0))
            continue;
        if (!*sep)
            fprintf(out, "  %-10s ", "counters");
        fprintf(out, "%s%s %s", sep, k->name, wasp_fmt_u64(k->value, a, sizeof a));
        sep = ", ";
    }
    if (*sep)
        fputc('\n', out);
}

static void header(const wasp_profile *p, bool pairs, FILE *out)
{
    const char *cmd = wasp_profile_get_meta(p, "java_command");
    fprintf(out, "wasp profile of %s\n", cmd && *cmd ? cmd : "(command not recorded)");
    const char *jvm = wasp_profile_get_meta(p, "jvm");
    if (jvm)
        line(out, "jvm", jvm);
    header_sampler(p, out);
    header_watch(p, out);
    header_run(p, out);
    header_counters(p, wasp_profile_has_objects(p), pairs, out);
}

/* ---- contexts ---- */

/* One frame the way a Java stack trace shows it, without the "at ". */
static void frame_text(const wasp_profile *p, const wasp_frame *f, FILE *out)
{
    const char *name = wasp_profile_string(p, f->name);
    const char *file = f->file ? wasp_profile_string(p, f->file) : NULL;
    if (!name || !*name)
        name = "<unknown>";
    switch (f->kind) {
    case WASP_FRAME_JAVA:
        if (!file)
            fprintf(out, "%s(Unknown Source)", name);
        else if (f->line >= 0)
            fprintf(out, "%s(%s:%" PRId32 ")", name, file, f->line);
        else
            fprintf(out, "%s(%s)", name, file);
        break;
    case WASP_FRAME_NATIVE: {
        /* "libc.so.6`memset" reads as "libc.so.6 memset". */
        const char *tick = strchr(name, '`');
        if (tick)
            fprintf(out, "%.*s %s", (int)(tick - name), name, tick + 1);
        else if (file) {
            const char *base = strrchr(file, '/');
            fprintf(out, "%s %s", base ? base + 1 : file, name);
        } else
            fputs(name, out);
        break;
    }
    case WASP_FRAME_STUB: fprintf(out, "%s [jvm stub]", name); break;
    default: fputs(name, out); break;
    }
}

/* The context's frames, leaf first, each line indented by indent spaces. */
static void frames_text(const wasp_profile *p, const wasp_context *c, int indent, FILE *out)
{
    if (c->nframes == 0)
        fprintf(out, "%*s(no frames recorded)\n", indent, "");
    uint32_t shown = c->nframes < TEXT_MAX_FRAMES ? c->nframes : TEXT_MAX_FRAMES;
    for (uint32_t k = 0; k < shown; k++) {
        uint32_t fid = p->frame_refs[c->first + c->nframes - 1 - k]; /* leaf first */
        fprintf(out, "%*sat ", indent, "");
        frame_text(p, &p->frames[fid], out);
        fputc('\n', out);
    }
    if (c->nframes > shown)
        fprintf(out, "%*s... %" PRIu32 " more\n", indent, "", c->nframes - shown);
}

/* The leaf instruction, NULL when unknown. */
static const char *context_insn(const wasp_profile *p, const wasp_context *c)
{
    const char *insn = c->insn ? wasp_profile_string(p, c->insn) : NULL;
    return insn && *insn ? insn : NULL;
}

static void context_text(const wasp_profile *p, const char *label, uint32_t id, FILE *out)
{
    const wasp_context *c = &p->contexts[id];
    const char *insn = context_insn(p, c);
    if (insn)
        fprintf(out, "      %-12s%s\n", label, insn);
    else
        fprintf(out, "      %s\n", label);
    frames_text(p, c, 8, out);
}

/* ---- analyses ---- */

/* One line saying why an analysis has no pairs, from the sampler's counters. */
static void why_no_pairs(const wasp_profile *p, wasp_analysis a, FILE *out)
{
    char buf[WASP_UNIT_BUF];
    const char *why;
    const char *disabled = wasp_profile_get_meta(p, "disabled_reason");
    if (disabled && *disabled) {
        fputs("  no pairs classified: profiling was disabled (the header says why)\n", out);
        return;
    }
    if (wasp_profile_get_counter(p, "samples") == 0)
        why = "no pairs classified: no samples were taken";
    else if (wasp_has_counter(p, "samples.memory") &&
             wasp_profile_get_counter(p, "samples.memory") == 0)
        why = "no pairs classified: no sample landed on a memory access";
    else if (wasp_profile_get_counter(p, "armed") == 0)
        why = "no pairs classified: no samples were armed";
    else if (wasp_profile_get_counter(p, "trapped") == 0)
        why = "no pairs classified: no watchpoint trapped";
    else if (p->totals[a].pairs > 0) {
        fprintf(out, "  no %s pairs: none of the %s classified pairs was %s\n", adjectives[a],
                wasp_fmt_count(p->totals[a].pairs, buf, sizeof buf), adjectives[a]);
        return;
    } else
        why = "no pairs classified for this analysis";
    fprintf(out, "  %s \xe2\x80\x94 see counters\n", why);
}

static void pair_text(const wasp_profile *p, const wasp_pair *q, uint32_t rank, int rank_width,
                      FILE *out)
{
    char f[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF];
    fprintf(out, "\n  #%-*" PRIu32 " %6s  %9s  %s sample%s%s\n", rank_width, rank,
            wasp_fmt_percent(wasp_fraction_pair(p, q), f, sizeof f),
            wasp_fmt_bytes(q->bytes, b, sizeof b), wasp_fmt_count(q->count, c, sizeof c),
            q->count == 1 ? "" : "s",
            q->flags & WASP_PAIR_APPROX ? "  (approximate: float/double within threshold)" : "");
    context_text(p, "watched:", q->watch_ctx, out);
    context_text(p, "trapped at:", q->trap_ctx, out);
}

static int analysis_text(const wasp_profile *p, wasp_analysis a, int top, FILE *out)
{
    const wasp_totals *t = &p->totals[a];
    char f[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF];
    fprintf(out, "\n%s: %s of %s %s (F_prog)\n", titles[a],
            wasp_fmt_percent(wasp_fraction_prog(p, a), f, sizeof f),
            wasp_fmt_bytes(t->bytes, b, sizeof b), verbs[a]);
    double exact = t->bytes > 0 ? t->wasted / t->bytes : 0;
    fprintf(out, "  exact %s (%s)", wasp_fmt_percent(exact, f, sizeof f),
            wasp_fmt_bytes(t->wasted, b, sizeof b));
    if (a != WASP_AN_DEADSTORE || t->wasted_approx != 0) {
        double approx = t->bytes > 0 ? t->wasted_approx / t->bytes : 0;
        fprintf(out, ", approximate (float/double within threshold) %s (%s)",
                wasp_fmt_percent(approx, f, sizeof f),
                wasp_fmt_bytes(t->wasted_approx, b, sizeof b));
    }
    fprintf(out, "; %s pair%s classified\n", wasp_fmt_count(t->pairs, c, sizeof c),
            t->pairs == 1 ? "" : "s");

    uint32_t n;
    uint32_t *order = wasp_profile_sorted_pairs(p, a, &n);
    if (!order)
        return -1;
    if (n == 0)
        why_no_pairs(p, a, out);
    uint32_t shown = wasp_report_shown(top, n);
    int width = snprintf(NULL, 0, "%" PRIu32, shown);
    for (uint32_t i = 0; i < shown; i++)
        pair_text(p, &p->pairs[order[i]], i + 1, width, out);
    if (n > shown)
        fprintf(out, "\n  ... %" PRIu32 " more pair%s (--top N shows more)\n", n - shown,
                n - shown == 1 ? "" : "s");
    free(order);
    return 0;
}

/* ---- objects (DJXPerf's object-centric view) ---- */

/* A metadata value that is a number of bytes: "1.0 kB"; the value verbatim
 * when it is not a number; NULL when absent. */
static const char *meta_bytes(const wasp_profile *p, const char *key, char *buf, size_t n)
{
    const char *v = wasp_profile_get_meta(p, key);
    if (!v || !*v)
        return NULL;
    char *end;
    double d = strtod(v, &end);
    if (*end || d < 0)
        return v;
    return wasp_fmt_bytes(d, buf, n);
}

static void objects_header(const wasp_profile *p, bool single_node, FILE *out)
{
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF];
    const char *metric = wasp_profile_get_meta(p, "objects.metric");
    if (metric && *metric)
        fprintf(out, "\nObjects by memory-access cost (%s)\n", metric);
    else
        fputs("\nObjects by memory-access cost\n", out);
    if (wasp_has_counter(p, "objects.samples")) {
        uint64_t taken = wasp_profile_get_counter(p, "objects.samples");
        uint64_t unattr = wasp_profile_get_counter(p, "objects.unattributed");
        uint64_t stale = wasp_profile_get_counter(p, "objects.stale");
        fprintf(out, "  %-10s %s taken", "samples", wasp_fmt_u64(taken, a, sizeof a));
        if (taken) {
            fprintf(out, "; %s hit no tracked object",
                    wasp_fmt_percent((double)unattr / (double)taken, a, sizeof a));
            fprintf(out, ", %s while the object map was stale (after a GC)",
                    wasp_fmt_percent((double)stale / (double)taken, a, sizeof a));
        }
        fputc('\n', out);
    }
    const char *min = meta_bytes(p, "objects.min_size", a, sizeof a);
    const char *interval = meta_bytes(p, "objects.sampling_interval", b, sizeof b);
    char m[WASP_UNIT_BUF];
    const char *raised = meta_bytes(p, "objects.sampling_interval_max", m, sizeof m);
    if (min || interval) {
        fprintf(out, "  %-10s ", "tracking");
        if (min)
            fprintf(out, "objects of %s or more", min);
        if (interval)
            fprintf(out, "%sone allocation sampled per %s allocated", min ? ", " : "", interval);
        if (raised)
            fprintf(out, " (up to one per %s while allocation events exceeded alloc-rate)",
                    raised);
        fputc('\n', out);
    }
    const char *nodes = wasp_profile_get_meta(p, "numa_nodes");
    if (single_node)
        fputs("  NUMA: single node \xe2\x80\x94 no remote accesses possible\n", out);
    else if (nodes && *nodes)
        fprintf(out, "  %-10s %s node%s; remote: the page's node is not the accessing CPU's\n",
                "NUMA", nodes, strcmp(nodes, "1") ? "s" : "");
}

/* One line saying why there are no sites. */
static void why_no_sites(const wasp_profile *p, FILE *out)
{
    char a[WASP_UNIT_BUF];
    const char *disabled = wasp_profile_get_meta(p, "disabled_reason");
    uint64_t taken = wasp_profile_get_counter(p, "objects.samples");
    if (disabled && *disabled)
        fputs("  no objects: profiling was disabled (the header says why)\n", out);
    else if (taken == 0)
        fputs("  no objects: no address samples were taken\n", out);
    else
        fprintf(out, "  no objects: none of the %s address samples hit a tracked object\n",
                wasp_fmt_u64(taken, a, sizeof a));
}

static double share(double part, double whole)
{
    return whole > 0 ? part / whole : 0;
}

static int site_text(const wasp_profile *p, uint32_t id, uint32_t rank, int rank_width,
                     double total, bool single_node, FILE *out)
{
    char f[WASP_UNIT_BUF], c[WASP_UNIT_BUF], b[WASP_UNIT_BUF], r[WASP_UNIT_BUF];
    const wasp_site *s = &p->sites[id];
    double remote, samples = wasp_profile_site_samples(p, id, &remote);
    const char *cls = wasp_profile_string(p, s->class_name);
    fprintf(out, "\n  #%-*" PRIu32 " %6s of accesses   %s   %s allocation%s (%s)", rank_width, rank,
            wasp_fmt_percent(share(samples, total), f, sizeof f),
            cls && *cls ? cls : "<unknown class>", wasp_fmt_count(s->allocations, c, sizeof c),
            s->allocations == 1 ? "" : "s", wasp_fmt_bytes(s->bytes, b, sizeof b));
    if (!single_node)
        fprintf(out, "   remote %s", wasp_fmt_percent(share(remote, samples), r, sizeof r));
    fputc('\n', out);
    fputs("      allocated at:\n", out);
    frames_text(p, &p->contexts[s->ctx], 8, out);

    uint32_t n;
    uint32_t *order = wasp_profile_sorted_site_accesses(p, id, &n);
    if (!order)
        return -1;
    if (n == 0)
        fputs("      accessed from: no sample hit its objects\n", out);
    else
        fputs("      accessed from:\n", out);
    uint32_t shown = n < TEXT_ACCESSES_PER_SITE ? n : TEXT_ACCESSES_PER_SITE;
    for (uint32_t i = 0; i < shown; i++) {
        const wasp_site_access *a = &p->accesses[order[i]];
        const wasp_context *ctx = &p->contexts[a->access_ctx];
        const char *insn = context_insn(p, ctx);
        fprintf(out, "        %-6s  %s sample%s", wasp_fmt_percent(share(a->samples, samples), f, sizeof f),
                wasp_fmt_count(a->samples, c, sizeof c), a->samples == 1 ? "" : "s");
        if (!single_node)
            fprintf(out, ", remote %s", wasp_fmt_percent(share(a->remote, a->samples), r, sizeof r));
        if (insn)
            fprintf(out, "   %s", insn);
        fputc('\n', out);
        frames_text(p, ctx, 10, out);
    }
    if (n > shown)
        fprintf(out, "        ... %" PRIu32 " more access context%s\n", n - shown,
                n - shown == 1 ? "" : "s");
    free(order);
    return 0;
}

static int objects_text(const wasp_profile *p, int top, FILE *out)
{
    bool single_node = wasp_profile_objects_single_node(p);
    objects_header(p, single_node, out);
    double total = 0; /* samples attributed to a site */
    for (uint32_t i = 0; i < p->naccesses; i++)
        total += p->accesses[i].samples;
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_sites(p, &n);
    if (!order)
        return -1;
    if (n == 0)
        why_no_sites(p, out);
    uint32_t shown = wasp_report_shown(top, n);
    int width = snprintf(NULL, 0, "%" PRIu32, shown);
    int rc = 0;
    for (uint32_t i = 0; i < shown && rc == 0; i++)
        rc = site_text(p, order[i], i + 1, width, total, single_node, out);
    if (rc == 0 && n > shown)
        fprintf(out, "\n  ... %" PRIu32 " more site%s (--top N shows more)\n", n - shown,
                n - shown == 1 ? "" : "s");
    free(order);
    return rc;
}

/* ---- object replicas (OJXPerf) ---- */

/* "α 3.1%  ω = θ−α 73.0%  γ 88.2%  (verified: ...)" for a verified site. */
static void replica_check_text(const wasp_site *s, const wasp_replica_check *k, double theta,
                               FILE *out)
{
    char a[WASP_UNIT_BUF], w[WASP_UNIT_BUF], g[WASP_UNIT_BUF], n[WASP_UNIT_BUF],
        i[WASP_UNIT_BUF], f[WASP_UNIT_BUF];
    double gamma = wasp_replica_gamma(theta, k->alpha, s->allocations);
    fprintf(out,
            "      \xce\xb1 %s  \xcf\x89 = \xce\xb8\xe2\x88\x92\xce\xb1 %s  \xce\xb3 %s  "
            "(verified: %s object pair%s, %s identical; sampled-field false positives %s)\n",
            wasp_fmt_percent(k->alpha, a, sizeof a),
            wasp_fmt_percent(wasp_replica_omega(theta, k->alpha), w, sizeof w),
            isnan(gamma) ? "n/a" : wasp_fmt_percent(gamma, g, sizeof g),
            wasp_fmt_count(k->pairs, n, sizeof n), k->pairs == 1 ? "" : "s",
            wasp_fmt_percent(share(k->identical, k->pairs), i, sizeof i),
            wasp_fmt_percent(k->false_positive, f, sizeof f));
}

static int replica_site_text(const wasp_profile *p, uint32_t id, uint32_t rank, int rank_width,
                             FILE *out)
{
    char t[WASP_UNIT_BUF], c[WASP_UNIT_BUF], a[WASP_UNIT_BUF], b[WASP_UNIT_BUF];
    const wasp_site *s = &p->sites[id];
    double comparisons, theta = wasp_replica_theta(p, id, &comparisons);
    const char *cls = wasp_profile_string(p, s->class_name);
    fprintf(out, "\n  #%-*" PRIu32 "  \xce\xb8 %s over %s comparison%s   %s   %s allocation%s (%s)\n",
            rank_width, rank, wasp_fmt_percent(theta, t, sizeof t),
            wasp_fmt_count(comparisons, c, sizeof c), comparisons == 1 ? "" : "s",
            cls && *cls ? cls : "<unknown class>", wasp_fmt_count(s->allocations, a, sizeof a),
            s->allocations == 1 ? "" : "s", wasp_fmt_bytes(s->bytes, b, sizeof b));
    const wasp_replica_check *k = wasp_profile_replica_check(p, id);
    if (k)
        replica_check_text(s, k, theta, out);
    fputs("      allocated at:\n", out);
    frames_text(p, &p->contexts[s->ctx], 8, out);

    uint32_t n;
    uint32_t *order = wasp_profile_sorted_site_replicas(p, id, &n);
    if (!order)
        return -1;
    fputs("      compared at:\n", out);
    uint32_t shown = n < TEXT_COMPARES_PER_SITE ? n : TEXT_COMPARES_PER_SITE;
    for (uint32_t i = 0; i < shown; i++) {
        const wasp_replica *r = &p->replicas[order[i]];
        const wasp_context *ctx = &p->contexts[r->access_ctx];
        const char *insn = context_insn(p, ctx);
        double all = r->same + r->different;
        fprintf(out, "        %s comparison%s, \xce\xb8 %s", wasp_fmt_count(all, c, sizeof c),
                all == 1 ? "" : "s", wasp_fmt_percent(share(r->same, all), t, sizeof t));
        if (insn)
            fprintf(out, "   %s", insn);
        fputc('\n', out);
        frames_text(p, ctx, 10, out);
    }
    if (n > shown)
        fprintf(out, "        ... %" PRIu32 " more comparison context%s\n", n - shown,
                n - shown == 1 ? "" : "s");
    free(order);
    return 0;
}

static int replicas_text(const wasp_profile *p, int top, FILE *out)
{
    fputs("\nObject replicas (OJXPerf)\n", out);
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_replica_sites(p, &n);
    if (!order)
        return -1;
    uint32_t shown = wasp_report_shown(top, n);
    if (n == 0) {
        const char *disabled = wasp_profile_get_meta(p, "disabled_reason");
        fputs(disabled && *disabled
                  ? "  no replica comparisons: profiling was disabled (the header says why)\n"
                  : "  no replica comparisons recorded\n",
              out);
    }
    bool unverified = false;
    for (uint32_t i = 0; i < shown; i++)
        unverified |= !wasp_profile_replica_check(p, order[i]);
    if (unverified)
        fputs("  \xcf\x89 and \xce\xb3 need \xce\xb1: run with --verify-top N\n", out);
    int width = snprintf(NULL, 0, "%" PRIu32, shown);
    int rc = 0;
    for (uint32_t i = 0; i < shown && rc == 0; i++)
        rc = replica_site_text(p, order[i], i + 1, width, out);
    if (rc == 0 && n > shown)
        fprintf(out, "\n  ... %" PRIu32 " more site%s (--top N shows more)\n", n - shown,
                n - shown == 1 ? "" : "s");
    free(order);
    return rc;
}

int wasp_render_text(const wasp_profile *p, int top, FILE *out)
{
    bool enabled[WASP_AN_COUNT], pairs = false;
    wasp_report_enabled(p, enabled);
    for (int a = 0; a < WASP_AN_COUNT; a++)
        pairs |= enabled[a];
    header(p, pairs, out);
    bool any = false;
    for (int a = 0; a < WASP_AN_COUNT; a++) {
        if (!enabled[a])
            continue;
        any = true;
        if (analysis_text(p, (wasp_analysis)a, top, out) != 0)
            return -1;
    }
    if (wasp_profile_has_objects(p)) {
        any = true;
        if (objects_text(p, top, out) != 0)
            return -1;
    }
    if (wasp_profile_has_replicas(p)) {
        any = true;
        if (replicas_text(p, top, out) != 0)
            return -1;
    }
    if (!any)
        fputs("\nno analysis enabled and no data recorded\n", out);
    return 0;
}
