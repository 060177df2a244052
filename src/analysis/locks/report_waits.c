/*
 * Blocked time in the locks section (see report_waits.h).
 */
#include "analysis/locks/report_waits.h"

#include <inttypes.h>
#include <stdlib.h>

#include "analysis/locks/waits.h"
#include "cli/render/report_part.h"
#include "cli/render/units.h"

enum { TEXT_CONTEXTS = 3 };

int wasp_lock_waits_measured(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_locks_blocked(p, &n);
    return n || wasp_profile_get_meta(p, "locks_blocked_looks");
}

static const char *class_name(const wasp_profile *p, uint32_t cls)
{
    return *p->strings[cls] ? p->strings[cls] : "(class not known)";
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

int wasp_lock_waits_text(const wasp_profile *p, int top, FILE *out)
{
    if (!wasp_lock_waits_measured(p))
        return 0;
    wasp_lock_waits w;
    if (wasp_lock_waits_rank(p, &w) != 0)
        return -1;
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF], c[WASP_UNIT_BUF], d[WASP_UNIT_BUF];
    fprintf(out, "\n  Time blocked on locks (threads found waiting to enter a monitor or parked by a "
                 "lock, a look every %s ms, %s looks costing %s ms of CPU): %s in %s samples\n",
            meta(p, "locks_blocked_period_ms"), meta(p, "locks_blocked_looks"),
            meta(p, "locks_blocked_cpu_ms"), seconds(w.seconds, a, sizeof a),
            wasp_fmt_count(w.samples, b, sizeof b));
    uint32_t shown = wasp_report_shown(top, w.nclasses);
    for (uint32_t i = 0; i < shown; i++) {
        const wasp_lock_waits_class *k = &w.classes[i];
        double lo, hi;
        wasp_lock_waits_interval(k->samples, k->seconds, &lo, &hi);
        char e[WASP_UNIT_BUF];
        fprintf(out, "\n  #%-2" PRIu32 " %s blocked  %s (%s to %s)  %s  %s   %s samples\n", i + 1,
                wasp_fmt_percent(wasp_share(k->seconds, w.seconds), a, sizeof a),
                seconds(k->seconds, b, sizeof b), seconds(lo, c, sizeof c), seconds(hi, d, sizeof d),
                p->strings[k->where], class_name(p, k->cls), wasp_fmt_count(k->samples, e, sizeof e));
        for (uint32_t x = 0; x < k->ncontexts && x < TEXT_CONTEXTS; x++) {
            char lab[96];
            snprintf(lab, sizeof lab, "%s blocked", seconds(k->contexts[x].seconds, a, sizeof a));
            wasp_text_context(p, lab, k->contexts[x].ctx, out);
        }
        if (k->ncontexts > TEXT_CONTEXTS)
            fprintf(out, "      ... %" PRIu32 " more contexts\n", k->ncontexts - TEXT_CONTEXTS);
    }
    if (w.nclasses > shown)
        fprintf(out, "\n  ... %" PRIu32 " more blocked classes (--top N shows more)\n",
                w.nclasses - shown);
    wasp_lock_waits_free(&w);
    return 0;
}

static void json_time(wasp_json *j, double samples, double secs)
{
    double lo, hi;
    wasp_lock_waits_interval(samples, secs, &lo, &hi);
    wasp_json_double(j, "samples", samples);
    wasp_json_double(j, "seconds", secs);
    wasp_json_double(j, "seconds_low", lo);
    wasp_json_double(j, "seconds_high", hi);
}

static void json_meta(wasp_json *j, const wasp_profile *p, const char *key, const char *meta_key)
{
    const char *v = wasp_profile_get_meta(p, meta_key);
    wasp_json_double(j, key, v ? strtod(v, NULL) : 0);
}

int wasp_lock_waits_json(wasp_json *j, const wasp_profile *p, int top)
{
    if (!wasp_lock_waits_measured(p))
        return 0;
    wasp_lock_waits w;
    if (wasp_lock_waits_rank(p, &w) != 0)
        return -1;
    wasp_json_begin_object(j, "blocked", false);
    json_meta(j, p, "period_ms", "locks_blocked_period_ms");
    json_meta(j, p, "looks", "locks_blocked_looks");
    json_meta(j, p, "cpu_ms", "locks_blocked_cpu_ms");
    json_time(j, w.samples, w.seconds);
    wasp_json_begin_array(j, "classes", false);
    uint32_t shown = wasp_report_shown(top, w.nclasses);
    for (uint32_t i = 0; i < shown; i++) {
        const wasp_lock_waits_class *k = &w.classes[i];
        wasp_json_begin_object(j, NULL, false);
        wasp_json_string(j, "class", p->strings[k->cls]);
        wasp_json_string(j, "kind", p->strings[k->where]);
        json_time(j, k->samples, k->seconds);
        wasp_json_double(j, "share", wasp_share(k->seconds, w.seconds));
        wasp_json_begin_array(j, "contexts", false);
        for (uint32_t x = 0; x < k->ncontexts; x++) {
            wasp_json_begin_object(j, NULL, false);
            json_time(j, k->contexts[x].samples, k->contexts[x].seconds);
            wasp_json_context_fields(j, p, k->contexts[x].ctx);
            wasp_json_end_object(j);
        }
        wasp_json_end_array(j);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    wasp_json_end_object(j);
    wasp_lock_waits_free(&w);
    return 0;
}
