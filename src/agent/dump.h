/*
 * Writing the profile at the end of a run (dump.c). Not for signal handlers.
 */
#ifndef WASP_DUMP_H
#define WASP_DUMP_H

#include <time.h>

#include "agent/alloc.h"
#include "agent/options.h"
#include "profile/profile.h"
#include "watch/thread_state.h"

typedef struct wasp_dump_info {
    char path[WASP_PATH_MAX];
    char events[128];
    char sampler[16];
    char sampler_detail[256];
    char period[64];
    char sampler_passed_over[1024]; /* samplers tried before and why they failed */
    char watch_passed_over[1024];   /* watchpoint engines likewise */
    uint64_t period_ns;
    double watch_budget;
    char disabled_reason[512]; /* why nothing was profiled, "" when it was */
    time_t start_time;
    double min_size, alloc_interval; /* objects analysis settings */
    uint32_t max_contexts;           /* the session's bound (max-contexts) */
} wasp_dump_info;

/* The profile being gathered, for the analyses' agent parts (agent_part.h). */
typedef struct wasp_dump wasp_dump;

wasp_profile *wasp_dump_profile(wasp_dump *d);
const wasp_dump_info *wasp_dump_settings(wasp_dump *d); /* NULL while folding threads */
/* A context of r (a records context id) as a profile context id. */
uint32_t wasp_dump_context(wasp_dump *d, const wasp_records *r, uint32_t id);
/* An allocation site (the id handlers record) as a profile site, UINT32_MAX
 * when unknown. */
uint32_t wasp_dump_site(wasp_dump *d, uint32_t alloc_site);
/* Every entry of analysis id's site table in r, with its site and access
 * context as profile ids, through add (its sums: e); when keep is given,
 * only the entries it keeps (it sees the records' own entry, ids
 * unconverted). */
void wasp_dump_site_table(wasp_dump *d, const wasp_records *r, int id,
                          void (*add)(wasp_profile *p, uint32_t site, uint32_t ctx,
                                      const wasp_rsite *e),
                          int (*keep)(wasp_dump *d, const wasp_records *r, const wasp_rsite *e));
/* An allocation site already in hand as a profile site, for visitors of
 * wasp_alloc_each_site (its lock is held: wasp_dump_site would wait on it). */
uint32_t wasp_dump_alloc_site(wasp_dump *d, const wasp_alloc_site *s);
/* Its allocation context only (a profile context), the same way. */
uint32_t wasp_dump_alloc_context(wasp_dump *d, const wasp_alloc_site *s);

/* Fold a quiet thread's records into the profile being gathered (at thread
 * end, so its tables can be freed; and for live threads at the end). */
void wasp_dump_fold_thread(const wasp_thread *t);
/* threads=1: from now on a folded thread's contexts carry its thread as a
 * root frame (profile/thread_frame.h). Set before any thread folds. */
void wasp_dump_record_threads(int on);

/* What a write is. A snapshot writes the session so far while it runs on; the
 * final write ends the session. */
typedef struct wasp_dump_how {
    int final;          /* the session's end (else a snapshot) */
    const char *ended;  /* final: how the session ended ("exit", "detach", ...) */
    const char *path;   /* where to, when not the session's file (wasp dump -o) */
    int quiet;          /* a snapshot the log does not mention (periodic ones) */
    int fold_only;      /* a snapshot kept in memory, not written: the tables filled */
} wasp_dump_how;

/* Gather what was folded since the last write (the threads folded first:
 * stopped at the end, or wasp_threads_fold_live for a snapshot), join it to
 * the session's earlier snapshots and write the file. extra, when not NULL,
 * adds run-wide data the analyses share (tracked objects: what changed since
 * the last write). Writes are serialised by the caller. */
int wasp_dump_write(const wasp_dump_info *info, void (*extra)(wasp_dump *d),
                    const wasp_dump_how *how);

#endif
