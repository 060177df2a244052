/*
 * Lock activity (Inoue & Nakatani, Section 5.2) in the report: the classes
 * of the locked objects ranked by lock samples (acquiring compare-and-swaps
 * on the mark word plus samples in the runtime's monitor-enter slow paths),
 * each with its share of slow-path samples and its acquiring contexts; the
 * slow-path samples by runtime function. JSON: the top-level "locks" member.
 */
#include "analysis/locks/profile.h"
#include "analysis/locks/ranking.h"
#include "analysis/locks/report_waits.h"
#include "cli/render/report_part.h"
#include "cli/render/units.h"

#include <inttypes.h>
#include <stdlib.h>

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

static int text(const wasp_profile *p, int id, int top, FILE *out)
{
    (void)id;
    wasp_lock_ranking r;
    if (wasp_lock_rank(p, &r) != 0)
        return -1;
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], d[WASP_UNIT_BUF], e[WASP_UNIT_BUF];
    double all = r.acquire + r.slow;
    fputs("\nLock activity (Inoue & Nakatani, Section 5.2)\n", out);
    if (!(all > 0)) {
        fputs("  no lock samples recorded\n", out);
        wasp_lock_ranking_free(&r);
        return wasp_lock_waits_text(p, top, out);
    }
    fprintf(out, "  %s lock samples: %s at an acquiring compare-and-swap on an object's header, "
                 "%s in the runtime's slow path (%s); %s at releases\n",
            wasp_fmt_count(all, a, sizeof a), wasp_fmt_count(r.acquire, b, sizeof b),
            wasp_fmt_count(r.slow, c, sizeof c), wasp_fmt_percent(wasp_share(r.slow, all), d, sizeof d),
            wasp_fmt_count(r.release, e, sizeof e));
    uint32_t shown = wasp_report_shown(top, r.nclasses);
    for (uint32_t i = 0; i < shown; i++) {
        const wasp_lock_class *k = &r.classes[i];
        double s = wasp_lock_samples(&k->sum);
        fprintf(out, "\n  #%-2" PRIu32 " %s of lock samples  %s   fast %s  slow %s (%s)  releases %s\n",
                i + 1, wasp_fmt_percent(wasp_share(s, all), a, sizeof a), class_name(p, k->sum.cls),
                wasp_fmt_count(k->sum.acquire, b, sizeof b), wasp_fmt_count(k->sum.slow, c, sizeof c),
                wasp_fmt_percent(wasp_share(k->sum.slow, s), d, sizeof d),
                wasp_fmt_count(k->sum.release, e, sizeof e));
        /* Contexts with acquisitions (release-only ones are in JSON). */
        uint32_t nc = 0;
        while (nc < k->ncontexts && nc < TEXT_CONTEXTS && wasp_lock_samples(&k->contexts[nc]) > 0)
            nc++;
        for (uint32_t x = 0; x < nc; x++) {
            const wasp_lock_sum *cs = &k->contexts[x];
            char lab[96];
            snprintf(lab, sizeof lab, "%s acquiring, %s slow", wasp_fmt_count(cs->acquire, a, sizeof a),
                     wasp_fmt_count(cs->slow, b, sizeof b));
            wasp_text_context(p, lab, cs->ctx, out);
        }
        uint32_t more = 0;
        for (uint32_t x = nc; x < k->ncontexts; x++)
            more += wasp_lock_samples(&k->contexts[x]) > 0;
        if (more)
            fprintf(out, "      ... %" PRIu32 " more context%s\n", more, more == 1 ? "" : "s");
    }
    if (r.nclasses > shown)
        fprintf(out, "\n  ... %" PRIu32 " more classes (--top N shows more)\n", r.nclasses - shown);
    if (r.nfunctions) {
        fputs("\n  slow path by runtime function:", out);
        uint32_t nf = r.nfunctions < TEXT_FUNCTIONS ? r.nfunctions : TEXT_FUNCTIONS;
        for (uint32_t i = 0; i < nf; i++)
            fprintf(out, "%s %s %s", i ? "," : "", p->strings[r.functions[i].where],
                    wasp_fmt_count(r.functions[i].slow, a, sizeof a));
        fputc('\n', out);
    }
    wasp_lock_ranking_free(&r);
    return wasp_lock_waits_text(p, top, out);
}

static void json_sum(wasp_json *j, const wasp_lock_sum *s)
{
    wasp_json_double(j, "samples", wasp_lock_samples(s));
    wasp_json_double(j, "acquire", s->acquire);
    wasp_json_double(j, "slow", s->slow);
    wasp_json_double(j, "release", s->release);
}

