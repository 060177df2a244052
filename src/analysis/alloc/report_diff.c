/*
 * The alloc analysis in `wasp diff` (cli/diff_part.h): allocation sites
 * (class + the class-word store's context), keyed by class and context, each
 * valued by its sampled creations as a share of every sampled creation.
 */
#include "analysis/alloc/profile.h"
#include "analysis/alloc/ranking.h"
#include "cli/diff_part.h"
#include "cli/report_part.h"

static int collect(wasp_diff_builder *b, const wasp_profile *p, int id, int side)
{
    wasp_alloc_ranking r;
    if (wasp_alloc_rank_creations(p, &r) != 0)
        return -1;
    wasp_diff_set_total(b, id, side, r.samples, 0);
    /* Armed samples carry the weight of those refused meanwhile. */
    wasp_diff_set_samples(b, id, side, r.samples,
                          (double)wasp_profile_get_counter(p, "alloc.armed"));
    const wasp_alloc_entry *e = wasp_profile_allocs(p, &(uint32_t){0});
    int rc = 0;
    for (uint32_t i = 0; i < r.nsites && rc == 0; i++) {
        const wasp_alloc_entry *x = &e[r.sites[i]];
        if (!(x->samples > 0))
            continue;
        wasp_diff_key k;
        wasp_diff_key_begin(&k, id);
        wasp_diff_key_string(&k, p->strings[x->cls]);
        wasp_diff_key_context(&k, p, x->ctx, wasp_diff_with_insn(b));
        rc = wasp_diff_add(b, id, side, &k, r.sites[i], i + 1, x->samples, x->samples);
    }
    wasp_alloc_ranking_free(&r);
    return rc;
}

static void text_entry(const wasp_profile *p, int id, uint32_t index, FILE *out)
{
    (void)id;
    const wasp_alloc_entry *x = &wasp_profile_allocs(p, &(uint32_t){0})[index];
    fprintf(out, "      class %s\n", p->strings[x->cls]);
    wasp_text_context(p, "stored by", x->ctx, out);
}

static void json_entry(wasp_json *j, const wasp_profile *p, int id, uint32_t index)
{
    (void)id;
    const wasp_alloc_entry *x = &wasp_profile_allocs(p, &(uint32_t){0})[index];
    wasp_json_string(j, "class", p->strings[x->cls]);
    wasp_json_context(j, p, "stored_by", x->ctx);
}

const wasp_diff_part wasp_diff_alloc = {
    .title = "Object creation", .entry = "Allocation site", .what = "site", .whats = "sites",
    .of = "of sampled creations", .unit = "creations", .collect = collect,
    .text_entry = text_entry, .json_entry = json_entry,
    .columns = {{"class", "class", false}, {"stored by", "stored_by", true}},
    .details = {{"class", "class", false, NULL}, {"stored by", "stored_by", true, NULL}},
};
