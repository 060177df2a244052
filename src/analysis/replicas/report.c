/*
 * Object replicas (OJXPerf) in the report: the allocation sites whose
 * objects replicate each other, ranked by replicated bytes as far as the
 * evidence supports them (profile.h, wasp_profile_sorted_replica_sites),
 * each with its replicated bytes (θ × allocated bytes), θ's interval and
 * comparisons, and ω and γ when a verification measured α (its Section 6).
 * JSON: the top-level "replicas" member.
 */
#include "analysis/objects/profile.h"
#include "analysis/objects/report_creations.h"
#include "analysis/replicas/profile.h"
#include "cli/diff/diff_part.h"
#include "cli/render/html_part.h"
#include "cli/render/report_part.h"
#include "cli/render/view.h"
#include "cli/render/units.h"
#include "profile/cpu_lines.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TEXT_COMPARES_PER_SITE = 3 }; /* comparison contexts shown per replica site */
/* The summary lists a place of fewer comparisons than this after those of
 * more: over 1 comparison θ is 0% or 100% whatever the objects, and
 * Wilson's low end (20.7%) still clears the floor, so on xalan, rhino and
 * sunflow such a site of large arrays led a finding measured over 14 or
 * 349 comparisons. With 5 of 5 equal the low end is 56.6%. */
enum { FEW_COMPARISONS = 5 };

static bool shown(const wasp_profile *p, int id)
{
    (void)id;
    return wasp_profile_has_replicas(p);
}

/* What the view and the text show of one site. */
struct replica_site {
    const wasp_site *site;
    double theta, comparisons, same; /* same: summed in record order, as θ is */
    double zero;                      /* of the same, comparisons of zero words */
    const wasp_replica_check *check; /* NULL when not verified */
    const wasp_replica *records;     /* the profile's */
    uint32_t *order, n;              /* the site's records ranked (the caller frees order) */
};

/* θ × the site's allocated bytes (sampled allocations); NAN for a site
 * without allocated bytes (a class site: untracked objects). */
static double replicated_bytes(const wasp_site *s, double theta)
{
    return s->bytes > 0 ? theta * s->bytes : NAN;
}

/* The site's sums and check, without its records' order. */
static void site_sums(const wasp_profile *p, uint32_t id, struct replica_site *v)
{
    uint32_t all;
    v->site = &p->sites[id];
    v->theta = wasp_replica_theta(p, id, &v->comparisons);
    v->check = wasp_profile_replica_check(p, id);
    v->records = wasp_profile_replicas(p, &all);
    v->same = 0;
    for (uint32_t i = 0; i < all; i++)
        if (v->records[i].site == id)
            v->same += v->records[i].same;
    v->zero = wasp_replica_site_zero(p, id);
    v->order = NULL;
    v->n = 0;
}

static int replica_site(const wasp_profile *p, uint32_t id, struct replica_site *v)
{
    site_sums(p, id, v);
    v->order = wasp_profile_sorted_site_replicas(p, id, &v->n);
    return v->order ? 0 : -1;
}

/* ---- text ---- */

/* Whether a site's (or group's) equal comparisons are mostly of zero words. */
static bool mostly_zero(double zero, double same)
{
    return same > 0 && zero >= WASP_REPLICA_MOSTLY_ZERO * same;
}

/* An array's zero words are space the program did not write (a scratch
 * array sized for the worst case); an instance's zero fields are values
 * (null, 0, false) it may well have set. */
static bool is_array(const char *cls)
{
    size_t n = strlen(cls);
    return n > 2 && cls[n - 1] == ']';
}

/* "α 3.1%  ω = θ−α 73.0%  γ 88.2%  (verified: ...)" for a verified site. */
static void check_text(const wasp_site *s, const wasp_replica_check *k, double theta, FILE *out)
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
            wasp_fmt_percent(wasp_share(k->identical, k->pairs), i, sizeof i),
            wasp_fmt_percent(k->false_positive, f, sizeof f));
}

