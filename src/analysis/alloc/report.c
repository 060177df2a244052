/*
 * Object creation (Inoue and Nakatani's creation profile) in the report: how
 * creations were sampled, the classes ranked by estimated bytes (when the
 * profile has them; else, or with --alloc-rank count, by sampled creations)
 * with their shares, bytes, bytes per CPU second and 95% intervals, then the
 * allocation sites (class + the creating store's context) ranked likewise;
 * what was not usable, by cause. JSON: the top-level "alloc" member.
 */
#include "analysis/alloc/report_creating_line.h"
#include "analysis/alloc/profile.h"
#include "analysis/alloc/ranking.h"
#include "cli/diff/diff_part.h"
#include "cli/render/html_part.h"
#include "cli/render/report_part.h"
#include "cli/render/view.h"
#include "cli/render/units.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TEXT_CLASSES = 10 };

static bool shown(const wasp_profile *p, int id)
{
    (void)id;
    return wasp_profile_has_allocs(p);
}

/* Samples the analysis looked at and could not use, by cause. */
static const char *const causes[][2] = {
    {"alloc.value_lost", "a class-word store whose value the registers no longer held"},
    {"alloc.not_a_class", "a store of that shape that was no object's class"},
    {"alloc.no_layout", "HotSpot's object layout not read"},
    {"alloc.table_full", "a thread's table was full"},
    {"alloc.class_set_full", "too many classes to name"},
    {"alloc.unnamed_object", "a caught creation whose object could not be named"},
    {"alloc.gc_before_naming", "a caught creation a GC moved before it was named"},
    {"alloc.passed_not_counted", "a boundary already allocated, in an object after the one caught"},
};

/* How creations were sampled: samples of stores (a PMU), or watched TLAB
 * page boundaries (the software samplers). */
static const char *method(const wasp_profile *p)
{
    const char *sampler = wasp_profile_get_meta(p, "sampler");
    int stores = sampler ? !strcmp(sampler, "pmu") : !wasp_profile_get_counter(p, "alloc.armed");
    return stores ? "stores" : "boundaries";
}

/* One line per cause with samples: "    3  a thread's table was full". */
static void counters_text(const wasp_profile *p, FILE *out)
{
    double unnamed = 0;
    wasp_profile_get_meta_num(p, "alloc_unnamed_classes", &unnamed);
    const char *head = "  not counted:\n";
    for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++) {
        double v = (double)wasp_profile_get_counter(p, causes[i][0]);
        if (v > 0) {
            fprintf(out, "%s    %7.0f  %s\n", head, v, causes[i][1]);
            head = "";
        }
    }
    if (unnamed > 0)
        fprintf(out, "%s    %7.0f  %s\n", head, unnamed, "class not among the JVM's loaded classes");
}

/* The profiled threads' CPU seconds, the denominator of bytes per second
 * (precise to the ms, where the wall duration is whole seconds); 0: none. */
static double cpu_seconds(const wasp_profile *p)
{
    double s = 0;
    return wasp_profile_get_meta_num(p, "cpu_seconds", &s) && s > 0 ? s : 0;
}

/* "1.2 GiB [1.1 GiB-1.3 GiB], 80.0 MiB/CPU s" */
static const char *fmt_bytes(const wasp_profile *p, double bytes, double catches, double bytes_sq,
                             char *buf, size_t n)
{
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], d[WASP_UNIT_BUF] = "";
    double lo, hi, s = cpu_seconds(p);
    wasp_alloc_bytes_interval(bytes, wasp_alloc_effective_catches(bytes, catches, bytes_sq), &lo,
                              &hi);
    if (s > 0)
        snprintf(d, sizeof d, ", %s/CPU s", wasp_fmt_bytes(bytes / s, c, sizeof c));
    snprintf(buf, n, "%s [%s-", wasp_fmt_bytes(bytes, a, sizeof a),
             wasp_fmt_bytes(lo, b, sizeof b));
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "%s]%s", wasp_fmt_bytes(hi, c, sizeof c), d);
    return buf;
}

/* The share of the threads' TLAB bytes the chains covered (docs/alloc.md,
 * step 5): 1 with *share set, 0 when not known. */
