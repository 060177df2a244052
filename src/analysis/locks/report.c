/*
 * Lock activity (Inoue & Nakatani, Section 5.2) in the report, drawn by a
 * view (cli/render/view.h): the classes of the locked objects ranked by lock
 * samples (acquiring compare-and-swaps on the mark word plus samples in the
 * runtime's monitor-enter slow paths), each with its share of slow-path
 * samples and its acquiring contexts; the slow-path samples by runtime
 * function (a further table); then, as a sub view, the time threads were
 * found blocked per class and kind (waits.h) with its interval. JSON: the
 * top-level "locks" member, its "blocked" object (docs/report-json.md).
 * Hooks: the text's heading lines and rows (their wording), the summary.
 */
#include "analysis/locks/estimate.h"
#include "analysis/locks/profile.h"
#include "analysis/locks/ranking.h"
#include "analysis/locks/unlocked_alternative.h"
#include "analysis/locks/waits.h"
#include "cli/diff/diff_part.h"
#include "cli/render/html_part.h"
#include "cli/render/report_part.h"
#include "cli/render/units.h"
#include "cli/render/view.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TEXT_CONTEXTS = 3, TEXT_FUNCTIONS = 6 };

static bool shown(const wasp_profile *p, int id)
{
    (void)id;
    return wasp_profile_has_locks(p);
}

static const char *class_name(const wasp_profile *p, uint32_t cls)
{
    return *p->strings[cls] ? p->strings[cls] : "(class not known)";
}

/* ---- lock samples by class: the view's state is the ranking ---- */

WASP_VIEW_RANKING(locks, wasp_lock_ranking, wasp_lock_rank, wasp_lock_ranking_free)

static wasp_view_total total(const wasp_profile *p, int id)
{
    (void)id;
    wasp_lock_ranking *r = locks_ranked(p);
    double all = r ? r->acquire + r->slow : 0;
    return (wasp_view_total){all, 0, false, all, 0, r};
}

/* Both rankings (lock samples, blocked time) hold their classes ranked and
 * each class's contexts ranked together: NAME_rank gives the classes,
 * NAME_rank_contexts a class's contexts (indices into the ranking's). */
#define CLASS_RANKS(name, type)                                                                    \
    static uint32_t *name##_rank(const wasp_profile *p, int id, const wasp_view_total *t,          \
                                 uint32_t *n)                                                      \
    {                                                                                              \
        (void)p, (void)id;                                                                         \
        const type *r = t->state;                                                                  \
        return r ? wasp_view_in_order(r->nclasses, n) : NULL;                                      \
    }                                                                                              \
    static uint32_t *name##_rank_contexts(const wasp_profile *p, int id, uint32_t parent,          \
                                          const wasp_view_total *t, uint32_t *n)                   \
    {                                                                                              \
        (void)p, (void)id;                                                                         \
        const type *r = t->state;                                                                  \
        return wasp_view_range((uint32_t)(r->classes[parent].contexts - r->contexts),              \
                               r->classes[parent].ncontexts, n);                                   \
    }
CLASS_RANKS(locks, wasp_lock_ranking)
CLASS_RANKS(blocked, wasp_lock_waits)

static uint32_t *rank_functions(const wasp_profile *p, int id, uint32_t parent,
                                const wasp_view_total *t, uint32_t *n)
{
    (void)p, (void)id, (void)parent;
    return wasp_view_in_order(((const wasp_lock_ranking *)t->state)->nfunctions, n);
}

static void sum_cells(const wasp_lock_ranking *r, const wasp_lock_sum *s, wasp_view_cell *x)
{
    x[0].num = wasp_lock_samples(s);
    x[1].num = s->acquire;
    x[2].num = s->slow;
    x[3].num = s->release;
    x[4].num = wasp_lock_acquisitions(r, s);
}

static void cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                  wasp_view_cell *x)
{
    (void)id;
    const wasp_lock_ranking *r = t->state;
    const wasp_lock_class *k = &r->classes[index];
    double s = wasp_lock_samples(&k->sum);
    x[0].str = p->strings[k->sum.cls];
    sum_cells(r, &k->sum, &x[1]);
    x[6].num = wasp_share(s, t->total);
    x[7].num = wasp_share(k->sum.slow, s);
    x[9].ctx = k->ncontexts ? k->contexts[0].ctx : 0;
}

