/*
 * The replicas analysis in `wasp diff` (cli/diff_part.h): allocation sites
 * whose comparisons found equal values, keyed by class and allocation frames,
 * each valued by those comparisons as a share of every comparison; the share
 * of comparisons finding equal values before and after.
 */
#include "analysis/replicas/profile.h"
#include "cli/diff_part.h"
#include "cli/units.h"

#include <stdlib.h>

static int collect(wasp_diff_builder *b, const wasp_profile *p, int id, int side)
{
    uint32_t n, nrec;
    const wasp_replica *rec = wasp_profile_replicas(p, &nrec);
    double total = 0, same = 0;
    for (uint32_t i = 0; i < nrec; i++) {
        total += rec[i].same + rec[i].different;
        same += rec[i].same;
    }
    wasp_diff_set_total(b, id, side, total, total > 0 ? same / total : 0);
    uint32_t *order = wasp_profile_sorted_replica_sites(p, &n);
    if (!order)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        double comparisons;
        double theta = wasp_replica_theta(p, order[i], &comparisons);
        if (theta * comparisons <= 0)
            continue; /* no equal values: no replicas found there */
        wasp_diff_key k;
        wasp_diff_key_begin(&k, id);
        wasp_diff_key_site(&k, p, order[i]);
        rc = wasp_diff_add(b, id, side, &k, order[i], i + 1, theta * comparisons,
                           theta * comparisons);
    }
    free(order);
    return rc;
}

/* "equal values in 40.0% -> 5.0% (-35.0 points) of 1,000 -> 900 comparisons". */
static void summary(const wasp_diff_analysis *a, int id, FILE *out)
{
    (void)id;
    char f0[WASP_UNIT_BUF], f1[WASP_UNIT_BUF], t0[WASP_UNIT_BUF], t1[WASP_UNIT_BUF];
    fprintf(out,
            "equal values in %s " WASP_DIFF_ARROW " %s (%+.1f points) of %s " WASP_DIFF_ARROW
            " %s comparisons",
            wasp_fmt_percent(a->fraction[0], f0, sizeof f0),
            wasp_fmt_percent(a->fraction[1], f1, sizeof f1),
            100 * (a->fraction[1] - a->fraction[0]), wasp_fmt_count(a->total[0], t0, sizeof t0),
            wasp_fmt_count(a->total[1], t1, sizeof t1));
}

const wasp_diff_part wasp_diff_replicas = {
    .title = "Object replicas", .entry = "Replica site", .what = "site", .whats = "sites",
    .of = "of comparisons", .unit = "equal comparisons", .has_fraction = true,
    .collect = collect, .summary = summary, .text_entry = wasp_diff_site_text,
    .json_entry = wasp_diff_site_json, WASP_DIFF_SITE_LAYOUT,
};