static int covered_share(const wasp_profile *p, double *share)
{
    uint64_t window = wasp_profile_get_counter(p, "alloc.window_bytes");
    *share = window ? (double)wasp_profile_get_counter(p, "alloc.covered_bytes") / (double)window : 0;
    return window > 0;
}

/* The heading: how creations were sampled, what was not counted, the bytes,
 * the classes; then the sites' heading. */
static void text_head(const wasp_profile *p, int id, int top, FILE *out)
{
    (void)id;
    (void)top;
    wasp_alloc_ranking r;
    if (wasp_alloc_rank(p, &r) != 0)
        return;
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF];
    fputs("\nObject creation (Inoue & Nakatani's creation profile)\n", out);
    char c[WASP_UNIT_BUF], d[WASP_UNIT_BUF], e[WASP_UNIT_BUF];
    uint64_t at_store = wasp_profile_get_counter(p, "alloc.store_ran") +
                        wasp_profile_get_counter(p, "alloc.store_ahead");
    if (!strcmp(method(p), "boundaries")) {
        double covered;
        int known = covered_share(p, &covered);
        snprintf(e, sizeof e, "%.0f%%", 100 * covered);
        fprintf(out,
                "  %s sampled creation%s of %s class%s: objects holding watched TLAB page boundaries,\n"
                "  each weighed by its size (named %s at their class-word store, %s once built)\n"
                "  and by the share of the allocation the watches covered (%s of the bytes)\n",
                wasp_fmt_count(r.samples, a, sizeof a), r.samples == 1 ? "" : "s",
                wasp_fmt_count(r.nclasses, b, sizeof b), r.nclasses == 1 ? "" : "es",
                wasp_fmt_u64(at_store, c, sizeof c),
                wasp_fmt_u64(wasp_profile_get_counter(p, "alloc.named_later"), d, sizeof d),
                known ? e : "not known");
    } else
        fprintf(out, "  %s sampled creation%s of %s class%s: sampled stores of a class word\n",
                wasp_fmt_count(r.samples, a, sizeof a), r.samples == 1 ? "" : "s",
                wasp_fmt_count(r.nclasses, b, sizeof b), r.nclasses == 1 ? "" : "es");
    counters_text(p, out);
    if (!strcmp(method(p), "boundaries") && !wasp_profile_get_counter(p, "alloc.armed") &&
        wasp_profile_get_counter(p, "alloc.chain_ended") > 0)
        fputs("  no TLAB page boundary could be watched: the threads had no allocation buffer\n"
              "  with a free page (the JVM runs with -XX:-UseTLAB?)\n", out);
    if (!(r.samples > 0)) {
        wasp_alloc_ranking_free(&r);
        return;
    }
    char line[128];
    if (r.has_bytes) {
        fmt_bytes(p, r.bytes, r.catches, r.bytes_sq, line, sizeof line);
        if (r.measured) { /* no interval: "X [lo-hi], rate" -> "X, rate" */
            char *from = strchr(line, '[') - 1, *to = strchr(line, ']') + 1;
            memmove(from, to, strlen(to) + 1);
        }
        fprintf(out, "  %s bytes allocated: %s\n"
                     "  (intervals: 95%%, from %s catches; rates per CPU second of the profiled\n"
                     "  threads)\n",
                r.outside > 0 ? "TLAB and outside-TLAB" : r.measured ? "TLAB" : "estimated", line, wasp_fmt_count(r.catches, a, sizeof a));
        if (r.outside > 0) /* docs/alloc.md, "Outside TLABs" */
            fprintf(out, "  of which outside TLABs: %s (%s), from %s JVMTI allocation samples\n",
                     wasp_fmt_bytes(r.outside, a, sizeof a),
                     wasp_fmt_percent(wasp_share(r.outside, r.bytes), b, sizeof b),
                     wasp_fmt_u64(wasp_profile_get_counter(p, "alloc.outside_samples"), c,
                                  sizeof c));
    } else {
        fputs("  bytes not recorded (sampled stores, or a profile of an older wasp, or merged\n"
              "  with one)\n",
              out);
    }
    const char *by = r.by_bytes ? "estimated bytes" : "sampled creations";
    fprintf(out, "\n  classes by %s:\n", by);
    uint32_t nclasses = r.nclasses < TEXT_CLASSES ? r.nclasses : TEXT_CLASSES;
    for (uint32_t i = 0; i < nclasses; i++) {
        const wasp_alloc_class *k = &r.classes[i];
        double share =
            r.by_bytes ? wasp_share(k->bytes, r.bytes) : wasp_share(k->samples, r.samples);
        fprintf(out, "    %7s  %s   %s", wasp_fmt_percent(share, a, sizeof a), p->strings[k->cls],
                wasp_fmt_count(k->samples, b, sizeof b));
        if (r.has_bytes)
            fprintf(out, " creations, %s",
                    fmt_bytes(p, k->bytes, k->catches, k->bytes_sq, line, sizeof line));
        if (r.has_bytes && k->outside > 0)
            fprintf(out, ", %s outside TLABs",
                    wasp_fmt_percent(wasp_share(k->outside, k->bytes), a, sizeof a));
        fputc('\n', out);
    }
    if (r.nclasses > nclasses)
        fprintf(out, "    ... %" PRIu32 " more classes\n", r.nclasses - nclasses);
    fprintf(out, "\n  allocation sites by %s:\n", by);
    wasp_alloc_ranking_free(&r);
}