static void context_cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                          wasp_view_cell *x)
{
    (void)p, (void)id;
    const wasp_lock_ranking *r = t->state;
    const wasp_lock_sum *s = &r->contexts[index];
    sum_cells(r, s, x);
    x[5].ctx = s->ctx;
}

static void function_cells(const wasp_profile *p, int id, uint32_t index,
                           const wasp_view_total *t, wasp_view_cell *x)
{
    (void)id;
    const wasp_lock_function *f = &((const wasp_lock_ranking *)t->state)->functions[index];
    x[0].str = p->strings[f->where];
    x[1].num = f->slow;
}

static void head_cells(const wasp_profile *p, int id, const wasp_view_total *t, wasp_view_cell *x)
{
    (void)p, (void)id;
    const wasp_lock_ranking *r = t->state;
    sum_cells(r, &(wasp_lock_sum){.acquire = r->acquire, .release = r->release, .slow = r->slow}, x);
}

/* ---- its text wording ---- */

/* The acquisitions the text says of s: the estimate scaled from its
 * acquiring samples; NAN when not known, or when none was sampled (a
 * contended lock's slow path only), where "about 0" would mislead (its
 * JSON keeps the estimate). */
static double said_acquisitions(const wasp_lock_ranking *r, const wasp_lock_sum *s)
{
    return s->acquire > 0 ? wasp_lock_acquisitions(r, s) : NAN;
}

/* An estimate of acquisitions to three significant digits ("60,100,000"):
 * its digits beyond are noise. */
static const char *approx(double v, char *buf, size_t n)
{
    double scale = v >= 1000 ? pow(10, floor(log10(v)) - 2) : 1;
    return wasp_fmt_count(round(v / scale) * scale, buf, n);
}

/* What the estimate rests on, after "N acquisitions (estimated: ...)". */
static void estimate_basis(const wasp_profile *p, const wasp_lock_ranking *r, FILE *out)
{
    double events, cas_ns, period_us;
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF];
    if (wasp_profile_get_meta_num(p, "locks_events_per_sample", &events))
        fprintf(out, "an acquiring sample is one of %s retired memory instructions",
                approx(events, a, sizeof a));
    else if (wasp_profile_get_meta_num(p, "locks_cas_ns", &cas_ns) &&
             wasp_profile_get_meta_num(p, "period_us", &period_us))
        fprintf(out, "a sample is %s us of CPU, an uncontended compare-and-swap %.3g ns here "
                     "(measured at start-up): %s acquisitions a sample; contended ones cost more "
                     "and are over-counted", wasp_fmt_count(period_us, a, sizeof a), cas_ns,
                approx(r->per_sample, b, sizeof b));
}

static void text_head(const wasp_profile *p, int id, int top, FILE *out)
{
    (void)id, (void)top;
    double acquire = 0, slow = 0, release = 0;
    fputs("\nLock activity (Inoue & Nakatani, Section 5.2)\n", out);
    wasp_lock_ranking r;
    if (wasp_lock_rank(p, &r) != 0)
        memset(&r, 0, sizeof r);
    acquire = r.acquire, slow = r.slow, release = r.release; /* in the ranking's order */
    double all = acquire + slow;
    if (!(all > 0)) {
        fputs("  no lock samples recorded\n", out);
        wasp_lock_ranking_free(&r);
        return;
    }
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], d[WASP_UNIT_BUF], f[WASP_UNIT_BUF];
    fprintf(out, "  %s lock samples: %s acquiring (the compare-and-swap on an object's header, "
                 "the lock stack's checks and push), %s in the runtime's slow path (%s); %s at "
                 "releases\n",
            wasp_fmt_count(all, a, sizeof a), wasp_fmt_count(acquire, b, sizeof b),
            wasp_fmt_count(slow, c, sizeof c), wasp_fmt_percent(wasp_share(slow, all), d, sizeof d),
            wasp_fmt_count(release, f, sizeof f));
    if (isfinite(r.per_sample)) {
        fprintf(out, "  about %s acquisitions (estimated: ", approx(acquire * r.per_sample, a, sizeof a));
        estimate_basis(p, &r, out);
        fputs(")\n", out);
    }
    wasp_lock_ranking_free(&r);
}

/* "#1  41.0% of lock samples  C   fast ..." and its contexts with acquisitions
 * (release-only ones are in JSON); nothing without lock samples. */
