/*
 * Where untracked objects of a class are created (see creations.h): the
 * creation profile's contexts of a class site's class, ranked; without a
 * creation profile, the allocation samples' contexts of that class.
 */
#include "analysis/objects/report_creations.h"

#include <stdlib.h>

#include "analysis/alloc/profile.h"
#include "analysis/objects/profile.h"
#include "cli/render/report_part.h"
#include "cli/render/units.h"

typedef struct creation {
    uint32_t ctx;
    double samples;
    bool walked; /* its stack was walked; the others rank last (profile.h) */
} creation;

static int by_samples(const void *a, const void *b)
{
    const creation *x = a, *y = b;
    if (x->walked != y->walked)
        return x->walked ? -1 : 1;
    if (x->samples != y->samples)
        return x->samples < y->samples ? 1 : -1;
    return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

/* Where the evidence comes from: -e alloc's sampled creations when it ran,
 * else the JVMTI allocation samples of objects under min-size. */
typedef enum { FROM_NONE, FROM_CREATIONS, FROM_ALLOCATIONS } source;

static source source_of(const wasp_profile *p)
{
    uint32_t n;
    if (wasp_profile_has_allocs(p))
        return FROM_CREATIONS;
    wasp_profile_untracked_allocs(p, &n);
    return n ? FROM_ALLOCATIONS : FROM_NONE;
}

/* Entry i of src's records: its class in *cls, its context and samples. */
static creation entry(const wasp_profile *p, source src, uint32_t i, uint32_t *cls)
{
    uint32_t n;
    if (src == FROM_CREATIONS) {
        const wasp_alloc_entry *e = &wasp_profile_allocs(p, &n)[i];
        *cls = e->cls;
        return (creation){e->ctx, e->samples, wasp_profile_context_walked(p, e->ctx)};
    }
    const wasp_untracked_alloc *u = &wasp_profile_untracked_allocs(p, &n)[i];
    *cls = u->cls;
    return (creation){u->ctx, u->allocations, wasp_profile_context_walked(p, u->ctx)};
}

static uint32_t entries(const wasp_profile *p, source src)
{
    uint32_t n = 0;
    if (src == FROM_CREATIONS)
        wasp_profile_allocs(p, &n);
    else if (src == FROM_ALLOCATIONS)
        wasp_profile_untracked_allocs(p, &n);
    return n;
}

/* The contexts of class cls from src, most sampled first (the caller frees
 * them); *total: their samples. NULL with *n = 0 when there are none. */
static creation *creations_of(const wasp_profile *p, source src, uint32_t cls, uint32_t *n,
                              double *total)
{
    uint32_t all = entries(p, src), mine = 0, k;
    *n = 0;
    *total = 0;
    for (uint32_t i = 0; i < all; i++)
        mine += entry(p, src, i, &k).samples > 0 && k == cls;
    creation *c = mine ? malloc(mine * sizeof *c) : NULL;
    if (!c)
        return NULL;
    for (uint32_t i = 0; i < all; i++) {
        creation x = entry(p, src, i, &k);
        if (k != cls || !(x.samples > 0))
            continue;
        c[(*n)++] = x;
        *total += x.samples;
    }
    qsort(c, *n, sizeof *c, by_samples);
    return c;
}

bool wasp_objects_have_creations(const wasp_profile *p)
{
    return source_of(p) != FROM_NONE;
}

bool wasp_objects_top_creation(const wasp_profile *p, const wasp_site *s, uint32_t *ctx,
                               double *share)
{
    source src = source_of(p);
    if (!wasp_site_by_class(p, s) || src == FROM_NONE)
        return false;
    uint32_t n;
    double total;
    creation *c = creations_of(p, src, s->class_name, &n, &total);
    /* Summed by place: one method's creations come by many paths (sunflow's
     * Ray.transform: 65% of the Ray bytes by the allocations' summary, its
     * heaviest path alone 17%), and the summary names the place. */
    wasp_place_item *items = n ? malloc(n * sizeof *items) : NULL;
    for (uint32_t i = 0; items && i < n; i++)
        items[i] = (wasp_place_item){.index = i, .key = s->class_name, .ctx = c[i].ctx,
                                     .created = s->class_name, .weight = c[i].samples};
    uint32_t places = 0;
    bool found = items && total > 0 && wasp_place_merge(p, items, n, &places) == 0 && places > 0;
    if (found) {
        *ctx = items[0].ctx; /* the place's heaviest path (merge keeps the first) */
        *share = items[0].weight / total;
    }
    free(items);
    free(c);
    return found;
}

void wasp_objects_creations_text(const wasp_profile *p, const wasp_site *s, int top, FILE *out)
{
    source src = source_of(p);
    if (!wasp_site_by_class(p, s) || src == FROM_NONE)
        return;
    uint32_t n;
    double total;
    creation *c = creations_of(p, src, s->class_name, &n, &total);
    char a[WASP_UNIT_BUF], b[WASP_UNIT_BUF];
    if (!n) {
        fputs(src == FROM_CREATIONS ? "      created at: no sampled creation of this class\n"
                                    : "      allocated at: no sampled allocation of this class\n",
              out);
        free(c);
        return;
    }
    if (src == FROM_CREATIONS)
        fprintf(out, "      created at (%s sampled creations of the class, -e alloc):\n",
                wasp_fmt_count(total, a, sizeof a));
    else
        fprintf(out,
                "      allocated at (%s sampled allocations of the class; a share of them "
                "estimates a share of the accesses above):\n",
                wasp_fmt_count(total, a, sizeof a));
    uint32_t shown = top > 0 && (uint32_t)top < n ? (uint32_t)top : n;
    for (uint32_t i = 0; i < shown; i++) {
        fprintf(out, "        %-6s  %s sample%s\n",
                wasp_fmt_percent(wasp_share(c[i].samples, total), a, sizeof a),
                wasp_fmt_count(c[i].samples, b, sizeof b), c[i].samples == 1 ? "" : "s");
        wasp_text_frames(p, &p->contexts[c[i].ctx], 10, out);
    }
    if (n > shown)
        fprintf(out, "        ... %u more %s context%s\n", (unsigned)(n - shown),
                src == FROM_CREATIONS ? "creation" : "allocation", n - shown == 1 ? "" : "s");
    free(c);
}

int wasp_objects_creations_json(wasp_json *j, const wasp_profile *p, const wasp_site *s, int top)
{
    source src = source_of(p);
    if (!wasp_site_by_class(p, s) || src == FROM_NONE) {
        wasp_json_null(j, "creations");
        return 0;
    }
    uint32_t n;
    double total;
    creation *c = creations_of(p, src, s->class_name, &n, &total);
    wasp_json_begin_object(j, "creations", false);
    wasp_json_string(j, "from", src == FROM_CREATIONS ? "creations" : "allocations");
    wasp_json_double(j, "samples", total);
    wasp_json_begin_array(j, "contexts", false);
    uint32_t shown = top > 0 && (uint32_t)top < n ? (uint32_t)top : n;
    for (uint32_t i = 0; i < shown; i++) {
        wasp_json_begin_object(j, NULL, false);
        wasp_json_double(j, "share", wasp_share(c[i].samples, total));
        wasp_json_double(j, "samples", c[i].samples);
        wasp_json_context_fields(j, p, c[i].ctx);
        wasp_json_end_object(j);
    }
    wasp_json_end_array(j);
    wasp_json_end_object(j);
    free(c);
    return 0;
}
