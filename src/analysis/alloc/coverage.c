/*
 * The share of a thread's allocation its alloc chain covered (see
 * coverage.h).
 *
 * ASYNC-SIGNAL-SAFE: runs in the signal handler of the thread whose state it
 * is; reads only that thread's own JavaThread.
 */
#include "analysis/alloc/coverage.h"

#include "heap/tlab.h"

uint64_t wasp_alloc_window_bytes(uint64_t used_mark, uint64_t size_mark, uint32_t refills_mark,
                                 uint64_t used_now, uint32_t refills_now, uint64_t desired)
{
    if (refills_now == refills_mark)
        return used_now >= used_mark ? used_now - used_mark : 0;
    if (refills_now < refills_mark || used_mark > size_mark)
        return 0;
    /* The rest of the window's first TLAB, those taken in between, and the
     * used part of the current one. */
    return (size_mark - used_mark) + (uint64_t)(refills_now - refills_mark - 1) * desired + used_now;
}

double wasp_alloc_cover_factor(uint64_t allocated, uint64_t covered)
{
    if (allocated == 0 || covered == 0 || allocated <= covered)
        return 1.0;
    double f = (double)allocated / (double)covered;
    return f < WASP_ALLOC_COVER_MAX ? f : WASP_ALLOC_COVER_MAX;
}

void wasp_alloc_cover_from(wasp_alloc_coverage *c, uint64_t top, uint64_t end)
{
    if (c->from && c->end == end)
        return; /* already covering this TLAB */
    if (c->from && c->end > c->from)
        c->covered += c->end - c->from;
    c->from = top;
    c->end = end;
}

void wasp_alloc_cover_stop(wasp_alloc_coverage *c, uint64_t top)
{
    if (c->from && top > c->from && top <= c->end)
        c->covered += top - c->from;
    c->from = 0;
}

void wasp_alloc_cover_caught(wasp_alloc_coverage *c, uint32_t rec, double weight, double bytes)
{
    if (c->ncaught == WASP_ALLOC_WINDOW_CATCHES)
        return;
    c->rec[c->ncaught] = rec;
    c->weight[c->ncaught] = weight;
    c->bytes[c->ncaught] = bytes;
    c->ncaught++;
}

/* The TLAB now: its start, top and end, its refills, the size asked, and
 * the bytes the thread allocated, this TLAB's used part included. */
typedef struct tlab_now {
    uint64_t start, top, end, desired, allocated;
    uint32_t refills;
} tlab_now;

static int read_tlab(void *env, tlab_now *n)
{
    uint64_t retired;
    if (!wasp_tlab_room(env, &n->top, &n->end) ||
        !wasp_tlab_counts(env, &n->refills, &n->desired, &retired) ||
        (n->start = wasp_tlab_start(env)) == 0 || n->start > n->top)
        return 0;
    n->allocated = retired + (n->top - n->start);
    return n->allocated != 0;
}

void wasp_alloc_cover_close(wasp_alloc_coverage *c, void *env, uint32_t epoch, uint64_t outside,
                            void (*add)(void *arg, uint32_t rec, double weight, double bytes,
                                        double factor),
                            void *arg,
                            uint64_t *allocated, uint64_t *covered)
{
    *allocated = *covered = 0;
    tlab_now n;
    int known = read_tlab(env, &n);
    /* The open stretch: up to the top in the same TLAB (and on from there
     * in the next window), else it ran to its TLAB's end. */
    if (c->from && known && c->end == n.end) {
        if (n.top > c->from)
            c->covered += n.top - c->from;
        c->from = n.top;
    } else {
        wasp_alloc_cover_from(c, 0, 0);
    }
    if (c->open && known) {
        /* TLAB bytes by the refills, not the thread's allocated bytes: those
         * count objects allocated outside TLABs too, which no chain covers.
         * A GC zeroes the refills: then the allocated bytes less those the
         * allocation samples estimate were outside TLABs (a -Xint loop of
         * 16 KiB arrays, 90% outside, a GC every 30 ms: the TLAB bytes came
         * to 3.5 GB where 1.0 were, the outside 8.7 counted twice). Without
         * a GC the counts say it, even when no TLAB byte was allocated (the
         * allocated bytes were all outside then, and counted as TLAB's). */
        int same_epoch = c->epoch_mark == epoch && n.refills >= c->refills_mark;
        uint64_t a = same_epoch ? wasp_alloc_window_bytes(c->used_mark, c->size_mark,
                                                          c->refills_mark, n.top - n.start,
                                                          n.refills, n.desired)
                                : 0;
        uint64_t out = outside > c->outside_mark ? outside - c->outside_mark : 0;
        if (!same_epoch && n.allocated > c->allocated_mark + out)
            a = n.allocated - c->allocated_mark - out;
        if (!c->covered) {
            c->uncovered += a;
            a = 0;
        } else {
            a += c->uncovered;
            c->uncovered = 0;
        }
        double f = wasp_alloc_cover_factor(a, c->covered);
        for (uint32_t i = 0; f > 1.0 && i < c->ncaught; i++)
            add(arg, c->rec[i], c->weight[i], c->bytes[i], f);
        if (a && c->covered) {
            *allocated = a;
            *covered = c->covered < a ? c->covered : a;
        }
    }
    c->ncaught = 0;
    c->covered = 0;
    c->open = known;
    if (known) {
        c->used_mark = n.top - n.start;
        c->size_mark = n.end - n.start;
        c->refills_mark = n.refills;
        c->allocated_mark = n.allocated;
        c->outside_mark = outside;
        c->epoch_mark = epoch;
    }
}