static int site_text(const wasp_profile *p, int id, uint32_t index, uint32_t rank, int rank_width,
                     const wasp_view_total *t, FILE *out)
{
    (void)id;
    const wasp_alloc_ranking *r = t->state;
    const wasp_alloc_entry *e = &wasp_profile_allocs(p, &(uint32_t){0})[index];
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[128];
    double share = r->by_bytes ? wasp_share(r->site_bytes[index], r->bytes)
                               : wasp_share(e->samples, r->samples);
    fprintf(out, "\n  #%-*" PRIu32 " %7s  %s   %s sampled creation%s", rank_width, rank,
            wasp_fmt_percent(share, a, sizeof a), p->strings[e->cls],
            wasp_fmt_count(e->samples, b, sizeof b), e->samples == 1 ? "" : "s");
    if (r->has_bytes)
        fprintf(out, ", %s", fmt_bytes(p, r->site_bytes[index], r->site_catches[index],
                                      r->site_bytes_sq[index], c, sizeof c));
    fputc('\n', out);
    wasp_text_context(p, "stored by", e->ctx, out);
    return 0;
}

/* ---- the view: the allocation sites ranked by estimated bytes (or by
 * sampled creations), the classes before them ---- */

WASP_VIEW_RANKING(alloc, wasp_alloc_ranking, wasp_alloc_rank, wasp_alloc_ranking_free)

static wasp_view_total total(const wasp_profile *p, int id)
{
    (void)id;
    wasp_alloc_ranking *r = alloc_ranked(p);
    /* The diff's noise test counts a site's catches (its evidence column):
     * one catch may stand for dozens of sampled creations (xalan: a String
     * site's 96 from 4 catches), so their share of all catches is what
     * sampling moves. Without bytes, the creations: armed samples carry the
     * weight of those refused meanwhile. */
    if (r && r->has_bytes)
        return (wasp_view_total){r->samples, 0, true, r->catches, r->catches, r};
    return (wasp_view_total){r ? r->samples : 0, 0, true, r ? r->samples : 0,
                             (double)wasp_profile_get_counter(p, "alloc.armed"), r};
}

static uint32_t *rank(const wasp_profile *p, int id, const wasp_view_total *t, uint32_t *n)
{
    (void)p;
    (void)id;
    const wasp_alloc_ranking *r = t->state;
    return r ? wasp_view_copy(r->sites, r->nsites, n) : NULL;
}

/* bytes, its interval, its share, bytes per CPU second, catches and
 * effective catches (NAN, null, without bytes); the total has no interval
 * when it was measured. */
