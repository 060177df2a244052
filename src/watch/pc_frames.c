/*
 * See pc_frames.h.
 */
#include "watch/pc_frames.h"

int wasp_pc_frames_at(const wasp_pc_frames *d, uint64_t after, wasp_rframe *out, int cap)
{
    uint32_t lo = 0, hi = d->npcs;
    while (lo < hi) { /* the first pc > after */
        uint32_t mid = lo + (hi - lo) / 2;
        if (d->pcs[mid] <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    int n = 0;
    if (lo < d->npcs)
        for (uint32_t j = 0; j < d->nframes[lo] && n < cap; j++)
            out[n++] = d->frames[d->first[lo] + j];
    return n;
}
