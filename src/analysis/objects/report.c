/*
 * Object-centric profiling (DJXPerf) in the report: the allocation sites
 * ranked by their share of the sampled memory accesses, each with its
 * allocation context and the contexts that accessed its objects (DJXPerf's
 * object-centric view, its Figure 5). JSON: the top-level "objects" member.
 */
#include "analysis/objects/report_creations.h"
#include "analysis/objects/profile.h"
#include "cli/diff/diff_part.h"
#include "cli/render/html_part.h"
#include "cli/render/report_part.h"
#include "cli/render/view.h"
#include "cli/render/units.h"

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
static void why_no_sites(const wasp_profile *p, int id, FILE *out)
{
    (void)id;
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

static int site_text(const wasp_profile *p, int id, uint32_t index, uint32_t rank, int rank_width,
                     const wasp_view_total *t, FILE *out)
{
    (void)id;
    (void)t;
    char f[WASP_UNIT_BUF], a[2 * WASP_UNIT_BUF + 32], r[WASP_UNIT_BUF];
    const wasp_site *s = &p->sites[index];
    bool single_node = wasp_profile_objects_single_node(p);
    double remote, samples = wasp_profile_site_samples(p, index, &remote);
    fprintf(out, "\n  #%-*" PRIu32 " %6s of accesses   %s   %s", rank_width, rank,
            wasp_fmt_percent(wasp_share(samples, attributed(p, &(double){0})), f, sizeof f),
            wasp_site_class(p, s), wasp_fmt_site_allocations(p, s, a, sizeof a));
    if (!single_node)
        fprintf(out, "   remote %s", wasp_fmt_percent(wasp_share(remote, samples), r, sizeof r));
    fputc('\n', out);
    if (!wasp_site_by_class(p, s) || !wasp_objects_have_creations(p))
        wasp_text_site_allocation(p, s, out); /* else where the class is created says more */
    wasp_objects_creations_text(p, s, TEXT_CREATIONS_PER_SITE, out);
    return 0; /* then its access contexts (the view's list) */
}

static void text_head(const wasp_profile *p, int id, int top, FILE *out)
{
    (void)id;
    (void)top;
    header_text(p, wasp_profile_objects_single_node(p), out);
}

/* ---- the view: sites ranked by access samples, each with its access
 * contexts ---- */

static uint32_t *rank(const wasp_profile *p, int id, const wasp_view_total *t, uint32_t *n)
{
    (void)t;
    (void)id;
    return wasp_profile_sorted_sites(p, n);
}

/* A remote share, NAN (null) on a single node: 0 would suggest it was measured. */
static double remote_share(const wasp_profile *p, double remote, double samples)
{
    return wasp_profile_objects_single_node(p) ? NAN : wasp_share(remote, samples);
}

static void cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                  wasp_view_cell *x)
{
    (void)id;
    double remote, samples = wasp_profile_site_samples(p, index, &remote);
    x[0].num = wasp_share(samples, t->total);
    x[1].site = index;
    x[2].num = samples;
    x[3].num = remote_share(p, remote, samples);
    x[4].site = index;
}

/* "creations": where a class site's objects are made (report_creations.h). */
static int json_member(wasp_json *j, const wasp_profile *p, int id, uint32_t index,
                       const wasp_view_total *t, const char *member, int top)
{
    (void)id;
    (void)t;
    (void)member;
    return wasp_objects_creations_json(j, p, &p->sites[index], top);
}

static uint32_t *rank_in(const wasp_profile *p, int id, uint32_t site, const wasp_view_total *t,
                         uint32_t *n)
{
    (void)t;
    (void)id;
    return wasp_profile_sorted_site_accesses(p, site, n);
}

static void access_cells(const wasp_profile *p, int id, uint32_t index,
                         const wasp_view_total *t, wasp_view_cell *x)
{
    (void)id;
    (void)t;
    const wasp_site_access *a = &wasp_profile_site_accesses(p, &(uint32_t){0})[index];
    x[0].num = wasp_share(a->samples, wasp_profile_site_samples(p, a->site, NULL));
    x[1].num = a->samples;
    x[2].num = remote_share(p, a->remote, a->samples);
    x[3].ctx = a->access_ctx;
}