static void bytes_cells(const wasp_profile *p, const wasp_alloc_ranking *r, bool total,
                        double bytes, double catches, double bytes_sq, wasp_view_cell *x)
{
    double lo = bytes, hi = bytes, s = cpu_seconds(p);
    double eff = wasp_alloc_effective_catches(bytes, catches, bytes_sq);
    if (!total || !r->measured)
        wasp_alloc_bytes_interval(bytes, eff, &lo, &hi);
    double v[] = {bytes, lo, hi, wasp_share(bytes, r->bytes), s > 0 ? bytes / s : NAN, catches,
                  eff};
    for (int i = 0; i < 7; i++)
        x[i].num = r->has_bytes ? v[i] : NAN;
}

static void site_cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                       wasp_view_cell *x)
{
    (void)id;
    const wasp_alloc_ranking *r = t->state;
    const wasp_alloc_entry *e = &wasp_profile_allocs(p, &(uint32_t){0})[index];
    x[0].str = p->strings[e->cls];
    x[1].num = e->samples;
    x[2].num = wasp_share(e->samples, r->samples);
    bytes_cells(p, r, false, r->has_bytes ? r->site_bytes[index] : 0,
                r->has_bytes ? r->site_catches[index] : 0,
                r->has_bytes ? r->site_bytes_sq[index] : 0, &x[3]);
    x[10].ctx = e->ctx;
    x[11].ctx = e->ctx;
}

static uint32_t *classes(const wasp_profile *p, int id, uint32_t parent, const wasp_view_total *t,
                         uint32_t *n)
{
    (void)p;
    (void)id;
    (void)parent;
    return wasp_view_in_order(((const wasp_alloc_ranking *)t->state)->nclasses, n);
}

static void class_cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                        wasp_view_cell *x)
{
    (void)id;
    const wasp_alloc_ranking *r = t->state;
    const wasp_alloc_class *c = &r->classes[index];
    x[0].str = p->strings[c->cls];
    x[1].num = c->samples;
    x[2].num = wasp_share(c->samples, r->samples);
    bytes_cells(p, r, false, c->bytes, c->catches, c->bytes_sq, &x[3]);
    x[10].num = c->nsites;
    x[11].num = r->has_bytes ? wasp_share(c->outside, c->bytes) : NAN;
}

static void head_cells(const wasp_profile *p, int id, const wasp_view_total *t, wasp_view_cell *x)
{
    (void)id;
    const wasp_alloc_ranking *r = t->state;
    double covered;
    x[0].str = method(p);
    x[1].num = r->samples;
    x[2].str = r->by_bytes ? "bytes" : "count";
    bytes_cells(p, r, true, r->bytes, r->catches, r->bytes_sq, &x[3]);
    x[10].num = covered_share(p, &covered) ? covered : NAN;
    x[11].num = r->has_bytes ? wasp_share(r->outside, r->bytes) : NAN;
}

/* "not_counted": the samples not usable, by cause. */
static int not_counted(wasp_json *j, const wasp_profile *p, int id, uint32_t index,
                       const wasp_view_total *t, const char *member, int top)
{
    (void)id;
    (void)index;
    (void)t;
    (void)top;
    wasp_json_begin_object(j, member, true);
    for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++)
        wasp_json_double(j, causes[i][0] + 6, (double)wasp_profile_get_counter(p, causes[i][0]));
    double unnamed = 0;
    wasp_profile_get_meta_num(p, "alloc_unnamed_classes", &unnamed);
    wasp_json_double(j, "unnamed_class", unnamed);
    wasp_json_end_object(j);
    return 0;
}

#define COL WASP_VIEW_COL
#define BYTES_COLUMNS(catches_roles)                                                               \
    COL("bytes", "bytes", WASP_VIEW_BYTES, WASP_VIEW_ESTIMATE),                                    \
        COL("bytes_low", "bytes 95% low", WASP_VIEW_BYTES, 0),                                     \
        COL("bytes_high", "bytes 95% high", WASP_VIEW_BYTES, 0),                                   \
        COL("bytes_share", "share of bytes", WASP_VIEW_SHARE, 0),                                  \
        COL("bytes_per_cpu_second", "bytes per CPU s", WASP_VIEW_BYTES, 0),                        \
        COL("catches", "catches", WASP_VIEW_COUNT, catches_roles),                                 \
        COL("effective_catches", "effective catches", WASP_VIEW_COUNT, 0)

