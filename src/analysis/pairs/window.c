/*
 * Windows of the pair analyses (see window.h).
 *
 * ASYNC-SIGNAL-SAFE: runs in the handlers of the thread it is given; no
 * allocation, no locks.
 */
#include "analysis/pairs/window.h"

#include <stddef.h>
#include <string.h>

#include "watch/kit.h"

static wasp_window *window_of(wasp_windows *ws, uint32_t tag)
{
    return tag >= 1 && tag <= WASP_WINDOWS && ws->w[tag - 1].members ? &ws->w[tag - 1] : NULL;
}

uint32_t wasp_window_open(wasp_thread *t, wasp_windows *ws, int i, int hold)
{
    for (uint32_t k = 0; k < WASP_WINDOWS; k++) {
        wasp_window *w = &ws->w[k];
        if (w->members)
            continue;
        memset(w, 0, offsetof(wasp_window, waste));
        w->lost_bytes = w->lost_approx = 0;
        w->members = w->reached = 1;
        w->reach_left = WASP_WINDOW_REACH;
        w->hold = hold;
        w->page = wasp_watch_page_of(t->slots[i].addr);
        /* The sample's weight is the window's from now on; what the
         * reservoir adds to its slot later comes in when it is judged. */
        w->weight = t->reservoir[i].weight;
        t->reservoir[i].weight = 0;
        t->slots[i].tag = t->slots[hold].tag = k + 1;
        return k + 1;
    }
    return 0;
}

uint32_t wasp_window_reaching(const wasp_windows *ws, uint64_t page)
{
    for (uint32_t k = 0; k < WASP_WINDOWS; k++)
        if (ws->w[k].members && ws->w[k].reach_left && ws->w[k].page == page)
            return k + 1;
    return 0;
}

int wasp_window_reach(wasp_windows *ws, uint32_t tag)
{
    wasp_window *w = window_of(ws, tag);
    if (!w || !w->reach_left)
        return -1;
    w->reached++;
    if (--w->reach_left)
        return -1;
    int hold = w->hold;
    w->hold = -1;
    return hold;
}

void wasp_window_add(wasp_windows *ws, uint32_t tag)
{
    wasp_window *w = window_of(ws, tag);
    if (w)
        w->members++;
}

void wasp_window_judged(wasp_windows *ws, uint32_t tag, double weight, uint32_t bytes, int waste,
                        int approx, uint32_t watch_ctx, uint32_t trap_ctx)
{
    wasp_window *w = window_of(ws, tag);
    if (!w)
        return;
    w->weight += weight;
    w->judged++;
    w->bytes += bytes;
    if (!waste)
        return;
    /* A window's members are mostly a few instructions in one context: one
     * entry per pair of contexts, so the table keeps the pairs. */
    for (uint32_t k = w->nwaste; k-- > 0;) {
        wasp_window_pair *p = &w->waste[k];
        if (p->watch_ctx == watch_ctx && p->trap_ctx == trap_ctx && p->approx == (approx != 0)) {
            p->bytes += bytes;
            p->members++;
            return;
        }
    }
    if (w->nwaste < WASP_WINDOW_WASTE)
        w->waste[w->nwaste++] = (wasp_window_pair){watch_ctx, trap_ctx, bytes, 1,
                                                   (uint8_t)(approx != 0)};
    else if (approx)
        w->lost_approx += bytes;
    else
        w->lost_bytes += bytes;
}

/* Members of window tag still watched on t, and its hold. */
static int watched(const wasp_thread *t, int id, uint32_t tag)
{
    int n = 0;
    for (int i = 0; i < t->nslots + t->nwindow; i++)
        n += t->slots[i].tag == tag && t->slots[i].state != WASP_SLOT_FREE &&
             t->reservoir[i].in_use && t->reservoir[i].analysis == id;
    return n;
}

/* Each member judged stands for weight / accesses reached of the sample. */
static void credit(wasp_thread *t, int id, wasp_window *w)
{
    double each = w->weight / (double)w->reached;
    double wasted = w->lost_bytes, approx = w->lost_approx; /* whole bytes: exact sums */
    for (uint32_t k = 0; k < w->nwaste; k++) {
        const wasp_window_pair *p = &w->waste[k];
        *(p->approx ? &approx : &wasted) += p->bytes;
        wasp_records_pair(&t->rec, (wasp_analysis)id, p->approx ? WASP_PAIR_APPROX : 0,
                          p->watch_ctx, p->trap_ctx, each * (double)p->bytes,
                          each * (double)p->members);
    }
    /* One product per sum: the wasted bytes never round past the total. */
    wasp_totals *tot = &t->rec.totals[id];
    tot->bytes += each * w->bytes;
    tot->pairs += each * (double)w->judged;
    tot->wasted += each * wasted;
    tot->wasted_approx += each * approx;
    w->members = 0;
}

void wasp_window_settle_one(wasp_thread *t, wasp_windows *ws, int id, uint32_t tag)
{
    wasp_window *w = window_of(ws, tag);
    if (w && !watched(t, id, tag))
        credit(t, id, w);
}

void wasp_window_settle(wasp_thread *t, wasp_windows *ws, int id, int all)
{
    for (uint32_t k = 0; k < WASP_WINDOWS; k++)
        if (ws->w[k].members && (all || !watched(t, id, k + 1)))
            credit(t, id, &ws->w[k]);
}
