/*
 * The JSON report, exactly the schema of docs/report-json.md: the run's
 * metadata and counters, the summary (report_summary.c), then the member of each analysis shown, written by
 * its report part (report_part.h) under "analyses" or at the top level; and
 * the JSON helpers the parts share. Frames root first, leaf last (the
 * profile's own order).
 */
#include "catalog/ids.h"
#include "cli/render/json_frame_memo.h"
#include "cli/render/render.h"
#include "cli/render/report_part.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void wasp_json_frames(wasp_json *j, const wasp_profile *p, const wasp_context *c)
{
    wasp_json_begin_array(j, "frames", false);
    for (uint32_t k = 0; k < c->nframes; k++)
        wasp_json_frame(j, p, p->frame_refs[c->first + k]);
    wasp_json_end_array(j);
}

void wasp_json_context_fields(wasp_json *j, const wasp_profile *p, uint32_t id)
{
    const wasp_context *c = &p->contexts[id];
    wasp_json_frames(j, p, c);
    wasp_json_string(j, "instruction", c->insn ? wasp_profile_string(p, c->insn) : NULL);
}

void wasp_json_context(wasp_json *j, const wasp_profile *p, const char *key, uint32_t id)
{
    wasp_json_begin_object(j, key, false);
    wasp_json_context_fields(j, p, id);
    wasp_json_end_object(j);
}

void wasp_json_site_fields(wasp_json *j, const wasp_profile *p, const wasp_site *s)
{
    wasp_json_string(j, "class", wasp_profile_string(p, s->class_name));
    wasp_json_string(j, "by", wasp_site_by_class(p, s) ? "class" : "allocation");
    wasp_json_double(j, "allocations", s->allocations);
    wasp_json_double(j, "bytes", s->bytes);
}

void wasp_json_site_allocation(wasp_json *j, const wasp_profile *p, const wasp_site *s)
{
    wasp_json_begin_object(j, "allocation", false);
    wasp_json_frames(j, p, &p->contexts[s->ctx]);
    wasp_json_end_object(j);
}

int wasp_json_ranked(wasp_json *j, const wasp_profile *p, const char *key, uint32_t *order,
                     uint32_t n, int top, wasp_json_entry entry, const void *arg)
{
    wasp_json_begin_array(j, key, false);
    uint32_t shown = wasp_report_shown(top, n);
    int rc = 0;
    for (uint32_t i = 0; i < shown && rc == 0; i++)
        rc = entry(j, p, order[i], arg);
    free(order);
    if (rc == 0)
        wasp_json_end_array(j);
    return rc;
}

/* A number: a whole one without a fraction ("pid": 4242, "threads": 4). */
static void json_number(wasp_json *j, const char *key, double v)
{
    if (v == floor(v) && fabs(v) <= 9007199254740992.0) /* 2^53: exact in a double */
        wasp_json_i64(j, key, (int64_t)v);
    else
        wasp_json_double(j, key, v);
}

/* Metadata the agent writes as a number in words ("period": "1000 us CPU",
 * "250000 events"): in JSON the number, its unit ("KEY_unit") and the words
 * ("KEY_words", for display) (docs/report-json.md). 1 when kv was one. */
static int json_meta_measure(wasp_json *j, const wasp_kv *kv)
{
    static const char *const keys[] = {"period"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        if (strcmp(kv->key, keys[i]) != 0)
            continue;
        char *end;
        errno = 0;
        double v = strtod(kv->value, &end);
        if (end == kv->value || errno != 0 || !isfinite(v) || *end != ' ' || !end[1])
            return 0; /* not a number and a unit: the words as they are */
        char key[64];
        json_number(j, kv->key, v);
        snprintf(key, sizeof key, "%s_unit", kv->key);
        wasp_json_string(j, key, end + 1);
        snprintf(key, sizeof key, "%s_words", kv->key);
        wasp_json_string(j, key, kv->value);
        return 1;
    }
    return 0;
}

/* A metadata value: text as a string, a number as a number. */
static void json_meta(wasp_json *j, const wasp_kv *kv)
{
    if (kv->numeric)
        json_number(j, kv->key, kv->number);
    else if (!json_meta_measure(j, kv))
        wasp_json_string(j, kv->key, kv->value);
}

/* The members of the analyses shown that go in `place`. */
static int json_parts(wasp_json *j, const wasp_profile *p, uint32_t shown, wasp_json_place place,
                      int top)
{
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_report_part *part = wasp_report_part_of(id);
        if ((shown & (1u << id)) && part->json_place == place && part->json(j, p, id, top) != 0)
            return -1; /* the output is cut short; the caller reports the failure */
    }
    return 0;
}

static int render_json(wasp_json *j, const wasp_profile *p, int top);

int wasp_render_json(const wasp_profile *p, int top, FILE *out)
{
    wasp_json j;
    wasp_json_init(&j, out);
    j.frame_memo = wasp_json_memo_new(p); /* NULL: slower, same output */
    int rc = render_json(&j, p, top);
    wasp_json_memo_free(j.frame_memo);
    return rc;
}

static int render_json(wasp_json *j, const wasp_profile *p, int top)
{
    wasp_json_begin_object(j, NULL, false);
    wasp_json_string(j, "format", "wasp-report");
    wasp_json_u64(j, "version", 1);

    wasp_json_begin_object(j, "meta", false);
    for (uint32_t i = 0; i < p->nmeta; i++)
        json_meta(j, &p->meta[i]);
    wasp_json_end_object(j);

    wasp_json_begin_object(j, "counters", false);
    for (uint32_t i = 0; i < p->ncounters; i++)
        wasp_json_u64(j, p->counters[i].name, p->counters[i].value);
    wasp_json_end_object(j);

    wasp_json_u64(j, "merged_profiles", p->merged);

    char thin[WASP_THIN_WARNING_MAX];
    wasp_json_begin_array(j, "warnings", false);
    if (wasp_report_thin_evidence(p, thin, sizeof thin))
        wasp_json_string(j, NULL, thin);
    const char *snapshot = wasp_profile_get_meta(p, "snapshot");
    if (snapshot && *snapshot) /* the page shows warnings: a snapshot must say so there too */
        wasp_json_string(j, NULL, snapshot);
    for (uint32_t k = 0; wasp_report_blind(p, k); k++)
        wasp_json_string(j, NULL, wasp_report_blind(p, k));
    wasp_json_end_array(j);

    uint32_t shown = wasp_report_shown_analyses(p);
    if (wasp_summary_json(j, p, shown, top) != 0)
        return -1;
    wasp_json_begin_object(j, "analyses", false);
    if (json_parts(j, p, shown, WASP_JSON_IN_ANALYSES, top) != 0)
        return -1;
    wasp_json_end_object(j);
    if (json_parts(j, p, shown, WASP_JSON_TOP_LEVEL, top) != 0)
        return -1;
    wasp_json_end_object(j);
    return 0;
}
