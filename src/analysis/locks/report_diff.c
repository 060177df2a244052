/*
 * The locks analysis in `wasp diff` (cli/diff/diff_part.h): the classes of locked
 * objects, keyed by class name, each valued by its lock samples (acquiring
 * compare-and-swaps and slow-path samples) as a share of every lock sample;
 * a class shows its hottest acquiring context.
 */
#include "analysis/locks/profile.h"
#include "analysis/locks/ranking.h"
#include "cli/diff/diff_part.h"
#include "cli/render/report_part.h"

/* The entry of the class's hottest context (UINT32_MAX when none). */
static uint32_t hottest_entry(const wasp_profile *p, const wasp_lock_class *k)
{
    uint32_t n;
    const wasp_lock_entry *e = wasp_profile_locks(p, &n);
    for (uint32_t i = 0; k->ncontexts && i < n; i++)
        if (e[i].cls == k->sum.cls && e[i].ctx == k->contexts[0].ctx)
            return i;
    return UINT32_MAX;
}

static int collect(wasp_diff_builder *b, const wasp_profile *p, int id, int side)
{
    wasp_lock_ranking r;
    if (wasp_lock_rank(p, &r) != 0)
        return -1;
    wasp_diff_set_total(b, id, side, r.acquire + r.slow, 0);
    int rc = 0;
    for (uint32_t i = 0; i < r.nclasses && rc == 0; i++) {
        const wasp_lock_class *c = &r.classes[i];
        double samples = wasp_lock_samples(&c->sum);
        uint32_t entry = hottest_entry(p, c);
        if (!(samples > 0) || entry == UINT32_MAX)
            continue;
        wasp_diff_key k;
        wasp_diff_key_begin(&k, id);
        wasp_diff_key_string(&k, p->strings[c->sum.cls]);
        rc = wasp_diff_add(b, id, side, &k, entry, i + 1, samples, samples);
    }
    wasp_lock_ranking_free(&r);
    return rc;
}

static const char *class_of(const wasp_profile *p, const wasp_lock_entry *x)
{
    return *p->strings[x->cls] ? p->strings[x->cls] : "<unknown class>";
}

static void text_entry(const wasp_profile *p, int id, uint32_t index, FILE *out)
{
    (void)id;
    const wasp_lock_entry *x = &wasp_profile_locks(p, &(uint32_t){0})[index];
    fprintf(out, "      class %s\n", class_of(p, x));
    wasp_text_context(p, "hottest at:", x->ctx, out);
}

static void json_entry(wasp_json *j, const wasp_profile *p, int id, uint32_t index)
{
    (void)id;
    const wasp_lock_entry *x = &wasp_profile_locks(p, &(uint32_t){0})[index];
    wasp_json_string(j, "class", p->strings[x->cls]);
    wasp_json_context(j, p, "hottest", x->ctx);
}

const wasp_diff_part wasp_diff_locks = {
    .title = "Locks", .entry = "Locked class", .what = "class", .whats = "classes",
    .of = "of lock samples", .unit = "samples", .collect = collect,
    .text_entry = text_entry, .json_entry = json_entry,
    .columns = {{"class", "class", false}, {"hottest at", "hottest", true}},
    .details = {{"class", "class", false, NULL}, {"hottest at", "hottest", true, NULL}},
};
