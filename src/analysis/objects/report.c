/*
 * Object-centric profiling (DJXPerf) in the report: the allocation sites
 * ranked by their share of the sampled memory accesses, each with its
 * allocation context and the contexts that accessed its objects (DJXPerf's
 * object-centric view, its Figure 5). JSON: the top-level "objects" member.
 */
#include "analysis/objects/creations.h"
#include "analysis/objects/profile.h"
#include "cli/report_part.h"
#include "cli/units.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Access contexts shown per allocation site; creation contexts per class site. */
enum { TEXT_ACCESSES_PER_SITE = 5, TEXT_CREATIONS_PER_SITE = 3 };

static bool shown(const wasp_profile *p, int id)
{
    (void)id;
    return wasp_profile_has_objects(p);
}

/* Samples attributed to a site (the sum over all accesses), and remote ones. */
static double attributed(const wasp_profile *p, double *remote)
{
    uint32_t n;
    const wasp_site_access *a = wasp_profile_site_accesses(p, &n);
    double total = 0, r = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += a[i].samples;
        r += a[i].remote;
    }
    *remote = r;
    return total;
}

/* ---- text ---- */

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

static void header_text(const wasp_profile *p, bool single_node, FILE *out)
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
        /* Samples clearing an object at its own allocation were found by
         * class, then left out at dump (analysis/objects/agent.c). */
        uint64_t clearing = wasp_profile_get_counter(p, "objects.clearing");
        uint64_t by_class = wasp_profile_get_counter(p, "objects.by_class");
        by_class = by_class > clearing ? by_class - clearing : 0;
        uint64_t unfound = wasp_profile_get_counter(p, "objects.clearing_unfound");
        unattr = unattr > unfound ? unattr - unfound : 0;
        clearing += unfound;
        fprintf(out, "  %-10s %s taken", "samples", wasp_fmt_u64(taken, a, sizeof a));
        if (taken) {
            fprintf(out, "; %s hit no tracked object",
                    wasp_fmt_percent((double)unattr / (double)taken, a, sizeof a));
            fprintf(out, ", %s while the object map was stale (after a GC)",
                    wasp_fmt_percent((double)stale / (double)taken, a, sizeof a));
            if (by_class)
                fprintf(out, "; %s untracked, attributed to their class by their headers",
                        wasp_fmt_percent((double)by_class / (double)taken, a, sizeof a));
        }
        fputc('\n', out);
        /* Of the samples that may be in the heap and are not clearing, how
         * many an object took (tracked or by class); profiles that predate
         * these counters do not say. */
        uint64_t off = wasp_profile_get_counter(p, "objects.off_heap");
        if (taken && wasp_has_counter(p, "objects.off_heap")) {
            double remote, got = attributed(p, &remote);
            fprintf(out, "  %-10s %s clearing a new object at its allocation (the allocation's "
                         "work, not attributed), %s surely off the Java heap",
                    "", wasp_fmt_percent((double)clearing / (double)taken, a, sizeof a),
                    wasp_fmt_percent((double)off / (double)taken, b, sizeof b));
            if (taken > off + clearing)
                fprintf(out, "; attributed to an object: %s of the others",
                        wasp_fmt_percent(got / (double)(taken - off - clearing), a, sizeof a));
            fputc('\n', out);
        }
        if (by_class && !wasp_objects_have_creations(p))
            fprintf(out, "  %-10s add -e alloc to see where the untracked objects' classes are "
                         "created (sampled creations)\n", "creations");
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

static void access_text(const wasp_profile *p, const wasp_site_access *a, double site_samples,
                        bool single_node, FILE *out)
{
    char f[WASP_UNIT_BUF], c[WASP_UNIT_BUF], r[WASP_UNIT_BUF];
    const wasp_context *ctx = &p->contexts[a->access_ctx];
    const char *insn = wasp_context_insn(p, ctx);
    fprintf(out, "        %-6s  %s sample%s",
            wasp_fmt_percent(wasp_share(a->samples, site_samples), f, sizeof f),
            wasp_fmt_count(a->samples, c, sizeof c), a->samples == 1 ? "" : "s");
    if (!single_node)
        fprintf(out, ", remote %s",
                wasp_fmt_percent(wasp_share(a->remote, a->samples), r, sizeof r));
    if (insn)
        fprintf(out, "   %s", insn);
    fputc('\n', out);
    wasp_text_frames(p, ctx, 10, out);
}