static int site_text(const wasp_profile *p, int id, uint32_t index, uint32_t rank, int rank_width,
                     const wasp_view_total *totals, FILE *out)
{
    (void)id;
    (void)totals;
    char t[WASP_UNIT_BUF], c[WASP_UNIT_BUF], a[2 * WASP_UNIT_BUF + 32], l[WASP_UNIT_BUF],
        h[WASP_UNIT_BUF], b[WASP_UNIT_BUF];
    struct replica_site v;
    site_sums(p, index, &v);
    const wasp_site *s = v.site;
    double lo, hi;
    wasp_replica_theta_interval(v.same, v.comparisons, &lo, &hi);
    double replicated = replicated_bytes(s, v.theta);
    /* The interval and the comparisons are the evidence: a θ of 0% or 100%
     * over 4 comparisons says little, and the reader should see that. */
    fprintf(out,
            "\n  #%-*" PRIu32 "  replicated %s   \xce\xb8 %s (95%%: %s-%s) over %s comparison%s"
            "   %s   %s\n",
            rank_width, rank, isnan(replicated) ? "n/a" : wasp_fmt_bytes(replicated, b, sizeof b),
            wasp_fmt_percent(v.theta, t, sizeof t),
            wasp_fmt_percent(lo, l, sizeof l), wasp_fmt_percent(hi, h, sizeof h),
            wasp_fmt_count(v.comparisons, c, sizeof c), v.comparisons == 1 ? "" : "s",
            wasp_site_class(p, s), wasp_fmt_site_allocations(p, s, a, sizeof a));
    if (v.check)
        check_text(s, v.check, v.theta, out);
    if (mostly_zero(v.zero, v.same))
        fprintf(out, "      %s of the equal comparisons compared %s\n",
                wasp_fmt_percent(v.zero / v.same, t, sizeof t),
                is_array(wasp_site_class(p, s))
                    ? "zero words (space not yet written, or zeros written)"
                    : "zero or null fields (their default values)");
    wasp_text_site_allocation(p, s, out);
    return 0; /* then its comparison contexts (the view's list) */
}

/* The heading: how the sites are ranked, so a reader weighs them so. */
static void text_head(const wasp_profile *p, int id, int top, FILE *out)
{
    (void)id;
    fputs("\nObject replicas (OJXPerf)\n", out);
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_replica_sites(p, &n);
    if (!order)
        return;
    if (n > 0)
        fprintf(out,
                "  ranked by replicated bytes (\xce\xb8 \xc3\x97 allocated bytes) at the low end of "
                "\xce\xb8's 95%% interval;\n"
                "  sites whose interval reaches below %.0f%% after those that replicate, and class "
                "sites\n"
                "  (bytes unknown) after allocation sites, by that low end \xc3\x97 sampled "
                "accesses\n",
                100 * WASP_REPLICA_MIN_THETA_LOW);
    uint32_t shown = wasp_report_shown(top, n);
    bool unverified = false;
    for (uint32_t i = 0; i < shown; i++)
        unverified |= !wasp_profile_replica_check(p, order[i]);
    if (unverified)
        fputs("  \xcf\x89 and \xce\xb3 need \xce\xb1: run with --verify-top N\n", out);
    free(order);
}

static void text_empty(const wasp_profile *p, int id, FILE *out)
{
    (void)id;
    const char *disabled = wasp_profile_get_meta(p, "disabled_reason");
    fputs(disabled && *disabled
              ? "  no replica comparisons: profiling was disabled (the header says why)\n"
              : "  no replica comparisons recorded\n",
          out);
}

/* ---- the view: sites ranked as profile.h ranks them, each with its
 * comparison contexts ---- */

static uint32_t *rank(const wasp_profile *p, int id, const wasp_view_total *t, uint32_t *n)
{
    (void)t;
    (void)id;
    return wasp_profile_sorted_replica_sites(p, n);
}

static void cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                  wasp_view_cell *x)
{
    (void)id;
    (void)t;
    struct replica_site v;
    site_sums(p, index, &v);
    const wasp_replica_check *k = v.check;
    double lo, hi;
    wasp_replica_theta_interval(v.same, v.comparisons, &lo, &hi);
    x[0].num = replicated_bytes(v.site, v.theta);
    x[1].num = v.theta;
    x[2].num = lo;
    x[3].num = hi;
    x[4].num = v.comparisons;
    x[5].num = v.same;
    x[6].num = v.comparisons - v.same;
    x[7].num = v.zero;
    x[8].site = index;
    x[9].num = wasp_profile_site_samples(p, index, NULL);
    x[10].num = k ? k->alpha : NAN;
    x[11].num = k ? wasp_replica_omega(v.theta, k->alpha) : NAN;
    x[12].num = k ? wasp_replica_gamma(v.theta, k->alpha, v.site->allocations) : NAN;
    x[14].site = index;
}

