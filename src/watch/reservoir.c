/*
 * Reservoir policy for debug registers (see reservoir.h).
 *
 * ASYNC-SIGNAL-SAFE: no allocation, no locks, no system calls.
 */
#include "watch/reservoir.h"

uint64_t wasp_rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dull;
}

double wasp_rng_uniform(uint64_t *rng)
{
    return (double)(wasp_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* All slots in use: visit them in a random order (fairness); each would
 * take the new sample, weighing w, with probability w/seen (seen including
 * w), and every slot's seen grows whether or not it does. Returns the slot
 * that would, or -1. */
static int lottery(wasp_reservoir_slot *slots, int n, double w, uint64_t *rng)
{
    int order[8];
    int m = n < 8 ? n : 8;
    for (int i = 0; i < m; i++)
        order[i] = i;
    for (int i = m - 1; i > 0; i--) {
        int j = (int)(wasp_rng_next(rng) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    int picked = -1;
    for (int k = 0; k < m; k++) {
        wasp_reservoir_slot *s = &slots[order[k]];
        s->seen += w;
        if (picked < 0 && wasp_rng_uniform(rng) * s->seen < w)
            picked = order[k];
    }
    return picked;
}

wasp_reservoir_result wasp_reservoir_offer(wasp_reservoir_slot *slots, int n,
                                           int analysis, double w, uint64_t *rng)
{
    wasp_reservoir_result res = {.slot = -1, .replaced = 0, .dropped_weight = 0};
    int same = 0, free_slot = -1;
    for (int i = 0; i < n; i++) {
        if (!slots[i].in_use) {
            if (free_slot < 0)
                free_slot = i;
        } else if (slots[i].analysis == analysis) {
            same++;
        }
    }
    if (free_slot >= 0) {
        /* A free register: arm it; older watchpoints become less likely to be
         * replaced next time. */
        for (int i = 0; i < n; i++)
            if (slots[i].in_use)
                slots[i].seen += w;
        wasp_reservoir_slot *s = &slots[free_slot];
        s->in_use = 1;
        s->analysis = (uint8_t)analysis;
        s->seen = w;
        s->weight = w;
        res.slot = free_slot;
        return res;
    }

    res.slot = lottery(slots, n, w, rng);
    int m = n < 8 ? n : 8;
    /* Weight: the new sample's w is shared by the slots of its analysis (a
     * replacing sample inherits the weight of the watchpoint it replaces). A
     * replaced watchpoint of another analysis takes its weight with it. */
    if (res.slot >= 0) {
        wasp_reservoir_slot *s = &slots[res.slot];
        res.replaced = 1;
        if (s->analysis != analysis) {
            res.dropped_weight = s->weight;
            s->analysis = (uint8_t)analysis;
            s->weight = w;
            return res;
        }
    }
    if (!same) {
        res.dropped_weight = w;
        return res;
    }
    for (int i = 0; i < m; i++)
        if (slots[i].analysis == analysis)
            slots[i].weight += w / same;
    return res;
}

double wasp_reservoir_release(wasp_reservoir_slot *slot)
{
    double w = slot->in_use ? slot->weight : 0.0;
    slot->in_use = 0;
    slot->seen = 0.0;
    slot->weight = 0.0;
    return w;
}

int wasp_reservoir_pass(wasp_reservoir_slot *slots, int n, int analysis, double w,
                        uint64_t *rng)
{
    int same = 0, all = 0;
    for (int i = 0; i < n; i++) {
        all += slots[i].in_use;
        same += slots[i].in_use && slots[i].analysis == analysis;
    }
    if (all < n)
        return WASP_RESERVOIR_UNHELD; /* it would have had a free register */
    int picked = lottery(slots, n, w, rng);
    if (picked >= 0)
        return picked;
    if (!same)
        return WASP_RESERVOIR_UNHELD;
    for (int i = 0; i < n; i++)
        if (slots[i].in_use && slots[i].analysis == analysis)
            slots[i].weight += w / same;
    return -1;
}
