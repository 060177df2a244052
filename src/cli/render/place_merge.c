/* Summary findings by place (report_part.h, wasp_place_merge): the summary
 * names a finding by its first application frame, so sites whose calling
 * paths differ only beyond it would show as two lines at one place, each
 * with the place's whole CPU (pdfbox: Matrix.<init>:51 twice among the
 * allocations). Merged, the place's line carries what happens there. */
#include "cli/render/report_part.h"

#include <stdlib.h>

typedef struct placed {
    uint32_t key, name, pos; /* pos: the item's place in the given order */
    int32_t line;
    bool unplaced;           /* no frame to name: merged with nothing */
} placed;

static int by_place(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->unplaced != y->unplaced)
        return x->unplaced ? 1 : -1;
    if (!x->unplaced && x->name != y->name)
        return x->name < y->name ? -1 : 1;
    if (!x->unplaced && x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int by_weight(const void *a, const void *b)
{
    const wasp_place_item *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The same place and key as the group g heads (they sort together). */
static bool same(const placed *g, const placed *x)
{
    return !g->unplaced && !x->unplaced && g->key == x->key && g->name == x->name &&
           g->line == x->line;
}

int wasp_place_merge(const wasp_profile *p, wasp_place_item *items, uint32_t n, uint32_t *out_n)
{
    placed *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const wasp_frame *at =
            items[i].ctx < p->ncontexts
                ? wasp_created_place(p, &p->contexts[items[i].ctx], items[i].created)
                : NULL;
        items[i].order = i;
        s[i] = (placed){.key = items[i].key, .pos = i, .unplaced = !at,
                        .name = at ? at->name : 0, .line = at ? at->line : 0};
    }
    qsort(s, n, sizeof *s, by_place);
    /* Each group's sums go to its first item in the given order (the
     * heaviest path: its context names the finding); the rest are emptied. */
    uint32_t head = 0;
    for (uint32_t i = 1; i < n; i++) {
        if (!same(&s[head], &s[i])) {
            head = i;
            continue;
        }
        wasp_place_item *g = &items[s[head].pos], *x = &items[s[i].pos];
        g->weight += x->weight;
        g->evidence += x->evidence;
        g->weight_sq += x->weight_sq;
        g->merged++;
        x->order = UINT32_MAX;
    }
    free(s);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (items[i].order != UINT32_MAX)
            items[k++] = items[i];
    qsort(items, k, sizeof *items, by_weight);
    *out_n = k;
    return 0;
}