/* "verified": the verification's counts, null without one. */
static int json_member(wasp_json *j, const wasp_profile *p, int id, uint32_t index,
                       const wasp_view_total *t, const char *member, int top)
{
    (void)id;
    (void)t;
    (void)top;
    const wasp_replica_check *k = wasp_profile_replica_check(p, index);
    if (!k) {
        wasp_json_null(j, member);
        return 0;
    }
    wasp_json_begin_object(j, member, true);
    wasp_json_double(j, "pairs", k->pairs);
    wasp_json_double(j, "identical", k->identical);
    wasp_json_double(j, "false_positive", k->false_positive);
    wasp_json_end_object(j);
    return 0;
}

static uint32_t *rank_in(const wasp_profile *p, int id, uint32_t site, const wasp_view_total *t,
                         uint32_t *n)
{
    (void)t;
    (void)id;
    return wasp_profile_sorted_site_replicas(p, site, n);
}

static void access_cells(const wasp_profile *p, int id, uint32_t index,
                         const wasp_view_total *t, wasp_view_cell *x)
{
    (void)id;
    (void)t;
    const wasp_replica *r = &wasp_profile_replicas(p, &(uint32_t){0})[index];
    x[0].num = r->same + r->different;
    x[1].num = wasp_share(r->same, r->same + r->different);
    x[2].ctx = r->access_ctx;
    x[3].num = r->same;
}

static wasp_view_total total(const wasp_profile *p, int id)
{
    (void)id;
    uint32_t nrec;
    const wasp_replica *rec = wasp_profile_replicas(p, &nrec);
    double all = 0, same = 0;
    for (uint32_t i = 0; i < nrec; i++) {
        all += rec[i].same + rec[i].different;
        same += rec[i].same;
    }
    return (wasp_view_total){all, all > 0 ? same / all : 0, false, 0, 0, NULL};
}

/* "equal values in 40.0% -> 5.0% (-35.0 points) of 1,000 -> 900 comparisons". */
static void diff_summary(const wasp_diff_analysis *a, int id, FILE *out)
{
    (void)id;
    char f0[WASP_UNIT_BUF], f1[WASP_UNIT_BUF], t0[WASP_UNIT_BUF], t1[WASP_UNIT_BUF];
    fprintf(out,
            "equal values in %s " WASP_DIFF_ARROW " %s (%+.1f points) of %s " WASP_DIFF_ARROW
            " %s comparisons",
            wasp_fmt_percent(a->fraction[0], f0, sizeof f0),
            wasp_fmt_percent(a->fraction[1], f1, sizeof f1),
            100 * (a->fraction[1] - a->fraction[0]), wasp_fmt_count(a->total[0], t0, sizeof t0),
            wasp_fmt_count(a->total[1], t1, sizeof t1));
}

static const wasp_view accesses = {
    .columns = {{"comparisons", "comparisons", WASP_VIEW_COUNT, WASP_VIEW_VALUE, NULL, 0, NULL,
                 "comparison", NULL, NULL, NULL},
                {"theta", "\xce\xb8", WASP_VIEW_SHARE, 0, ", ", 0, "\xce\xb8 ", NULL, NULL, NULL,
                 NULL},
                {"at", "compared at", WASP_VIEW_CONTEXT, WASP_VIEW_INLINE, NULL, 0, NULL, NULL,
                 NULL, "compare"},
                /* stacks weigh a comparison context by its equal comparisons */
                {"same", "equal", WASP_VIEW_COUNT, WASP_VIEW_WEIGHT | WASP_VIEW_HIDDEN, NULL, 0,
                 NULL, NULL, NULL, NULL}},
    .rank_in = rank_in, .cells = access_cells,
};