/* A counter, NAN (null) when the profile does not have it. */
static double counter(const wasp_profile *p, const char *name)
{
    return wasp_has_counter(p, name) ? (double)wasp_profile_get_counter(p, name) : NAN;
}

/* A metadata value that is a number (of nodes, of bytes); NAN (null) when
 * absent or not a number. */
static double meta_number(const wasp_profile *p, const char *meta)
{
    const char *v = wasp_profile_get_meta(p, meta);
    char *end;
    double d = v && *v ? strtod(v, &end) : NAN;
    return !v || !*v || *end || !isfinite(d) ? NAN : d;
}

static void head_cells(const wasp_profile *p, int id, const wasp_view_total *t,
                       wasp_view_cell *x)
{
    (void)t;
    (void)id;
    static const char *const counters[] = {"objects.samples", "objects.unattributed",
                                           "objects.stale", "objects.clearing",
                                           "objects.off_heap", "objects.clearing_unfound"};
    static const char *const metas[] = {"numa_nodes", "objects.min_size",
                                        "objects.sampling_interval",
                                        "objects.sampling_interval_max"};
    x[0].str = wasp_profile_get_meta(p, "objects.metric");
    for (int i = 0; i < 6; i++)
        x[1 + i].num = counter(p, counters[i]);
    double remote, total = attributed(p, &remote);
    x[7].num = total;
    x[8].num = remote_share(p, remote, total);
    for (int i = 0; i < 4; i++)
        x[9 + i].num = meta_number(p, metas[i]);
}

/* Samples weigh the thread CPU time they stand for: as observations, the
 * samples attributed (0: as many as their weights). */
static wasp_view_total total(const wasp_profile *p, int id)
{
    (void)id;
    double remote, all = attributed(p, &remote);
    double taken = (double)wasp_profile_get_counter(p, "objects.samples") -
                   (double)wasp_profile_get_counter(p, "objects.unattributed");
    return (wasp_view_total){all, 0, true, all, taken > 0 ? taken : 0, NULL};
}

static void diff_summary(const wasp_diff_analysis *a, int id, FILE *out)
{
    (void)id;
    char t0[WASP_UNIT_BUF], t1[WASP_UNIT_BUF];
    fprintf(out, "%s " WASP_DIFF_ARROW " %s access samples attributed",
            wasp_fmt_count(a->total[0], t0, sizeof t0), wasp_fmt_count(a->total[1], t1, sizeof t1));
}

#define COL WASP_VIEW_COL
static const wasp_view accesses = {
    .none = "no sample hit its objects",
    .columns = {{"share", "share", WASP_VIEW_SHARE, 0, NULL, -6, NULL, NULL, NULL, NULL, NULL},
                {"samples", "samples", WASP_VIEW_COUNT, WASP_VIEW_VALUE | WASP_VIEW_ESTIMATE, "  ",
                 0, NULL, "sample", NULL, NULL, NULL},
                {"remote_share", "remote", WASP_VIEW_SHARE, WASP_VIEW_OPTIONAL, ", ", 0, "remote ",
                 NULL, NULL, NULL, NULL},
                COL("access", "accessed at", WASP_VIEW_CONTEXT, WASP_VIEW_INLINE)},
    .rank_in = rank_in, .cells = access_cells,
};