static int text_row(const wasp_profile *p, int id, uint32_t index, uint32_t rank, int rank_width,
                    const wasp_view_total *t, FILE *out)
{
    (void)id, (void)rank_width;
    if (!(t->total > 0))
        return 0;
    const wasp_lock_ranking *r = t->state;
    const wasp_lock_class *k = &r->classes[index];
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], d[WASP_UNIT_BUF], e[WASP_UNIT_BUF];
    double s = wasp_lock_samples(&k->sum), n = said_acquisitions(r, &k->sum);
    fprintf(out, "\n  #%-2" PRIu32 " %s of lock samples  %s   fast %s  slow %s (%s)  releases %s",
            rank, wasp_fmt_percent(wasp_share(s, t->total), a, sizeof a), class_name(p, k->sum.cls),
            wasp_fmt_count(k->sum.acquire, b, sizeof b), wasp_fmt_count(k->sum.slow, c, sizeof c),
            wasp_fmt_percent(wasp_share(k->sum.slow, s), d, sizeof d),
            wasp_fmt_count(k->sum.release, e, sizeof e));
    if (isfinite(n))
        fprintf(out, "  ~%s acquisitions (est.)", approx(n, a, sizeof a));
    fputc('\n', out);
    return 0; /* then its contexts (the view's list) */
}

/* The slow-path samples by runtime function, on one line. */
static void text_tail(const wasp_profile *p, int id, const wasp_view_total *t, FILE *out)
{
    (void)id;
    const wasp_lock_ranking *r = t->state;
    if (!(t->total > 0) || !r->nfunctions)
        return;
    char a[WASP_UNIT_BUF];
    fputs("\n  slow path by runtime function:", out);
    uint32_t nf = r->nfunctions < TEXT_FUNCTIONS ? r->nfunctions : TEXT_FUNCTIONS;
    for (uint32_t i = 0; i < nf; i++)
        fprintf(out, "%s %s %s", i ? "," : "", p->strings[r->functions[i].where],
                wasp_fmt_count(r->functions[i].slow, a, sizeof a));
    fputc('\n', out);
}

/* ---- time blocked by class and kind: the sub view's state is its ranking ---- */

/* Whether the profile measured blocked time (a look ran, or samples). */
static bool blocked_shown(const wasp_profile *p, int id)
{
    (void)id;
    uint32_t n;
    wasp_profile_locks_blocked(p, &n);
    return n || wasp_profile_get_meta(p, "locks_blocked_looks");
}

WASP_VIEW_RANKING(blocked, wasp_lock_waits, wasp_lock_waits_rank, wasp_lock_waits_free)

static wasp_view_total blocked_total(const wasp_profile *p, int id)
{
    (void)id;
    wasp_lock_waits *w = blocked_ranked(p);
    return (wasp_view_total){w ? w->seconds : 0, 0, true, w ? w->samples : 0, 0, w};
}

/* samples, seconds and its interval. */
static void time_cells(double samples, double seconds, wasp_view_cell *x)
{
    x[0].num = samples;
    x[1].num = seconds;
    wasp_lock_waits_interval(samples, seconds, &x[2].num, &x[3].num);
}

static void blocked_cells(const wasp_profile *p, int id, uint32_t index, const wasp_view_total *t,
                          wasp_view_cell *x)
{
    (void)id;
    const wasp_lock_waits_class *k = &((const wasp_lock_waits *)t->state)->classes[index];
    x[0].str = p->strings[k->cls];
    x[1].str = p->strings[k->where];
    time_cells(k->samples, k->seconds, &x[2]);
    x[6].num = wasp_share(k->seconds, t->total);
}

static void blocked_context_cells(const wasp_profile *p, int id, uint32_t index,
                                  const wasp_view_total *t, wasp_view_cell *x)
{
    (void)p, (void)id;
    const wasp_lock_blocked *b = &((const wasp_lock_waits *)t->state)->contexts[index];
    time_cells(b->samples, b->seconds, x);
    x[4].ctx = b->ctx;
}

static double meta_number(const wasp_profile *p, const char *key)
{
    const char *v = wasp_profile_get_meta(p, key);
    return v ? strtod(v, NULL) : 0;
}

static void blocked_head_cells(const wasp_profile *p, int id, const wasp_view_total *t,
                               wasp_view_cell *x)
{
    (void)id;
    x[0].num = meta_number(p, "locks_blocked_period_ms");
    x[1].num = meta_number(p, "locks_blocked_looks");
    x[2].num = meta_number(p, "locks_blocked_cpu_ms");
    time_cells(t->samples, t->total, &x[3]);
}