static const wasp_view class_table = {
    .title = "Classes", .rows = "classes", .compact = true,
    .columns = {COL("class", "class", WASP_VIEW_STRING, 0),
                COL("samples", "creations", WASP_VIEW_COUNT, WASP_VIEW_VALUE | WASP_VIEW_ESTIMATE),
                COL("share", "share", WASP_VIEW_SHARE, 0), BYTES_COLUMNS(0),
                COL("sites", "sites", WASP_VIEW_COUNT, 0),
                COL("outside_tlab", "outside TLABs", WASP_VIEW_SHARE, 0)},
    .rank_in = classes, .cells = class_cells,
};

static const wasp_view view = {
    .title = "Object creation", .entry = "Allocation site", .what = "site", .whats = "sites",
    .more = "allocation sites", .of = "of sampled creations", .unit = "creations",
    .rows = "sites",
    .columns = {{"class", "class", WASP_VIEW_STRING, WASP_VIEW_KEY | WASP_VIEW_LEAF, NULL, 0, "new ",
                 NULL, NULL, "alloc"},
                COL("samples", "creations", WASP_VIEW_COUNT,
                    WASP_VIEW_VALUE | WASP_VIEW_ESTIMATE | WASP_VIEW_WEIGHT),
                COL("share", "share", WASP_VIEW_SHARE, 0), BYTES_COLUMNS(WASP_VIEW_EVIDENCE),
                COL("allocation", "allocated at", WASP_VIEW_CONTEXT, WASP_VIEW_INLINE),
                {"stored_by", "stored by", WASP_VIEW_CONTEXT, WASP_VIEW_KEY | WASP_VIEW_HIDDEN, NULL,
                 0, "stored by", NULL, NULL}},
    .head = {COL("sampled_by", "sampled by", WASP_VIEW_STRING, 0),
             COL("samples", "sampled creations", WASP_VIEW_COUNT, WASP_VIEW_ESTIMATE),
             COL("ranked_by", "ranked by", WASP_VIEW_STRING, 0), BYTES_COLUMNS(0),
             COL("covered", "covered", WASP_VIEW_SHARE, 0),
             COL("outside_tlab", "outside TLABs", WASP_VIEW_SHARE, 0),
             COL("not_counted", "not counted", WASP_VIEW_HOOK, 0)},
    .tables = {&class_table}, .tables_first = true,
    .rank = rank, .cells = site_cells, .total = total, .release = alloc_release,
    .head_cells = head_cells, .text_head = text_head, .text_row = site_text,
    .json_member = not_counted,
};

/* ---- summary ---- */

/* A summary site (merged by place): its bytes' 95% interval and the
 * effective catches it rests on. */
typedef struct ranked_site {
    wasp_place_item item;
    double low, high, effective;
} ranked_site;

/* By the interval's lower end, most first; ties in the order given. */
static int by_low(const void *a, const void *b)
{
    const ranked_site *x = a, *y = b;
    if (x->low != y->low)
        return x->low > y->low ? -1 : 1;
    return x->item.order < y->item.order ? -1 : x->item.order > y->item.order;
}

/* The allocation sites with the most estimated bytes (or sampled creations:
 * the ranking's order), those at one place (the summary's first application
 * frame, past the new objects' constructors) of one class summed. By bytes,
 * they are ranked by the lower end of their bytes' interval: a catch weighs
 * the bytes allocated since the last pick (up to the gap's bound) times its
 * window's coverage factor, so one catch can outweigh hundreds (h2: one
 * TransactionMap catch was 52 MiB, 35% of the bytes, its interval 0.7-290
 * MiB), and the first screen leads with what the evidence shows at least.
 * Their cost in CPU is the samples counted at the creating line (the TLAB
 * bump, the header, the zeroing): the place's, or the part that is the
 * place's of a callee's line where the objects are created
 * (report_creating_line.h); not the runtime's TLAB refills nor the GC
 * (docs/findings.md). Their evidence, for the few-samples warning, is the
 * effective catches (the catches of equal weight that would spread as
 * much), not CPU time. */