static const wasp_view view = {
    .title = "Objects", .entry = "Objects site", .what = "site", .whats = "sites",
    .of = "of access samples", .unit = "samples", .rows = "sites",
    .columns = {COL("share", "share", WASP_VIEW_SHARE, 0),
                COL("class", "class", WASP_VIEW_SITE, WASP_VIEW_KEY),
                COL("samples", "samples", WASP_VIEW_COUNT, WASP_VIEW_VALUE | WASP_VIEW_ESTIMATE),
                COL("remote_share", "remote", WASP_VIEW_SHARE, 0),
                COL("allocation", "allocated at", WASP_VIEW_ALLOCATION, 0),
                COL("creations", "created at", WASP_VIEW_HOOK, 0),
                {"accesses", "accessed", WASP_VIEW_LIST, 0, NULL, TEXT_ACCESSES_PER_SITE,
                 "accessed from:", "access context", &accesses, NULL, NULL}},
    .head = {COL("metric", "metric", WASP_VIEW_STRING, 0),
             COL("samples", "address samples", WASP_VIEW_COUNT, WASP_VIEW_WHOLE),
             COL("unattributed", "unattributed", WASP_VIEW_COUNT, WASP_VIEW_WHOLE),
             COL("stale", "stale", WASP_VIEW_COUNT, WASP_VIEW_WHOLE),
             COL("clearing", "clearing", WASP_VIEW_COUNT, WASP_VIEW_WHOLE),
             COL("off_heap", "off the heap", WASP_VIEW_COUNT, WASP_VIEW_WHOLE),
             COL("clearing_unfound", "clearing, unfound", WASP_VIEW_COUNT, WASP_VIEW_WHOLE),
             COL("attributed", "attributed", WASP_VIEW_COUNT, WASP_VIEW_ESTIMATE),
             COL("remote_share", "remote share", WASP_VIEW_SHARE, 0),
             COL("numa_nodes", "NUMA nodes", WASP_VIEW_COUNT, WASP_VIEW_WHOLE),
             COL("min_size", "min size", WASP_VIEW_BYTES, WASP_VIEW_WHOLE),
             COL("sampling_interval", "sampling interval", WASP_VIEW_BYTES, WASP_VIEW_WHOLE),
             COL("sampling_interval_max", "sampling interval max", WASP_VIEW_BYTES,
                 WASP_VIEW_WHOLE)},
    .rank = rank, .cells = cells, .total = total, .head_cells = head_cells,
    .text_head = text_head, .text_empty = why_no_sites, .text_row = site_text,
    .json_member = json_member, .diff_summary = diff_summary,
};

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
 * sample is one of the program's CPU samples, spent on the site's objects.
 * Sites of one class at one place (the summary's first application frame)
 * are one finding there, their accesses summed (wasp_place_merge). */
static int summary(const wasp_profile *p, int id, int max, wasp_finding_sink *sink)
{
    (void)id;
    double remote, total = attributed(p, &remote);
    uint32_t n, k = 0;
    uint32_t *order = wasp_profile_sorted_sites(p, &n);
    wasp_place_item *items = order ? malloc((n ? n : 1) * sizeof *items) : NULL;
    int rc = items ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        const wasp_site *s = &p->sites[order[i]];
        double samples = wasp_profile_site_samples(p, order[i], &remote);
        if (!(samples > 0))
            break;
        items[k++] = (wasp_place_item){.index = order[i], .key = s->class_name, .ctx = s->ctx,
                                       .created = s->class_name,
                                       .weight = samples};
    }
    if (rc == 0)
        rc = wasp_place_merge(p, items, k, &k);
    for (uint32_t i = 0; rc == 0 && i < k && i < (uint32_t)max; i++) {
        const wasp_site *s = &p->sites[items[i].index];
        double samples = items[i].weight;
        wasp_finding f = {.ctx = s->ctx, .created = s->class_name,
                          .share = wasp_share(samples, total), .cpu = samples,
                          .evidence = samples * wasp_report_taken_per_due(p)};
        char share[WASP_UNIT_BUF];
        if (wasp_site_by_class(p, s))
            rc = class_site_finding(p, items[i].index, &f);
        else
            snprintf(f.what, sizeof f.what, "%s objects allocated here take %s of the sampled "
                     "memory accesses to objects", wasp_site_class(p, s),
                     wasp_fmt_percent(f.share, share, sizeof share));
        if (rc == 0)
            rc = sink->emit(sink, p, &f);
    }
    free(items);
    free(order);
    return rc;
}

const wasp_report_part wasp_report_objects = {
    WASP_VIEW_REPORT(view),
    .summary = summary,
    .title = "Hot objects: allocation sites whose objects the program accesses most",
    .hint = "make these objects smaller or fewer (primitive arrays instead of boxed values, "
            "fields laid out for the access order), or access them less often",
    .shown = shown,
    .counter_prefix = "objects.",
    .json_place = WASP_JSON_TOP_LEVEL,
};

/* Its diff part and HTML section are built from the view (cli/render/view.h). */
const wasp_diff_part wasp_diff_objects = {0};
const wasp_html_part wasp_html_objects = {0};