#define COL WASP_VIEW_COL
static const wasp_view view = {
    .title = "Object replicas", .entry = "Replica site", .what = "site", .whats = "sites",
    .of = "of comparisons", .unit = "equal comparisons", .rows = "sites", .has_fraction = true,
    .columns = {COL("replicated_bytes", "replicated", WASP_VIEW_BYTES, WASP_VIEW_ESTIMATE),
                COL("theta", "\xce\xb8", WASP_VIEW_SHARE, WASP_VIEW_ESTIMATE),
                COL("theta_low", "\xce\xb8 95% low", WASP_VIEW_SHARE, 0),
                COL("theta_high", "\xce\xb8 95% high", WASP_VIEW_SHARE, 0),
                COL("comparisons", "comparisons", WASP_VIEW_COUNT, 0),
                COL("same", "equal", WASP_VIEW_COUNT, WASP_VIEW_VALUE),
                COL("different", "different", WASP_VIEW_COUNT, 0),
                COL("zero_equal", "equal zeros", WASP_VIEW_COUNT, 0),
                COL("class", "class", WASP_VIEW_SITE, WASP_VIEW_KEY),
                COL("samples", "samples", WASP_VIEW_COUNT, WASP_VIEW_ESTIMATE),
                COL("alpha", "\xce\xb1", WASP_VIEW_SHARE, 0),
                COL("omega", "\xcf\x89", WASP_VIEW_SHARE, 0),
                COL("gamma", "\xce\xb3", WASP_VIEW_SHARE, 0),
                COL("verified", "verified", WASP_VIEW_HOOK, 0),
                {"allocation", "allocated at", WASP_VIEW_ALLOCATION, 0, NULL, 0, NULL, NULL, NULL,
                 "site"},
                {"accesses", "compared at", WASP_VIEW_LIST, 0, NULL, TEXT_COMPARES_PER_SITE,
                 "compared at:", "comparison context", &accesses, NULL, NULL}},
    .rank = rank, .cells = cells, .total = total, .text_head = text_head,
    .text_empty = text_empty, .text_row = site_text, .json_member = json_member,
    .diff_summary = diff_summary,
};

/* ---- summary ---- */

/* Whether (name, line) of place f is among the n in seen. */
static bool seen_place(const wasp_frame *const *seen, uint32_t n, const wasp_frame *f)
{
    for (uint32_t i = 0; i < n; i++)
        if (seen[i]->name == f->name && seen[i]->line == f->line)
            return true;
    return false;
}

/* A summary finding: the sites shown to replicate whose tracked objects of
 * one class are created at one place (the summary names a place, and paths
 * that part beyond it are one finding there: Service.bufferCopy:150 was
 * listed twice), their evidence summed; a class site (untracked objects)
 * alone. */
typedef struct replica_group {
    uint32_t head;         /* its first site in the ranking: its context names it */
    const wasp_frame *at;  /* the place; NULL for a class site */
    uint32_t cls;
    double same, zero, comparisons, replicated, accesses, pairs, identical;
    bool has_replicated, checked;
} replica_group;

/* The program's CPU samples (cpu_lines.h) at the lines where group g's
 * objects were created and accessed: its place (the line that creates them
 * and zeroes them: a copy's cost begins there, and short-lived objects,
 * which a sample seldom hits, are compared at their births alone), then
 * the places of its sites' records, comparisons' contexts and sampled
 * accesses' places (profile.h), each (method, line) once. A birth's
 * comparison (no instruction: wasp read the object at the site's next
 * allocation) is no access of the program's. A line inlined into another
 * of them would count twice (their samples are kept per line, not per
 * chain). NAN without samples by line, or out of memory. */
static double access_lines_cpu(const wasp_profile *p, const int32_t *group_of, int32_t g,
                               const wasp_frame *created)
{
    if (!wasp_profile_has_cpu_lines(p))
        return NAN;
    uint32_t n_records, n = 0;
    const wasp_replica *x = wasp_profile_replicas(p, &n_records);
    const wasp_frame **seen = malloc((n_records + 1) * sizeof *seen);
    if (!seen)
        return NAN;
    double k = 0;
    if (created) {
        seen[n++] = created;
        k += wasp_profile_cpu_at(p, created->name, created->line);
    }
    for (uint32_t i = 0; i < n_records; i++) {
        if (x[i].site >= p->nsites || group_of[x[i].site] != g)
            continue;
        const wasp_context *c = &p->contexts[x[i].access_ctx];
        const wasp_frame *at = wasp_context_insn(p, c) ? wasp_place_frame(p, c) : NULL;
        if (!at || seen_place(seen, n, at))
            continue;
        seen[n++] = at;
        k += wasp_profile_cpu_at(p, at->name, at->line);
    }
    free(seen);
    return k;
}

/* Where the summary places a site's objects, in words after "X objects":
 * its allocation path's; for a class site (untracked objects, no path of
 * their own) where most objects of the class were created, when the
 * creation profile sampled that (f->ctx moves there), else where they were
 * compared most (a birth's comparison, no access of the program's, aside). */
