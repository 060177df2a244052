/*
 * Windows of the pair analyses: a sample's watch on a page the engine keeps
 * closed, and the watches started on the accesses the engine then saw there
 * (watch/kit.h, wasp_watch_claim_window), all standing for the one sample.
 *
 * A window has a fixed reach: the sample's access and the next
 * WASP_WINDOW_REACH accesses of the analysis's kind the thread makes to that
 * page, whatever instruction makes them and whether or not they judge a
 * member (a store that overwrites a member is judged against it, and then
 * joins). A hold (a watch on no bytes, wasp_watch_claim_hold) keeps the page
 * closed until the reach is spent, whatever the members do. Each access
 * reached is watched when a window slot is free; when the window's last
 * member is gone (classified, dropped, or the thread ended) and its hold
 * too, every classified member is credited with W / n — W the weight the
 * sample carried, n the accesses reached, watched or not.
 *
 * Why fixed: a window that lived as long as its members did reached as far
 * as their outcomes let it. On DeadStoreEuler (F_prog 0.5 by construction)
 * one opened by a live store closed when the next sweep had read its
 * members, before the dead stores came round; one opened by a dead store
 * took in the overwriting sweep's stores: 0.22-0.34. Sharing the weight as
 * members came instead diluted a member that waited long (a dead store's
 * overwrite comes a sweep later) by every member that joined meanwhile: 0.25.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP/SIGSEGV handlers of the thread whose
 * state it is given (and at its release, with its signals quiet).
 */
#ifndef WASP_PAIRS_WINDOW_H
#define WASP_PAIRS_WINDOW_H

#include <stdint.h>

#include "watch/thread_state.h"

/* WASP_WINDOW_REACH: accesses a window reaches past its sample's. */
enum { WASP_WINDOWS = 4, WASP_WINDOW_REACH = 256, WASP_WINDOW_WASTE = 128 };

/* The wasteful pairs members classified with one pair of contexts, waiting
 * for the window's weight. */
typedef struct wasp_window_pair {
    uint32_t watch_ctx, trap_ctx;
    uint32_t bytes;   /* the members' access sizes, summed */
    uint16_t members; /* how many */
    uint8_t approx;
} wasp_window_pair;

typedef struct wasp_window {
    uint32_t members;   /* watched so far (the sample's own watch included); 0: free */
    uint32_t reached;   /* accesses reached, the sample's included, watched or not */
    uint32_t reach_left; /* accesses it reaches yet; 0: it has reached its last */
    int hold;           /* the slot keeping its page closed, -1: none */
    uint64_t page;
    double weight;      /* the sample's weight, as it came in */
    uint32_t judged;    /* members classified */
    double bytes;       /* their access sizes, summed */
    uint32_t nwaste;
    wasp_window_pair waste[WASP_WINDOW_WASTE];
    double lost_bytes, lost_approx; /* wasteful bytes past the table: in F, not in a pair */
} wasp_window;

/* One pair analysis's windows on one thread (its handler part's state). */
typedef struct wasp_windows {
    wasp_window w[WASP_WINDOWS];
} wasp_windows;

/* Opens a window for the sample watched in slot i (its weight moves into
 * the window), held open by slot `hold` (wasp_watch_claim_hold); both slots
 * get its tag. Returns its number + 1 (the tag), 0 when no window is free. */
uint32_t wasp_window_open(wasp_thread *t, wasp_windows *ws, int i, int hold);
/* The window reaching page, if any: its tag, or 0. */
uint32_t wasp_window_reaching(const wasp_windows *ws, uint64_t page);
/* One more access reached by window tag. Returns the slot of its hold when
 * that was the last the window reaches (the caller ends the hold), else -1. */
int wasp_window_reach(wasp_windows *ws, uint32_t tag);
/* A new member in window tag (its slot's tag set by the caller). */
void wasp_window_add(wasp_windows *ws, uint32_t tag);
/* Member in slot i was judged: weight is what its slot carried (the sample's
 * reservoir weight, or 0); waste with its pair's contexts. */
void wasp_window_judged(wasp_windows *ws, uint32_t tag, double weight, uint32_t bytes, int waste,
                        int approx, uint32_t watch_ctx, uint32_t trap_ctx);
/* Credit every window of analysis `id` none of whose members (nor its
 * hold) is still watched (all of them: `all`) to t's records. */
void wasp_window_settle(wasp_thread *t, wasp_windows *ws, int id, int all);
/* The same for window tag alone, when its member was just judged: the
 * others' members did not change (those a drop emptied are settled at the
 * thread's next sample or its end), and each window asked about is a walk
 * over every slot. */
void wasp_window_settle_one(wasp_thread *t, wasp_windows *ws, int id, uint32_t tag);

#endif
