/*
 * The pair analyses in the report's summary (report_part.h, `summary`): the
 * lines of the program whose watched accesses were wasteful, each line's
 * pairs summed (whatever their trapping context), ranked by wasteful bytes;
 * the trapping place named is that of the line's heaviest pair.
 */
#include "analysis/pairs/report_summary.h"

#include "catalog/names.h"
#include "analysis/pairs/profile.h"
#include "cli/render/units.h"
#include "profile/cpu_lines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How many pair analyses share the samples analysis a is given: a software
 * sample goes to one of the enabled pair analyses at random, a PMU sample
 * (it has an address, so a kind) to one of those of its kind
 * (pairs/handler.c, locate). Each of a's weights stands for that many of
 * the program's samples. */
static double sharing(const wasp_profile *p, wasp_analysis a)
{
    const char *events = wasp_profile_get_meta(p, "events");
    const char *sampler = wasp_profile_get_meta(p, "sampler");
    bool by_kind = sampler && strncmp(sampler, "pmu", 3) == 0;
    int n = 0;
    for (int k = 0; k < WASP_AN_COUNT; k++) {
        bool on = events ? wasp_events_name(events, wasp_analysis_id_name(k))
                         : wasp_profile_totals(p, k).pairs > 0;
        bool same_kind = (k == WASP_AN_SILENTLOAD) == (a == WASP_AN_SILENTLOAD);
        n += (on || k == (int)a) && (!by_kind || same_kind);
    }
    return n;
}

/* Independent samples per unit of weight: an armed watch (with its window)
 * is one draw, however many samples' weight it carries; the weights of all
 * pair analyses stand for the armed samples (NAN when not counted). */
static double draws_per_weight(const wasp_profile *p)
{
    double weight = 0;
    for (int k = 0; k < WASP_AN_COUNT; k++)
        weight += wasp_profile_totals(p, k).pairs;
    if (!wasp_has_counter(p, "armed") || !(weight > 0))
        return NAN;
    return (double)wasp_profile_get_counter(p, "armed") / weight;
}

/* A watched line: its pairs summed; heaviest: its heaviest pair; walked:
 * whether that pair's stacks were walked (the others rank last: profile.h). */
typedef struct line_sum {
    const wasp_pair *heaviest;
    double bytes, count;
    bool walked;
    const wasp_frame *inner; /* the heaviest's innermost Java frame */
    double inner_bytes;      /* the bytes of the pairs whose innermost is that too */
} line_sum;

static int by_bytes(const void *x, const void *y)
{
    const line_sum *a = x, *b = y;
    if (a->walked != b->walked)
        return a->walked ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? 1 : -1;
    return a->heaviest < b->heaviest ? -1 : a->heaviest > b->heaviest; /* pairs in rank order */
}

/* The pairs of analysis a summed by the place of their watched context (its
 * first application frame): into *lines, ranked. 0, or -1. */
static int sum_lines(const wasp_profile *p, wasp_analysis a, line_sum **lines, uint32_t *nlines)
{
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_pairs(p, a, &n);
    uint32_t *line_of = calloc(p->nframes + 1, sizeof *line_of); /* frame -> line + 1 */
    line_sum *l = malloc((n ? n : 1) * sizeof *l);
    *nlines = 0;
    if (!order || !line_of || !l) {
        free(order);
        free(line_of);
        free(l);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const wasp_pair *q = wasp_profile_pair(p, order[i]);
        const wasp_frame *at = wasp_place_frame(p, &p->contexts[q->watch_ctx]);
        uint32_t f = at ? (uint32_t)(at - p->frames) : p->nframes; /* no frames: one line */
        const wasp_frame *inner = wasp_inner_java_frame(p, &p->contexts[q->watch_ctx]);
        if (!line_of[f]) {
            /* sorted: the first is the heaviest, walked ones first */
            l[*nlines] = (line_sum){q, 0, 0,
                                    wasp_profile_context_walked(p, q->watch_ctx) &&
                                        wasp_profile_context_walked(p, q->trap_ctx),
                                    inner, 0};
            line_of[f] = ++*nlines;
        }
        line_sum *x = &l[line_of[f] - 1];
        x->bytes += q->bytes;
        x->count += q->count;
        if (inner == x->inner)
            x->inner_bytes += q->bytes;
    }
    free(order);
    free(line_of);
    qsort(l, *nlines, sizeof *l, by_bytes);
    *lines = l;
    return 0;
}

/* The context's innermost method, as a string id; p->nstrings when it has
 * no Java frame. */
static uint32_t inner_method(const wasp_profile *p, const wasp_context *c)
{
    const wasp_frame *f = wasp_inner_java_frame(p, c);
    return f && f->name < p->nstrings ? f->name : p->nstrings;
}

/* Per innermost method: the program's samples there (CPUI), the armed
 * samples' weight whose watched stack ends there, and of it the weight
 * whose stack passes through the place. */
typedef struct stratum {
    double samples, all, through;
} stratum;

/* Whether the place of ctx is at a line (its class has line numbers). */
static bool has_line(const wasp_profile *p, uint32_t ctx)
{
    const wasp_frame *at = ctx < p->ncontexts ? wasp_place_frame(p, &p->contexts[ctx]) : NULL;
    return at && at->line >= 0;
}

/* The place's line with the code it calls, as a share of the program's CPU
 * (docs/findings.md, "With the code it calls"). The samples by innermost
 * line (CPUI) say which method the threads were in; the armed samples'
 * walked stacks say, for each method, which share of its time was spent
 * under the place. Arming depends on the instruction sampled, not on its
 * callers, so within a method they are a fair sample of its callers (all
 * its lines share an invocation's callers, armed or not); across methods
 * they are not (code without the analyses' accesses is never armed), hence
 * the strata. The estimate: the place's own innermost samples, plus each
 * other method's samples times its share under the place; its variance the
 * binomial one of each share (the method's armed draws) and the Poisson one
 * of each count. Nothing for a profile without innermost lines (older). */
