/*
 * The JSON report, exactly the schema of docs/report-json.md: frames root
 * first, leaf last (the profile's own order).
 */
#include "cli/json_writer.h"
#include "cli/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The "frames" member: the context's frames, root first. */
static void json_frames(wasp_json *j, const wasp_profile *p, const wasp_context *c)
{
    wasp_json_begin_array(j, "frames", false);
    for (uint32_t k = 0; k < c->nframes; k++) {
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + k]];
        wasp_json_begin_object(j, NULL, true);
        wasp_json_string(j, "kind", wasp_frame_kind_name(f->kind));
        wasp_json_string(j, "method", wasp_profile_string(p, f->name));
        wasp_json_string(j, "file", f->file ? wasp_profile_string(p, f->file) : NULL);
        wasp_json_i64(j, "line", f->line);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
}

/* A context's "frames" and "instruction", into the object being written. */
static void json_context_fields(wasp_json *j, const wasp_profile *p, uint32_t id)
{
    const wasp_context *c = &p->contexts[id];
    json_frames(j, p, c);
    wasp_json_string(j, "instruction", c->insn ? wasp_profile_string(p, c->insn) : NULL);
}

static void json_context(wasp_json *j, const wasp_profile *p, const char *key, uint32_t id)
{
    wasp_json_begin_object(j, key, false);
    json_context_fields(j, p, id);
    wasp_json_end_object(j);
}