static const char *seconds(double s, char *buf, size_t n)
{
    return wasp_fmt_duration_ns((uint64_t)(s * 1e9 + 0.5), buf, n);
}

static const char *meta(const wasp_profile *p, const char *key)
{
    const char *v = wasp_profile_get_meta(p, key);
    return v ? v : "?";
}

static void blocked_text_head(const wasp_profile *p, int id, int top, FILE *out)
{
    (void)id, (void)top;
    wasp_lock_waits w;
    if (wasp_lock_waits_rank(p, &w) != 0)
        return;
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF];
    fprintf(out, "\n  Time blocked on locks (threads found waiting to enter a monitor or parked by a "
                 "lock, a look every %s ms, %s looks costing %s ms of CPU): %s in %s sample%s\n",
            meta(p, "locks_blocked_period_ms"), meta(p, "locks_blocked_looks"),
            meta(p, "locks_blocked_cpu_ms"), seconds(w.seconds, a, sizeof a),
            wasp_fmt_count(w.samples, b, sizeof b), w.samples == 1 ? "" : "s");
    wasp_lock_waits_free(&w);
}

static int blocked_text_row(const wasp_profile *p, int id, uint32_t index, uint32_t rank,
                            int rank_width, const wasp_view_total *t, FILE *out)
{
    (void)id, (void)rank_width;
    const wasp_lock_waits_class *k = &((const wasp_lock_waits *)t->state)->classes[index];
    double lo, hi;
    wasp_lock_waits_interval(k->samples, k->seconds, &lo, &hi);
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], d[WASP_UNIT_BUF], e[WASP_UNIT_BUF];
    fprintf(out, "\n  #%-2" PRIu32 " %s blocked  %s (%s to %s)  %s  %s   %s sample%s\n", rank,
            wasp_fmt_percent(wasp_share(k->seconds, t->total), a, sizeof a),
            seconds(k->seconds, b, sizeof b), seconds(lo, c, sizeof c), seconds(hi, d, sizeof d),
            p->strings[k->where], class_name(p, k->cls), wasp_fmt_count(k->samples, e, sizeof e),
            k->samples == 1 ? "" : "s");
    return 0; /* then its contexts (the view's list) */
}

/* ---- the views ---- */

#define COUNT(m, title, roles) WASP_VIEW_COL(m, title, WASP_VIEW_COUNT, roles)
#define SHARE(m, title) WASP_VIEW_COL(m, title, WASP_VIEW_SHARE, 0)
#define STRING(m, title, roles) WASP_VIEW_COL(m, title, WASP_VIEW_STRING, roles)
#define CONTEXT(m, title) WASP_VIEW_COL(m, title, WASP_VIEW_CONTEXT, WASP_VIEW_INLINE)
/* A measure named by its unit on a context's text line ("5 acquiring, 2
 * slow", "320 ms blocked"); only the nested lists' lines are drawn from
 * their columns (the rows' and the head's text are the hooks' own). */
#define LABELLED(m, t, k, r, separator, u)                                                         \
    {.member = (m), .title = (t), .kind = (k), .roles = (r), .sep = (separator), .unit = (u),      \
     .units = (u)}
#define LOCK_COUNTS(roles)                                                                         \
    COUNT("samples", "samples", roles),                                                            \
        LABELLED("acquire", "acquire", WASP_VIEW_COUNT, 0, NULL, "acquiring"),                     \
        LABELLED("slow", "slow", WASP_VIEW_COUNT, 0, ", ", "slow"), COUNT("release", "release", 0), \
        COUNT("acquisitions", "acquisitions (est.)", WASP_VIEW_ESTIMATE)
#define SECONDS(m, title, roles) WASP_VIEW_COL(m, title, WASP_VIEW_SECONDS, roles)
#define TIME(roles)                                                                                \
    COUNT("samples", "samples", WASP_VIEW_EVIDENCE),                                               \
        LABELLED("seconds", "blocked s", WASP_VIEW_SECONDS, roles, NULL, "blocked"),               \
        SECONDS("seconds_low", "from s", 0), SECONDS("seconds_high", "to s", 0)