/* What every site's entry needs. */
struct sites_view {
    double total;     /* samples attributed to any site */
    bool single_node; /* remote shares are not shown */
    int top;          /* JSON: accesses per site */
};

static int site_text(const wasp_profile *p, uint32_t id, uint32_t rank, int rank_width,
                     const void *arg, FILE *out)
{
    const struct sites_view *v = arg;
    char f[WASP_UNIT_BUF], a[2 * WASP_UNIT_BUF + 32], r[WASP_UNIT_BUF];
    const wasp_site *s = &p->sites[id];
    double remote, samples = wasp_profile_site_samples(p, id, &remote);
    fprintf(out, "\n  #%-*" PRIu32 " %6s of accesses   %s   %s", rank_width, rank,
            wasp_fmt_percent(wasp_share(samples, v->total), f, sizeof f), wasp_site_class(p, s),
            wasp_fmt_site_allocations(p, s, a, sizeof a));
    if (!v->single_node)
        fprintf(out, "   remote %s", wasp_fmt_percent(wasp_share(remote, samples), r, sizeof r));
    fputc('\n', out);
    if (!wasp_site_by_class(p, s) || !wasp_objects_have_creations(p))
        wasp_text_site_allocation(p, s, out); /* else where the class is created says more */
    wasp_objects_creations_text(p, s, TEXT_CREATIONS_PER_SITE, out);

    uint32_t n, naccesses;
    uint32_t *order = wasp_profile_sorted_site_accesses(p, id, &n);
    const wasp_site_access *accesses = wasp_profile_site_accesses(p, &naccesses);
    if (!order)
        return -1;
    fputs(n ? "      accessed from:\n" : "      accessed from: no sample hit its objects\n", out);
    uint32_t shown = n < TEXT_ACCESSES_PER_SITE ? n : TEXT_ACCESSES_PER_SITE;
    for (uint32_t i = 0; i < shown; i++)
        access_text(p, &accesses[order[i]], samples, v->single_node, out);
    if (n > shown)
        fprintf(out, "        ... %" PRIu32 " more access context%s\n", n - shown,
                n - shown == 1 ? "" : "s");
    free(order);
    return 0;
}

static int text(const wasp_profile *p, int id, int top, FILE *out)
{
    (void)id;
    double remote;
    struct sites_view v = {attributed(p, &remote), wasp_profile_objects_single_node(p), top};
    header_text(p, v.single_node, out);
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_sites(p, &n);
    if (!order)
        return -1;
    if (n == 0)
        why_no_sites(p, out);
    return wasp_text_ranked(p, order, n, top, "site", site_text, &v, out);
}

/* ---- JSON ---- */

/* A counter, null when the profile does not have it. */
static void json_counter(wasp_json *j, const wasp_profile *p, const char *key, const char *name)
{
    if (wasp_has_counter(p, name))
        wasp_json_u64(j, key, wasp_profile_get_counter(p, name));
    else
        wasp_json_null(j, key);
}

/* A metadata value that is a number (of nodes, of bytes); null when absent
 * or not a number. */
static void json_meta_number(wasp_json *j, const wasp_profile *p, const char *key,
                             const char *meta)
{
    const char *v = wasp_profile_get_meta(p, meta);
    char *end;
    double d = v && *v ? strtod(v, &end) : NAN;
    if (!v || !*v || *end || !isfinite(d))
        wasp_json_null(j, key);
    else if (d >= 0 && d < 1e18 && d == floor(d))
        wasp_json_u64(j, key, (uint64_t)d);
    else
        wasp_json_double(j, key, d);
}