static const char *class_site_place(const wasp_profile *p, const struct replica_site *v,
                                    wasp_finding *f, char *buf, size_t n)
{
    uint32_t made;
    double share;
    if (!wasp_site_by_class(p, v->site))
        return "created here";
    if (wasp_objects_top_creation(p, v->site, &made, &share)) {
        char pc[WASP_UNIT_BUF];
        f->ctx = made;
        snprintf(buf, n, "(untracked; %s of the class's sampled allocations are here)",
                 wasp_fmt_percent(share, pc, sizeof pc));
        return buf;
    }
    for (uint32_t i = 0; i < v->n; i++) {
        uint32_t ctx = v->records[v->order[i]].access_ctx;
        if (wasp_context_insn(p, &p->contexts[ctx])) {
            f->ctx = ctx;
            return "(untracked, created elsewhere) compared here";
        }
    }
    return "(untracked; where they are created was not sampled)";
}

/* Site id, `same` of its `comparisons` equal, into the groups (up to max of
 * them): to the group of its place and class, else a new one while there is
 * room. Its group's index, or -1. */
static int32_t group_site(const wasp_profile *p, uint32_t id, double same, double comparisons,
                          replica_group *groups, int *ngroups, int max)
{
    const wasp_site *site = &p->sites[id];
    const wasp_frame *at = wasp_site_by_class(p, site) || site->ctx >= p->ncontexts
                               ? NULL
                               : wasp_created_place(p, &p->contexts[site->ctx], site->class_name);
    int32_t g = -1;
    for (int i = 0; at && i < *ngroups && g < 0; i++)
        if (groups[i].at == at && groups[i].cls == site->class_name)
            g = i;
    if (g < 0 && *ngroups < max) {
        g = (*ngroups)++;
        groups[g] = (replica_group){.head = id, .at = at, .cls = site->class_name};
    }
    if (g < 0)
        return -1;
    replica_group *r = &groups[g];
    double remote, replicated = replicated_bytes(site, comparisons > 0 ? same / comparisons : 0);
    const wasp_replica_check *check = wasp_profile_replica_check(p, id);
    r->same += same;
    r->zero += wasp_replica_site_zero(p, id);
    r->comparisons += comparisons;
    r->accesses += wasp_profile_site_samples(p, id, &remote);
    if (!isnan(replicated)) {
        r->replicated += replicated;
        r->has_replicated = true;
    }
    if (check) {
        r->pairs += check->pairs;
        r->identical += check->identical;
        r->checked = true;
    }
    return g;
}

/* Group g's finding to sink. */
static int group_finding(const wasp_profile *p, const replica_group *r, const int32_t *group_of,
                         int32_t g, wasp_finding_sink *sink)
{
    struct replica_site v;
    if (replica_site(p, r->head, &v) != 0)
        return -1;
    double theta = r->comparisons > 0 ? r->same / r->comparisons : 0;
    double lines = r->accesses > 0 ? NAN : access_lines_cpu(p, group_of, g, r->at);
    /* evidence: the CPU samples the cost rests on (its interval's count);
     * the lines' samples are a share of those counted by line */
    wasp_finding f = {.ctx = v.site->ctx, .created = v.site->class_name, .share = theta,
                      .cpu = r->accesses > 0 ? r->accesses : NAN,
                      .has_cpu_line_samples = isfinite(lines),
                      .cpu_line_samples = lines,
                      .evidence = r->accesses > 0 ? r->accesses * wasp_report_taken_per_due(p)
                                  : isfinite(lines) ? lines : r->comparisons,
                      .evidence_unit = r->accesses > 0 || isfinite(lines) ? NULL : "comparisons"};
    char t[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], z[WASP_UNIT_BUF], where[96],
        iv[3 * WASP_UNIT_BUF + 32];
    const char *placed = class_site_place(p, &v, &f, where, sizeof where);
    /* θ's interval and what it rests on: the finding's samples are its CPU
     * cost's, and a site shown on one comparison (xalan's BufferedReader
     * buffers) read "100.0%" with no word of it. */
    double lo, hi;
    wasp_replica_theta_interval(r->same, r->comparisons, &lo, &hi);
    wasp_fmt_percent(lo, b, sizeof b);
    b[strlen(b) - 1] = 0; /* one percent sign */
    snprintf(iv, sizeof iv, " (95%%: %s\xe2\x80\x93%s, %s comparison%s)", b,
             wasp_fmt_percent(hi, c, sizeof c), wasp_fmt_count(r->comparisons, z, sizeof z),
             r->comparisons == 1 ? "" : "s");
    /* Arrays equal because nothing was written (lucene's per-scorer scratch
     * arrays): the fix is less space or later, not one shared copy. */
    const char *cls = wasp_site_class(p, v.site);
    bool zeros = mostly_zero(r->zero, r->same);
    if (zeros && is_array(cls))
        wasp_finding_say(&f, "%s objects %s hold mostly zeros: %s of sampled fields equal the "
                         "previous object's%s, %s of those zero (space not yet written, or "
                         "zeros: allocate less, later, or reuse one)",
                         cls, placed, wasp_fmt_percent(theta, t, sizeof t), iv,
                         wasp_fmt_percent(r->zero / r->same, z, sizeof z));
    else
        wasp_finding_say(&f, "%s objects %s are copies of each other: %s of sampled fields "
                         "equal the previous object's%s", cls, placed,
                         wasp_fmt_percent(theta, t, sizeof t), iv);
    if (zeros && !is_array(cls))
        wasp_finding_say(&f, ", %s of those zero or null",
                         wasp_fmt_percent(r->zero / r->same, z, sizeof z));
    if (r->has_replicated)
        wasp_finding_say(&f, ", ~%s replicated", wasp_fmt_bytes(r->replicated, b, sizeof b));
    if (r->checked)
        wasp_finding_say(&f, "; %s of %s object pairs verified identical",
                         wasp_fmt_count(r->identical, b, sizeof b),
                         wasp_fmt_count(r->pairs, c, sizeof c));
    /* A class site's objects are every untracked object of the class, so
     * the lines that accessed them are the whole program's (pdfbox: every
     * small float[], 29% of its CPU): the cost is the class's, not the
     * place's, and the words say so. */
    if (wasp_site_by_class(p, v.site) && isfinite(lines))
        wasp_finding_say(&f, "; its CPU: every line that accessed an untracked %s", cls);
    free(v.order);
    return sink->emit(sink, p, &f);
}

