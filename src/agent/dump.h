/*
 * Writing the profile at the end of a run (dump.c). Not for signal handlers.
 */
#ifndef WASP_DUMP_H
#define WASP_DUMP_H

#include <time.h>

#include "agent/options.h"
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
} wasp_dump_info;

/* Fold a quiet thread's records into the profile being gathered (at thread
 * end, so its tables can be freed; and for live threads at the end). */
void wasp_dump_fold_thread(const wasp_thread *t);

/* Stop sampling, gather every thread's records and write the file. */
int wasp_dump_write(const wasp_dump_info *info);

#endif