/* A remote share, null on a single node (0 would suggest it was measured). */
static void json_remote_share(wasp_json *j, bool single_node, double remote, double samples)
{
    if (single_node)
        wasp_json_null(j, "remote_share");
    else
        wasp_json_double(j, "remote_share", wasp_share(remote, samples));
}

/* What every access entry of a site needs. */
struct accesses_view {
    double site_samples; /* shares are of these */
    bool single_node;
};

static int access_json(wasp_json *j, const wasp_profile *p, uint32_t index, const void *arg)
{
    const struct accesses_view *site = arg;
    uint32_t n;
    const wasp_site_access *a = &wasp_profile_site_accesses(p, &n)[index];
    wasp_json_begin_object(j, NULL, false);
    wasp_json_double(j, "share", wasp_share(a->samples, site->site_samples));
    wasp_json_double(j, "samples", a->samples);
    json_remote_share(j, site->single_node, a->remote, a->samples);
    wasp_json_context_fields(j, p, a->access_ctx);
    wasp_json_end_object(j);
    return 0;
}

static int site_json(wasp_json *j, const wasp_profile *p, uint32_t id, const void *arg)
{
    const struct sites_view *v = arg;
    const wasp_site *s = &p->sites[id];
    double remote, samples = wasp_profile_site_samples(p, id, &remote);
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_site_accesses(p, id, &n);
    if (!order)
        return -1;
    wasp_json_begin_object(j, NULL, false);
    wasp_json_double(j, "share", wasp_share(samples, v->total));
    wasp_json_site_fields(j, p, s);
    wasp_json_double(j, "samples", samples);
    json_remote_share(j, v->single_node, remote, samples);
    wasp_json_site_allocation(j, p, s);
    if (wasp_objects_creations_json(j, p, s, v->top) != 0)
        return -1;
    struct accesses_view site = {samples, v->single_node};
    if (wasp_json_ranked(j, p, "accesses", order, n, v->top, access_json, &site) != 0)
        return -1;
    wasp_json_end_object(j);
    return 0;
}

static int json(wasp_json *j, const wasp_profile *p, int id, int top)
{
    (void)id;
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_sites(p, &n);
    if (!order)
        return -1;
    double remote;
    struct sites_view v = {attributed(p, &remote), wasp_profile_objects_single_node(p), top};
    wasp_json_begin_object(j, "objects", false);
    wasp_json_string(j, "metric", wasp_profile_get_meta(p, "objects.metric"));
    json_counter(j, p, "samples", "objects.samples");
    json_counter(j, p, "unattributed", "objects.unattributed");
    json_counter(j, p, "stale", "objects.stale");
    json_counter(j, p, "clearing", "objects.clearing");
    json_counter(j, p, "off_heap", "objects.off_heap");
    json_counter(j, p, "clearing_unfound", "objects.clearing_unfound");
    wasp_json_double(j, "attributed", v.total);
    json_remote_share(j, v.single_node, remote, v.total);
    json_meta_number(j, p, "numa_nodes", "numa_nodes");
    json_meta_number(j, p, "min_size", "objects.min_size");
    json_meta_number(j, p, "sampling_interval", "objects.sampling_interval");
    json_meta_number(j, p, "sampling_interval_max", "objects.sampling_interval_max");
    if (wasp_json_ranked(j, p, "sites", order, n, top, site_json, &v) != 0)
        return -1;
    wasp_json_end_object(j);
    return 0;
}

/* ---- stacks ---- */

/* Each site's allocation context weighted by all its access samples, and each
 * access context by its own; the site's class is the leaf of both. */