static int summary(const wasp_profile *p, int id, int max, wasp_finding_sink *sink)
{
    (void)id;
    wasp_alloc_ranking r;
    if (wasp_alloc_rank(p, &r) != 0)
        return -1;
    const wasp_alloc_entry *all = wasp_profile_allocs(p, &(uint32_t){0});
    wasp_place_item *items = malloc((r.nsites ? r.nsites : 1) * sizeof *items);
    ranked_site *sites = malloc((r.nsites ? r.nsites : 1) * sizeof *sites);
    uint32_t n = 0;
    int rc = items && sites ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < r.nsites; i++) {
        uint32_t k = r.sites[i];
        const wasp_alloc_entry *e = &all[k];
        items[i] = (wasp_place_item){
            .index = k, .key = e->cls, .ctx = e->ctx, .created = e->cls,
            .weight = r.by_bytes ? r.site_bytes[k] : e->samples,
            /* bytes rest on the catches, not the weighed creations */
            .evidence = r.by_bytes ? r.site_catches[k] : e->samples,
            .weight_sq = r.by_bytes ? r.site_bytes_sq[k] : 0};
    }
    if (rc == 0)
        rc = wasp_place_merge(p, items, r.nsites, &n);
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        ranked_site *s = &sites[i];
        s->item = items[i];
        s->item.order = i;
        s->effective = r.by_bytes ? wasp_alloc_effective_catches(s->item.weight, s->item.evidence,
                                                                  s->item.weight_sq)
                                  : s->item.evidence;
        s->low = s->high = s->item.weight;
        if (r.by_bytes)
            wasp_alloc_bytes_interval(s->item.weight, s->effective, &s->low, &s->high);
    }
    if (rc == 0 && r.by_bytes)
        qsort(sites, n, sizeof *sites, by_low);
    double whole = r.by_bytes ? r.bytes : r.samples;
    for (uint32_t i = 0; rc == 0 && i < n && i < (uint32_t)max; i++) {
        const ranked_site *g = &sites[i];
        wasp_finding f = {.ctx = g->item.ctx, .created = g->item.created,
                          .share = wasp_share(g->item.weight, whole),
                          .cpu = NAN, /* a profile without samples by line: not measured */
                          .cpu_by_line = true, .evidence = g->effective,
                          .evidence_unit = r.by_bytes ? "catches" : "sampled creations"};
        f.cpu_line_samples = wasp_alloc_callee_line_cpu(p, g->item.ctx, g->item.created);
        f.has_cpu_line_samples = isfinite(f.cpu_line_samples);
        char share[WASP_UNIT_BUF], b[WASP_UNIT_BUF], lo[WASP_UNIT_BUF], hi[WASP_UNIT_BUF];
        const char *cls = p->strings[all[g->item.index].cls];
        if (r.by_bytes)
            snprintf(f.what, sizeof f.what,
                     "allocates %s (%s\xe2\x80\x93%s) in %s objects: %s of the estimated bytes",
                     wasp_fmt_bytes(g->item.weight, b, sizeof b),
                     wasp_fmt_bytes(g->low, lo, sizeof lo), wasp_fmt_bytes(g->high, hi, sizeof hi),
                     cls, wasp_fmt_percent(f.share, share, sizeof share));
        else
            snprintf(f.what, sizeof f.what, "creates %s objects: %s of the sampled creations", cls,
                     wasp_fmt_percent(f.share, share, sizeof share));
        rc = sink->emit(sink, p, &f);
    }
    free(items);
    free(sites);
    wasp_alloc_ranking_free(&r);
    return rc;
}

const wasp_report_part wasp_report_alloc = {
    WASP_VIEW_REPORT(view),
    .summary = summary,
    .title = "Allocations: where objects take the most bytes (or are created most often)",
    .hint = "create fewer short-lived objects here: reuse a buffer, use primitives instead of "
            "boxes, size collections up front",
    .shown = shown,
    .counter_prefix = "alloc.",
    .json_place = WASP_JSON_TOP_LEVEL,
};

/* Its diff part and HTML section are built from the view (cli/render/view.h). */
const wasp_diff_part wasp_diff_alloc = {0};
const wasp_html_part wasp_html_alloc = {0};