static const wasp_view context_view = {
    .what = "context", .whats = "contexts",
    .columns = {LOCK_COUNTS(WASP_VIEW_VALUE), CONTEXT("acquire", "acquiring")},
    .rank_in = locks_rank_contexts, .cells = context_cells, .weighed_only = true,
};

static const wasp_view functions_view = {
    .title = "Slow-path functions", .what = "function", .whats = "functions",
    .rows = "slow_functions", .compact = true, .whole = true,
    .columns = {STRING("function", "function", 0), COUNT("samples", "samples", 0)},
    .rank_in = rank_functions, .cells = function_cells,
};

static const wasp_view blocked_context_view = {
    .what = "context", .whats = "contexts",
    .columns = {TIME(WASP_VIEW_VALUE | WASP_VIEW_ESTIMATE), CONTEXT("blocked", "waiting")},
    .rank_in = blocked_rank_contexts, .cells = blocked_context_cells,
};

/* The diff compares it as a section of its own, with its own total (view_diff.c). */
static const wasp_view blocked_view = {
    .title = "Time blocked on locks", .what = "class", .whats = "classes",
    .more = "blocked classes", .member = "blocked", .rows = "classes", .of = "of blocked time",
    .columns = {STRING("class", "class", WASP_VIEW_KEY), STRING("kind", "kind", WASP_VIEW_KEY),
                TIME(WASP_VIEW_VALUE | WASP_VIEW_ESTIMATE), SHARE("share", "share"),
                {"contexts", "waiting at", WASP_VIEW_LIST, WASP_VIEW_ALL, NULL, TEXT_CONTEXTS,
                 NULL, "context", &blocked_context_view, NULL, NULL}},
    .head = {COUNT("period_ms", "a look every (ms)", 0), COUNT("looks", "looks", 0),
             COUNT("cpu_ms", "their CPU (ms)", 0), TIME(WASP_VIEW_ESTIMATE)},
    .shown = blocked_shown, .total = blocked_total, .release = blocked_release,
    .rank = blocked_rank, .cells = blocked_cells,
    .head_cells = blocked_head_cells, .text_head = blocked_text_head,
    .text_row = blocked_text_row,
};

static const wasp_view view = {
    .title = "Locks", .entry = "Locked class", .what = "class", .whats = "classes",
    .of = "of lock samples", .unit = "samples", .rows = "classes",
    .columns = {{"class", "class", WASP_VIEW_STRING, WASP_VIEW_KEY | WASP_VIEW_LEAF, NULL, 0,
                 "lock ", NULL, NULL, "lock"},
                LOCK_COUNTS(WASP_VIEW_VALUE), SHARE("share", "share"),
                SHARE("slow_share", "slow share"),
                {"contexts", "acquiring at", WASP_VIEW_LIST, WASP_VIEW_ALL, NULL, TEXT_CONTEXTS,
                 NULL, "context", &context_view, NULL, NULL},
                {"hottest", "hottest at", WASP_VIEW_CONTEXT, WASP_VIEW_HIDDEN | WASP_VIEW_DIFF,
                 NULL, 0, "hottest at:", NULL, NULL, NULL}},
    .head = {LOCK_COUNTS(0)},
    .tables = {&functions_view},
    .sub = &blocked_view,
    .total = total, .release = locks_release, .rank = locks_rank,
    .cells = cells, .head_cells = head_cells, .text_head = text_head, .text_row = text_row,
    .text_tail = text_tail,
};

/* ---- summary ---- */

/* The lock class threads waited longest for, at its longest-waiting context
 * (blocked time: no CPU, issue 41): its finding into *f, its seconds into
 * *waited. 1 found, 0 none measured, -1. */
static int blocked_finding(const wasp_profile *p, wasp_finding *f, double *waited)
{
    wasp_lock_waits w;
    if (wasp_lock_waits_rank(p, &w) != 0)
        return -1;
    int found = 0;
    if (w.nclasses && w.seconds > 0 && w.classes[0].ncontexts) {
        const wasp_lock_waits_class *k = &w.classes[0];
        *f = (wasp_finding){.ctx = k->contexts[0].ctx, .share = wasp_share(k->seconds, w.seconds),
                            .cpu = NAN, .evidence = k->samples, .waiting = true};
        char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF];
        bool park = strcmp(p->strings[k->where], WASP_LOCK_PARK) == 0;
        snprintf(f->what, sizeof f->what,
                 "threads waited %s %s %s (%s of the time blocked on locks)",
                 seconds(k->seconds, a, sizeof a),
                 park ? "parked on the java.util.concurrent lock" : "to enter synchronized on",
                 class_name(p, k->cls), wasp_fmt_percent(f->share, b, sizeof b));
        *waited = k->seconds;
        found = 1;
    }
    wasp_lock_waits_free(&w);
    return found;
}

