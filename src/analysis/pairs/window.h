/*
 * Windows of the pair analyses: the watches an engine's window accesses
 * started (watch/kit.h, wasp_watch_claim_window) beside a sampled watch on
 * the same page, and that sample's weight.
 *
 * All members of a window stand for the one sample, equally: each pair a
 * member classifies is held here, and when the window's last member is gone
 * (classified, dropped, or the thread ended) its pairs are credited with
 * W / n each — W the weight the sample carried, n the members ever watched.
 * Sharing the weight as members came instead let a member that waited long
 * (a dead store whose overwrite comes a sweep later) be diluted by every
 * member that joined meanwhile, while one judged at once kept a large share:
 * DeadStoreEuler's F_prog fell from 0.5 to 0.25 with 64 window slots.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP/SIGSEGV handlers of the thread whose
 * state it is given (and at its release, with its signals quiet).
 */
#ifndef WASP_PAIRS_WINDOW_H
#define WASP_PAIRS_WINDOW_H

#include <stdint.h>

#include "watch/thread_state.h"

enum { WASP_WINDOWS = 4, WASP_WINDOW_MEMBERS = 256, WASP_WINDOW_WASTE = 128 };

/* A wasteful pair a member classified, waiting for the window's weight. */
typedef struct wasp_window_pair {
    uint32_t watch_ctx, trap_ctx;
    uint16_t bytes;  /* the member's access size */
    uint8_t approx;
} wasp_window_pair;

typedef struct wasp_window {
    uint32_t members;   /* watched so far (the sample's own watch included); 0: free */
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

/* The window slot i's watch belongs to, or opens one for it (its sample's
 * weight moves into the window), when it may take another member. Returns
 * its number + 1 (the slot's tag), 0 when no window is free or it has had
 * its members. */
uint32_t wasp_window_join(wasp_thread *t, wasp_windows *ws, int i);
/* A new member in window tag (its slot's tag set by the caller), after
 * wasp_window_join said it may take one. */
void wasp_window_add(wasp_windows *ws, uint32_t tag);
/* Member in slot i was judged: weight is what its slot carried (the sample's
 * reservoir weight, or 0); waste with its pair's contexts. */
void wasp_window_judged(wasp_windows *ws, uint32_t tag, double weight, uint32_t bytes, int waste,
                        int approx, uint32_t watch_ctx, uint32_t trap_ctx);
/* Credit every window of analysis `id` none of whose members is still
 * watched (all of them: `all`) to t's records. */
void wasp_window_settle(wasp_thread *t, wasp_windows *ws, int id, int all);
/* The same for window tag alone, when its member was just judged: the
 * others' members did not change (those a drop emptied are settled at the
 * thread's next sample or its end), and each window asked about is a walk
 * over every slot. */
void wasp_window_settle_one(wasp_thread *t, wasp_windows *ws, int id, uint32_t tag);

#endif
