/*
 * The objects analysis in `wasp diff` (cli/diff_part.h): allocation sites
 * with access samples, keyed by class and allocation frames, each valued by
 * its access samples as a share of every attributed sample.
 */
#include "analysis/objects/profile.h"
#include "cli/diff_part.h"
#include "cli/units.h"

#include <stdlib.h>

static int collect(wasp_diff_builder *b, const wasp_profile *p, int id, int side)
{
    uint32_t n, nacc;
    const wasp_site_access *acc = wasp_profile_site_accesses(p, &nacc);
    double total = 0;
    for (uint32_t i = 0; i < nacc; i++)
        total += acc[i].samples;
    wasp_diff_set_total(b, id, side, total, 0);
    /* Samples weigh the thread CPU time they stand for: as observations,
     * the samples attributed (0: as many as their weights). */
    double taken = (double)wasp_profile_get_counter(p, "objects.samples") -
                   (double)wasp_profile_get_counter(p, "objects.unattributed");
    wasp_diff_set_samples(b, id, side, total, taken > 0 ? taken : 0);
    uint32_t *order = wasp_profile_sorted_sites(p, &n);
    if (!order)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        double samples = wasp_profile_site_samples(p, order[i], NULL);
        if (samples <= 0)
            continue; /* no accesses: nothing to compare */
        wasp_diff_key k;
        wasp_diff_key_begin(&k, id);
        wasp_diff_key_site(&k, p, order[i]);
        rc = wasp_diff_add(b, id, side, &k, order[i], i + 1, samples, samples);
    }
    free(order);
    return rc;
}

static void summary(const wasp_diff_analysis *a, int id, FILE *out)
{
    (void)id;
    char t0[WASP_UNIT_BUF], t1[WASP_UNIT_BUF];
    fprintf(out, "%s " WASP_DIFF_ARROW " %s access samples attributed",
            wasp_fmt_count(a->total[0], t0, sizeof t0), wasp_fmt_count(a->total[1], t1, sizeof t1));
}

const wasp_diff_part wasp_diff_objects = {
    .title = "Objects", .entry = "Objects site", .what = "site", .whats = "sites",
    .of = "of access samples", .unit = "samples", .collect = collect, .summary = summary,
    .text_entry = wasp_diff_site_text, .json_entry = wasp_diff_site_json, WASP_DIFF_SITE_LAYOUT,
};