/* The sites shown to replicate (θ's interval above chance), ranked as the
 * detail ranks them, those at one place summed (group_site), those of
 * few comparisons last (FEW_COMPARISONS). The CPU
 * involved: the accesses to the sites' objects, objects' samples when -e
 * objects ran beside, else the samples counted at the lines that accessed
 * them (access_lines_cpu); neither: not measured. */
static int summary(const wasp_profile *p, int id, int max, wasp_finding_sink *sink)
{
    (void)id;
    uint32_t n, nrecords, k = p->nsites ? p->nsites : 1;
    uint32_t *order = wasp_profile_sorted_replica_sites(p, &n);
    replica_group *groups = malloc((max > 0 ? (size_t)max : 1) * sizeof *groups);
    int32_t *group_of = malloc(k * sizeof *group_of);
    double *same = calloc(k, sizeof *same), *all = calloc(k, sizeof *all);
    int rc = order && groups && group_of && same && all ? 0 : -1, ngroups = 0;
    /* Each site's comparisons in one pass, summed in record order as θ is
     * (every site is looked at, not only the first max: a later one may
     * join an earlier place). */
    const wasp_replica *x = wasp_profile_replicas(p, &nrecords);
    for (uint32_t i = 0; rc == 0 && i < nrecords; i++)
        if (x[i].site < p->nsites) {
            same[x[i].site] += x[i].same;
            all[x[i].site] += x[i].same + x[i].different;
        }
    for (uint32_t i = 0; rc == 0 && i < p->nsites; i++)
        group_of[i] = -1;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        double lo, hi;
        wasp_replica_theta_interval(same[order[i]], all[order[i]], &lo, &hi);
        if (lo < WASP_REPLICA_MIN_THETA_LOW)
            break; /* the rest are not shown to replicate */
        group_of[order[i]] =
            group_site(p, order[i], same[order[i]], all[order[i]], groups, &ngroups, max);
    }
    for (int few = 0; few < 2; few++) /* those of enough comparisons first */
        for (int g = 0; rc == 0 && g < ngroups; g++)
            if ((groups[g].comparisons < FEW_COMPARISONS) == few)
                rc = group_finding(p, &groups[g], group_of, g, sink);
    free(order);
    free(groups);
    free(group_of);
    free(same);
    free(all);
    return rc;
}

const wasp_report_part wasp_report_replicas = {
    WASP_VIEW_REPORT(view),
    .summary = summary,
    .title = "Replicas: allocation sites whose objects hold identical contents",
    .hint = "share one instance (a cache, a constant, an interned or immutable value) instead "
            "of building an equal copy each time; arrays of mostly zeros: allocate them "
            "smaller, when first needed, or once per thread",
    .shown = shown,
    .json_place = WASP_JSON_TOP_LEVEL,
};

/* Its diff part and HTML section are built from the view (cli/render/view.h). */
const wasp_diff_part wasp_diff_replicas = {0};
const wasp_html_part wasp_html_replicas = {0};
