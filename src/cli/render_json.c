/*
 * The JSON report, exactly the schema of docs/report-json.md: frames root
 * first, leaf last (the profile's own order).
 */
#include "cli/json_writer.h"
#include "cli/render.h"

#include <stdlib.h>

static void json_context(wasp_json *j, const wasp_profile *p, const char *key, uint32_t id)
{
    const wasp_context *c = &p->contexts[id];
    wasp_json_begin_object(j, key, false);
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
    wasp_json_string(j, "instruction", c->insn ? wasp_profile_string(p, c->insn) : NULL);
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
    uint32_t shown = top > 0 && (uint32_t)top < n ? (uint32_t)top : n;
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
    wasp_json_end_object(&j);
    return 0;
}