static int json_analysis(wasp_json *j, const wasp_profile *p, wasp_analysis a, int top)
{
    const wasp_totals *t = &p->totals[a];
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_pairs(p, a, &n);
    if (!order)
        return -1;
    wasp_json_begin_object(j, wasp_analysis_name(a), false);
    wasp_json_double(j, "fraction", wasp_fraction_prog(p, a));
    wasp_json_double(j, "bytes", t->bytes);
    wasp_json_double(j, "wasted_bytes", t->wasted);
    wasp_json_double(j, "wasted_bytes_approx", t->wasted_approx);
    wasp_json_double(j, "pairs_classified", t->pairs);
    wasp_json_begin_array(j, "pairs", false);
    uint32_t shown = wasp_report_shown(top, n);
    for (uint32_t i = 0; i < shown; i++) {
        const wasp_pair *q = &p->pairs[order[i]];
        wasp_json_begin_object(j, NULL, false);
        wasp_json_double(j, "fraction", wasp_fraction_pair(p, q));
        wasp_json_double(j, "bytes", q->bytes);
        wasp_json_double(j, "count", q->count);
        wasp_json_bool(j, "approximate", (q->flags & WASP_PAIR_APPROX) != 0);
        json_context(j, p, "watch", q->watch_ctx);
        json_context(j, p, "trap", q->trap_ctx);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    wasp_json_end_object(j);
    free(order);
    return 0;
}

/* ---- objects ---- */

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

static double json_share(double part, double whole)
{
    return whole > 0 ? part / whole : 0;
}

static int json_site(wasp_json *j, const wasp_profile *p, uint32_t id, double total,
                     bool single_node, int top)
{
    const wasp_site *s = &p->sites[id];
    double remote, samples = wasp_profile_site_samples(p, id, &remote);
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_site_accesses(p, id, &n);
    if (!order)
        return -1;
    wasp_json_begin_object(j, NULL, false);
    wasp_json_double(j, "share", json_share(samples, total));
    wasp_json_string(j, "class", wasp_profile_string(p, s->class_name));
    wasp_json_double(j, "allocations", s->allocations);
    wasp_json_double(j, "bytes", s->bytes);
    wasp_json_double(j, "samples", samples);
    if (single_node)
        wasp_json_null(j, "remote_share");
    else
        wasp_json_double(j, "remote_share", json_share(remote, samples));
    wasp_json_begin_object(j, "allocation", false);
    json_frames(j, p, &p->contexts[s->ctx]);
    wasp_json_end_object(j);
    wasp_json_begin_array(j, "accesses", false);
    uint32_t shown = wasp_report_shown(top, n);
    for (uint32_t i = 0; i < shown; i++) {
        const wasp_site_access *a = &p->accesses[order[i]];
        wasp_json_begin_object(j, NULL, false);
        wasp_json_double(j, "share", json_share(a->samples, samples));
        wasp_json_double(j, "samples", a->samples);
        if (single_node)
            wasp_json_null(j, "remote_share");
        else
            wasp_json_double(j, "remote_share", json_share(a->remote, a->samples));
        json_context_fields(j, p, a->access_ctx);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    wasp_json_end_object(j);
    free(order);
    return 0;
}

static int json_objects(wasp_json *j, const wasp_profile *p, int top)
{
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_sites(p, &n);
    if (!order)
        return -1;
    bool single_node = wasp_profile_objects_single_node(p);
    double total = 0, remote = 0;
    for (uint32_t i = 0; i < p->naccesses; i++) {
        total += p->accesses[i].samples;
        remote += p->accesses[i].remote;
    }
    wasp_json_begin_object(j, "objects", false);
    wasp_json_string(j, "metric", wasp_profile_get_meta(p, "objects.metric"));
    json_counter(j, p, "samples", "objects.samples");
    json_counter(j, p, "unattributed", "objects.unattributed");
    json_counter(j, p, "stale", "objects.stale");
    wasp_json_double(j, "attributed", total);
    if (single_node)
        wasp_json_null(j, "remote_share");
    else
        wasp_json_double(j, "remote_share", json_share(remote, total));
    json_meta_number(j, p, "numa_nodes", "numa_nodes");
    json_meta_number(j, p, "min_size", "objects.min_size");
    json_meta_number(j, p, "sampling_interval", "objects.sampling_interval");
    json_meta_number(j, p, "sampling_interval_max", "objects.sampling_interval_max");
    wasp_json_begin_array(j, "sites", false);
    uint32_t shown = wasp_report_shown(top, n);
    int rc = 0;
    for (uint32_t i = 0; i < shown && rc == 0; i++)
        rc = json_site(j, p, order[i], total, single_node, top);
    free(order);
    if (rc != 0)
        return -1;
    wasp_json_end_array(j);
    wasp_json_end_object(j);
    return 0;
}

/* ---- object replicas (OJXPerf) ---- */

static void json_maybe(wasp_json *j, const char *key, double v)
{
    if (isnan(v))
        wasp_json_null(j, key);
    else
        wasp_json_double(j, key, v);
}

static int json_replica_site(wasp_json *j, const wasp_profile *p, uint32_t id, int top)
{
    const wasp_site *s = &p->sites[id];
    double comparisons, theta = wasp_replica_theta(p, id, &comparisons);
    double same = 0;
    for (uint32_t i = 0; i < p->nreplicas; i++)
        if (p->replicas[i].site == id)
            same += p->replicas[i].same;
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_site_replicas(p, id, &n);
    if (!order)
        return -1;
    const wasp_replica_check *k = wasp_profile_replica_check(p, id);
    wasp_json_begin_object(j, NULL, false);
    wasp_json_double(j, "theta", theta);
    wasp_json_double(j, "comparisons", comparisons);
    wasp_json_double(j, "same", same);
    wasp_json_double(j, "different", comparisons - same);
    wasp_json_string(j, "class", wasp_profile_string(p, s->class_name));
    wasp_json_double(j, "allocations", s->allocations);
    wasp_json_double(j, "bytes", s->bytes);
    wasp_json_double(j, "samples", wasp_profile_site_samples(p, id, NULL));
    if (k) {
        wasp_json_double(j, "alpha", k->alpha);
        wasp_json_double(j, "omega", wasp_replica_omega(theta, k->alpha));
        json_maybe(j, "gamma", wasp_replica_gamma(theta, k->alpha, s->allocations));
        wasp_json_begin_object(j, "verified", true);
        wasp_json_double(j, "pairs", k->pairs);
        wasp_json_double(j, "identical", k->identical);
        wasp_json_double(j, "false_positive", k->false_positive);
        wasp_json_end_object(j);
    } else {
        wasp_json_null(j, "alpha");
        wasp_json_null(j, "omega");
        wasp_json_null(j, "gamma");
        wasp_json_null(j, "verified");
    }
    wasp_json_begin_object(j, "allocation", false);
    json_frames(j, p, &p->contexts[s->ctx]);
    wasp_json_end_object(j);
    wasp_json_begin_array(j, "accesses", false);
    uint32_t shown = wasp_report_shown(top, n);
    for (uint32_t i = 0; i < shown; i++) {
        const wasp_replica *r = &p->replicas[order[i]];
        double all = r->same + r->different;
        wasp_json_begin_object(j, NULL, false);
        wasp_json_double(j, "theta", json_share(r->same, all));
        wasp_json_double(j, "comparisons", all);
        json_context_fields(j, p, r->access_ctx);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    wasp_json_end_object(j);
    free(order);
    return 0;
}

static int json_replicas(wasp_json *j, const wasp_profile *p, int top)
{
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_replica_sites(p, &n);
    if (!order)
        return -1;
    wasp_json_begin_object(j, "replicas", false);
    wasp_json_begin_array(j, "sites", false);
    uint32_t shown = wasp_report_shown(top, n);
    int rc = 0;
    for (uint32_t i = 0; i < shown && rc == 0; i++)
        rc = json_replica_site(j, p, order[i], top);
    free(order);
    if (rc != 0)
        return -1;
    wasp_json_end_array(j);
    wasp_json_end_object(j);
    return 0;
}

int wasp_render_json(const wasp_profile *p, int top, FILE *out)
{
    wasp_json j;
    wasp_json_init(&j, out);
    wasp_json_begin_object(&j, NULL, false);
    wasp_json_string(&j, "format", "wasp-report");
    wasp_json_u64(&j, "version", 1);

    wasp_json_begin_object(&j, "meta", false);
    for (uint32_t i = 0; i < p->nmeta; i++)
        wasp_json_string(&j, p->meta[i].key, p->meta[i].value);
    wasp_json_end_object(&j);

    wasp_json_begin_object(&j, "counters", false);
    for (uint32_t i = 0; i < p->ncounters; i++)
        wasp_json_u64(&j, p->counters[i].name, p->counters[i].value);
    wasp_json_end_object(&j);

    wasp_json_u64(&j, "merged_profiles", p->merged);

    bool enabled[WASP_AN_COUNT];
    wasp_report_enabled(p, enabled);
    wasp_json_begin_object(&j, "analyses", false);
    int rc = 0;
    for (int a = 0; a < WASP_AN_COUNT && rc == 0; a++)
        if (enabled[a])
            rc = json_analysis(&j, p, (wasp_analysis)a, top);
    if (rc != 0)
        return -1; /* the output is cut short; the caller reports the failure */
    wasp_json_end_object(&j);
    if (wasp_profile_has_objects(p) && json_objects(&j, p, top) != 0)
        return -1;
    if (wasp_profile_has_replicas(p) && json_replicas(&j, p, top) != 0)
        return -1;
    wasp_json_end_object(&j);
    return 0;
}