static int json(wasp_json *j, const wasp_profile *p, int id, int top)
{
    (void)id;
    wasp_lock_ranking r;
    if (wasp_lock_rank(p, &r) != 0)
        return -1;
    double all = r.acquire + r.slow;
    wasp_json_begin_object(j, "locks", false);
    json_sum(j, &(wasp_lock_sum){.acquire = r.acquire, .release = r.release, .slow = r.slow});
    wasp_json_begin_array(j, "classes", false);
    uint32_t shown = wasp_report_shown(top, r.nclasses);
    for (uint32_t i = 0; i < shown; i++) {
        const wasp_lock_class *k = &r.classes[i];
        wasp_json_begin_object(j, NULL, false);
        wasp_json_string(j, "class", p->strings[k->sum.cls]);
        json_sum(j, &k->sum);
        wasp_json_double(j, "share", wasp_share(wasp_lock_samples(&k->sum), all));
        wasp_json_double(j, "slow_share", wasp_share(k->sum.slow, wasp_lock_samples(&k->sum)));
        wasp_json_begin_array(j, "contexts", false);
        for (uint32_t x = 0; x < k->ncontexts; x++) {
            wasp_json_begin_object(j, NULL, false);
            json_sum(j, &k->contexts[x]);
            wasp_json_context_fields(j, p, k->contexts[x].ctx);
            wasp_json_end_object(j);
        }
        wasp_json_end_array(j);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    wasp_json_begin_array(j, "slow_functions", false);
    for (uint32_t i = 0; i < r.nfunctions; i++) {
        wasp_json_begin_object(j, NULL, true);
        wasp_json_string(j, "function", p->strings[r.functions[i].where]);
        wasp_json_double(j, "samples", r.functions[i].slow);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    int rc = wasp_lock_waits_json(j, p, top);
    wasp_json_end_object(j);
    wasp_lock_ranking_free(&r);
    return rc;
}

/* Each class's acquiring contexts, the class as the leaf frame. */
static int stacks(const wasp_profile *p, int id, wasp_stack_sink *sink)
{
    (void)id;
    wasp_lock_ranking r;
    if (wasp_lock_rank(p, &r) != 0)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < r.ncontexts && rc == 0; i++) {
        const wasp_lock_sum *s = &r.contexts[i];
        wasp_stack st = {"locks", "acquire", s->ctx, class_name(p, s->cls), 0, wasp_lock_samples(s),
                         false};
        if (st.samples > 0)
            rc = sink->emit(sink, p, &st);
    }
    wasp_lock_ranking_free(&r);
    return rc;
}

/* ---- summary ---- */

/* The locked classes with the most lock samples, each at its busiest
 * acquiring context. The CPU involved: the class's lock samples (acquiring,
 * releasing, slow path), each one of the program's CPU samples. */
static int summary(const wasp_profile *p, int id, int max, wasp_finding_sink *sink)
{
    (void)id;
    wasp_lock_ranking r;
    if (wasp_lock_rank(p, &r) != 0)
        return -1;
    double all = r.acquire + r.slow;
    int rc = 0;
    for (uint32_t i = 0; i < r.nclasses && i < (uint32_t)max && rc == 0; i++) {
        const wasp_lock_class *k = &r.classes[i];
        double s = wasp_lock_samples(&k->sum);
        if (!(s > 0) || !k->ncontexts)
            break;
        double cpu = s + k->sum.release;
        wasp_finding f = {.ctx = k->contexts[0].ctx, .share = wasp_share(s, all), .cpu = cpu,
                          .evidence = cpu * wasp_report_taken_per_due(p)};
        char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF];
        snprintf(f.what, sizeof f.what, "locks %s: %s of the lock samples, slow path %s",
                 class_name(p, k->sum.cls), wasp_fmt_percent(f.share, a, sizeof a),
                 wasp_fmt_percent(wasp_share(k->sum.slow, s), b, sizeof b));
        rc = sink->emit(sink, p, &f);
    }
    wasp_lock_ranking_free(&r);
    return rc;
}

const wasp_report_part wasp_report_locks = {
    .summary = summary,
    .title = "Locks: where the program locks most, and how often it waits (slow path)",
    .hint = "hold the lock for less work, split it (one lock per part of the data), or use a "
            "concurrent structure (ConcurrentHashMap, LongAdder) instead",
    .shown = shown,
    .counter_prefix = "locks.",
    .text = text,
    .json_place = WASP_JSON_TOP_LEVEL,
    .json = json,
    .stacks = stacks,
};