static int stacks(const wasp_profile *p, int id, wasp_stack_sink *sink)
{
    (void)id;
    uint32_t n, naccesses;
    uint32_t *order = wasp_profile_sorted_sites(p, &n);
    const wasp_site_access *accesses = wasp_profile_site_accesses(p, &naccesses);
    if (!order)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const wasp_site *site = &p->sites[order[i]];
        wasp_stack s = {"objects", "allocation", site->ctx, wasp_site_class(p, site), 0,
                        wasp_profile_site_samples(p, order[i], NULL), false};
        rc = sink->emit(sink, p, &s);
        uint32_t na;
        uint32_t *by_access = rc == 0 ? wasp_profile_sorted_site_accesses(p, order[i], &na) : NULL;
        if (rc == 0 && !by_access)
            rc = -1;
        s.side = "access";
        for (uint32_t k = 0; rc == 0 && k < na; k++) {
            s.ctx = accesses[by_access[k]].access_ctx;
            s.samples = accesses[by_access[k]].samples;
            rc = sink->emit(sink, p, &s);
        }
        free(by_access);
    }
    free(order);
    return rc;
}

/* ---- summary ---- */

/* A class site's finding (untracked objects, by their class): where most of
 * its objects are allocated, when that was sampled — where to act — else
 * where they are accessed most. 0, or -1 out of memory. */
static int class_site_finding(const wasp_profile *p, uint32_t site, wasp_finding *f)
{
    const wasp_site *s = &p->sites[site];
    char share[WASP_UNIT_BUF], most[WASP_UNIT_BUF];
    uint32_t made;
    double made_share;
    if (wasp_objects_top_creation(p, s, &made, &made_share)) {
        f->ctx = made;
        snprintf(f->what, sizeof f->what,
                 "%s objects (untracked) take %s of the sampled memory accesses to objects; "
                 "%s of the class's sampled allocations are here",
                 wasp_site_class(p, s), wasp_fmt_percent(f->share, share, sizeof share),
                 wasp_fmt_percent(made_share, most, sizeof most));
        return 0;
    }
    uint32_t na, *acc = wasp_profile_sorted_site_accesses(p, site, &na);
    if (!acc)
        return -1;
    if (na)
        f->ctx = wasp_profile_site_accesses(p, &(uint32_t){0})[acc[0]].access_ctx;
    free(acc);
    snprintf(f->what, sizeof f->what,
             "%s objects (untracked, allocated elsewhere) accessed here most take %s of the "
             "sampled memory accesses to objects",
             wasp_site_class(p, s), wasp_fmt_percent(f->share, share, sizeof share));
    return 0;
}

/* The sites whose objects take the most sampled accesses: each access
 * sample is one of the program's CPU samples, spent on the site's objects. */
static int summary(const wasp_profile *p, int id, int max, wasp_finding_sink *sink)
{
    (void)id;
    double remote, total = attributed(p, &remote);
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_sites(p, &n);
    if (!order)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n && i < (uint32_t)max && rc == 0; i++) {
        const wasp_site *s = &p->sites[order[i]];
        double samples = wasp_profile_site_samples(p, order[i], &remote);
        if (!(samples > 0))
            break;
        wasp_finding f = {.ctx = s->ctx, .share = wasp_share(samples, total), .cpu = samples,
                          .evidence = samples * wasp_report_taken_per_due(p)};
        char share[WASP_UNIT_BUF];
        if (wasp_site_by_class(p, s))
            rc = class_site_finding(p, order[i], &f);
        else
            snprintf(f.what, sizeof f.what, "%s objects allocated here take %s of the sampled "
                     "memory accesses to objects", wasp_site_class(p, s),
                     wasp_fmt_percent(f.share, share, sizeof share));
        if (rc == 0)
            rc = sink->emit(sink, p, &f);
    }
    free(order);
    return rc;
}

const wasp_report_part wasp_report_objects = {
    .summary = summary,
    .title = "Hot objects: allocation sites whose objects the program accesses most",
    .hint = "make these objects smaller or fewer (primitive arrays instead of boxed values, "
            "fields laid out for the access order), or access them less often",
    .shown = shown,
    .counter_prefix = "objects.",
    .text = text,
    .json_place = WASP_JSON_TOP_LEVEL,
    .json = json,
    .stacks = stacks,
};
