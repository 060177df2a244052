/*
 * The fields analysis in `wasp diff` (cli/diff_part.h): members (class +
 * field, or class + array elements), keyed by class, field name and offset,
 * each valued by its sampled accesses (loads and stores) as a share of every
 * heap sample; a member shows its hottest context.
 */
#include "analysis/fields/profile.h"
#include "analysis/fields/ranking.h"
#include "analysis/fields/records.h"
#include "cli/diff_part.h"
#include "cli/report_part.h"

static int collect(wasp_diff_builder *b, const wasp_profile *p, int id, int side)
{
    wasp_field_ranking r;
    if (wasp_field_rank(p, &r) != 0)
        return -1;
    wasp_diff_set_total(b, id, side, r.heap, 0);
    int rc = 0;
    for (uint32_t i = 0; i < r.nmembers && rc == 0; i++) {
        const wasp_field_group *g = &r.members[i];
        double samples = g->loads + g->stores;
        if (!(samples > 0) || g->nentries == 0)
            continue;
        wasp_diff_key k;
        wasp_diff_key_begin(&k, id);
        wasp_diff_key_string(&k, p->strings[g->cls]);
        wasp_diff_key_string(&k, p->strings[g->member]);
        wasp_diff_key_number(&k, g->offset);
        rc = wasp_diff_add(b, id, side, &k, g->entries[0], i + 1, samples, samples);
    }
    wasp_field_ranking_free(&r);
    return rc;
}

/* The member's field as the report's JSON spells it: "[]" for elements. */
static const char *field_of(const wasp_profile *p, const wasp_field_entry *x)
{
    return x->offset == WASP_FIELD_ELEMENTS ? "[]" : p->strings[x->member];
}

static void text_entry(const wasp_profile *p, int id, uint32_t index, FILE *out)
{
    (void)id;
    const wasp_field_entry *x = &wasp_profile_fields(p, &(uint32_t){0})[index];
    const char *field = field_of(p, x);
    if (*field)
        fprintf(out, "      class %s, field %s\n", p->strings[x->cls], field);
    else
        fprintf(out, "      class %s, offset %u\n", p->strings[x->cls], (unsigned)x->offset);
    wasp_text_context(p, "hottest at:", x->ctx, out);
}

static void json_entry(wasp_json *j, const wasp_profile *p, int id, uint32_t index)
{
    (void)id;
    const wasp_field_entry *x = &wasp_profile_fields(p, &(uint32_t){0})[index];
    wasp_json_string(j, "class", p->strings[x->cls]);
    wasp_json_string(j, "field", field_of(p, x));
    if (x->offset == WASP_FIELD_ELEMENTS)
        wasp_json_null(j, "offset");
    else
        wasp_json_double(j, "offset", x->offset);
    wasp_json_context(j, p, "hottest", x->ctx);
}

const wasp_diff_part wasp_diff_fields = {
    .title = "Fields", .entry = "Member", .what = "member", .whats = "members",
    .of = "of heap samples", .unit = "samples", .collect = collect,
    .text_entry = text_entry, .json_entry = json_entry,
    .columns = {{"class", "class", false}, {"field", "field", false},
                {"hottest at", "hottest", true}},
    .details = {{"class", "class", false, NULL}, {"field", "field", false, NULL},
                {"hottest at", "hottest", true, NULL}},
};