static void with_calls(const wasp_profile *p, uint32_t ctx, double draws, wasp_finding *f)
{
    const wasp_frame *at = ctx < p->ncontexts ? wasp_place_frame(p, &p->contexts[ctx]) : NULL;
    double n = (double)wasp_profile_get_counter(p, WASP_CPU_SAMPLES);
    if (!at || at->kind != WASP_FRAME_JAVA || !wasp_profile_has_cpu_leaves(p) || !(n > 0))
        return;
    uint32_t place = (uint32_t)(at - p->frames);
    stratum *st = calloc(p->nstrings + 1, sizeof *st);
    if (!st)
        return;
    for (uint32_t i = 0; i < p->cpu_leaves.n; i++)
        if (p->cpu_leaves.rows[i].name < p->nstrings)
            st[p->cpu_leaves.rows[i].name].samples += p->cpu_leaves.rows[i].samples;
    for (int k = 0; k < WASP_AN_COUNT; k++) {
        uint32_t np;
        uint32_t *order = wasp_profile_sorted_pairs(p, (wasp_analysis)k, &np);
        for (uint32_t i = 0; order && i < np; i++) {
            const wasp_pair *q = wasp_profile_pair(p, order[i]);
            if (q->watch_ctx >= p->ncontexts)
                continue;
            const wasp_context *c = &p->contexts[q->watch_ctx];
            stratum *s = &st[inner_method(p, c)];
            s->all += q->count;
            if (wasp_context_passes(p, c, place))
                s->through += q->count;
        }
        free(order);
    }
    double per = isnan(draws) ? 1 : draws; /* armed draws per unit of weight */
    /* The place's own method: its samples under the place are those at the
     * place's line (its other lines are beside it, not under it). */
    double own = wasp_profile_cpu_leaf_at(p, at->name, at->line);
    double est = own, var = own;
    for (uint32_t m = 0; m < p->nstrings; m++) {
        if (!(st[m].through > 0) || m == at->name)
            continue;
        double share = st[m].through / st[m].all, k = st[m].samples;
        double draws_here = st[m].all * per;
        est += k * share;
        var += k * share * share + k * k * share * (1 - share) / (draws_here > 1 ? draws_here : 1);
    }
    free(st);
    double half = 1.96 * sqrt(var);
    f->has_with_calls = true;
    f->with_calls = fmin(est / n, 1);
    f->with_calls_lo = fmax((est - half) / n, 0);
    f->with_calls_hi = fmin((est + half) / n, 1);
}

int wasp_pairs_summary(const wasp_profile *p, int id, int max, wasp_finding_sink *sink)
{
    wasp_analysis a = (wasp_analysis)id;
    line_sum *lines;
    uint32_t n;
    if (sum_lines(p, a, &lines, &n) != 0)
        return -1;
    double k = sharing(p, a), draws = draws_per_weight(p);
    double total = wasp_profile_totals(p, a).bytes;
    int rc = 0;
    for (uint32_t i = 0; i < n && i < (uint32_t)max && rc == 0; i++) {
        const wasp_pair *q = lines[i].heaviest;
        wasp_finding f = {.ctx = q->watch_ctx,
                          .share = total > 0 ? lines[i].bytes / total : 0,
                          .cpu = lines[i].count * k, /* the estimate of older profiles */
                          .cpu_by_line = true,
                          .evidence = isnan(draws) ? lines[i].count : lines[i].count * draws,
                          /* armed draws: a window of watches is one */
                          .evidence_unit = isnan(draws) ? NULL : "watched samples",
                          /* the line's pairs in several methods it calls: none names them */
                          .spread = lines[i].inner_bytes < lines[i].bytes / 2};
        with_calls(p, q->watch_ctx, draws, &f);
        char share[WASP_UNIT_BUF], here[200], there[200];
        wasp_fmt_percent(f.share, share, sizeof share);
        const char *approx = q->flags & WASP_PAIR_APPROX ? ", float/double within the threshold" : "";
        wasp_place_short(p, q->watch_ctx, here, sizeof here);
        wasp_place_short(p, q->trap_ctx, there, sizeof there);
        /* one place, two methods it called (javac under Ant's Javac13.execute):
         * the trap's method says where */
        const wasp_frame *wi = wasp_place_inner(p, &p->contexts[q->watch_ctx]),
                         *ti = wasp_place_inner(p, &p->contexts[q->trap_ctx]);
        if (strcmp(here, there) == 0 && ti && ti != wi)
            wasp_frame_short(p, ti, there, sizeof there);
        if (a == WASP_AN_DEADSTORE && strcmp(here, there) != 0)
            snprintf(f.what, sizeof f.what,
                     "the value stored here is overwritten at %s before any read (%s of the "
                     "bytes stored)", there, share);
        else if (a == WASP_AN_DEADSTORE) /* a class without line numbers: a method's place */
            snprintf(f.what, sizeof f.what,
                     "the value stored here is overwritten by this %s again before any read "
                     "(%s of the bytes stored)", has_line(p, q->watch_ctx) ? "line" : "method",
                     share);
        else if (a == WASP_AN_SILENTSTORE)
            snprintf(f.what, sizeof f.what, "stores the value already there%s (%s of the bytes "
                     "stored)", approx, share);
        else
            snprintf(f.what, sizeof f.what, "reads the same value it read last time%s (%s of the "
                     "bytes loaded)", approx, share);
        rc = sink->emit(sink, p, &f);
    }
    free(lines);
    return rc;
}