/* The CPU seconds one lock sample stands for: the period, which only a
 * time sampler's profile has (dump.c); NAN for one counting events (no
 * time to compare). */
static double seconds_per_sample(const wasp_profile *p)
{
    double period_us;
    if (wasp_profile_get_meta_num(p, "period_us", &period_us) && period_us > 0)
        return period_us / 1e6;
    return NAN;
}

/* The locked classes with the most lock samples, each at its busiest
 * acquiring context, and the longest wait among them where its time
 * ranks it: a wait is time too, so 12 ms of a thread re-entering a
 * monitor after Thread.join does not come before a lock that took a third
 * of the CPU (where the time of a sample is not known, the wait comes
 * first). The CPU involved: the class's lock samples (acquiring,
 * releasing, slow path), each one of the program's CPU samples. */
/* A lock whose slow path takes under this share of its samples is
 * uncontended: the summary names a class doing the same without a lock,
 * where the JDK has one (unlocked_alternative.h). */
#define UNCONTENDED 0.05

static int summary(const wasp_profile *p, int id, int max, wasp_finding_sink *sink)
{
    (void)id;
    wasp_finding wait;
    double waited = 0;
    int pending = blocked_finding(p, &wait, &waited);
    if (pending < 0)
        return -1;
    double per_sample = seconds_per_sample(p);
    wasp_lock_ranking r;
    if (wasp_lock_rank(p, &r) != 0)
        return -1;
    double all = r.acquire + r.slow;
    int rc = 0, emitted = 0;
    for (uint32_t i = 0; i < r.nclasses && emitted < max && rc == 0; i++) {
        const wasp_lock_class *k = &r.classes[i];
        double s = wasp_lock_samples(&k->sum);
        if (!(s > 0) || !k->ncontexts)
            break;
        double cpu = s + k->sum.release, n = said_acquisitions(&r, &k->sum);
        if (pending && !(cpu * per_sample > waited)) {
            rc = sink->emit(sink, p, &wait);
            pending = 0;
            if (rc != 0 || ++emitted >= max)
                break;
        }
        wasp_finding f = {.ctx = k->contexts[0].ctx, .share = wasp_share(s, all), .cpu = cpu,
                          .evidence = cpu * wasp_report_taken_per_due(p)};
        char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[64] = "", d[160] = "";
        if (isfinite(n))
            snprintf(c, sizeof c, ", about %s acquisitions (est.)", approx(n, a, sizeof a));
        const char *instead = wasp_lock_unlocked_alternative(class_name(p, k->sum.cls));
        if (instead && wasp_share(k->sum.slow, s) < UNCONTENDED)
            snprintf(d, sizeof d, "; uncontended: %s", instead);
        snprintf(f.what, sizeof f.what, "locks %s: %s of the lock samples, slow path %s%s%s",
                 class_name(p, k->sum.cls), wasp_fmt_percent(f.share, a, sizeof a),
                 wasp_fmt_percent(wasp_share(k->sum.slow, s), b, sizeof b), c, d);
        rc = sink->emit(sink, p, &f);
        emitted++;
    }
    if (rc == 0 && pending && emitted < max)
        rc = sink->emit(sink, p, &wait);
    wasp_lock_ranking_free(&r);
    return rc;
}

const wasp_report_part wasp_report_locks = {
    .summary = summary,
    .title = "Locks: where the program locks most, and how often it waits (slow path)",
    .hint = "hold the lock for less work, split it (one lock per part of the data), or use a "
            "concurrent structure (ConcurrentHashMap, LongAdder) instead",
    .evidence = "lock samples", /* the blocked time's start-up waits are not counted */
    .shown = shown,
    .counter_prefix = "locks.",
    .json_place = WASP_JSON_TOP_LEVEL,
    WASP_VIEW_REPORT(view),
};

/* Its diff part and HTML section are built from the view (view.h). */
const wasp_diff_part wasp_diff_locks = {0};
const wasp_html_part wasp_html_locks = {0};
