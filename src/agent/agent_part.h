/*
 * An analysis's part in the agent: its set-up, what it does when the run
 * stops, and what it adds to the profile — each thread's records and its
 * run-wide data. agent.c and dump.c call the parts of the enabled analyses and
 * name none of them. Registry: agent/agent_parts.c, from catalog/list.h.
 *
 * Not async-signal-safe: JVMTI callbacks and the dump only.
 */
#ifndef WASP_AGENT_PART_H
#define WASP_AGENT_PART_H

#include <jvmti.h>
#include <stddef.h>

#include "agent/dump.h"
#include "agent/options.h"
#include "watch/thread_state.h"

typedef struct wasp_agent_part {
    /* Set-up once the mechanisms it needs are there (handler_part.h needs),
     * before sampling starts: 0, or -1 with why[] set (the analysis is off). */
    int (*setup)(const wasp_options *o, char *why, size_t len);
    /* Sampling has stopped; the profile is written next. env may be NULL. */
    void (*stop)(jvmtiEnv *jvmti, JNIEnv *env, const wasp_options *o);
    /* A quiet thread's records of analysis id into the profile. */
    void (*fold_thread)(wasp_dump *d, const wasp_thread *t, int id);
    /* Its run-wide data and metadata, once, before the file is written. */
    void (*finish)(wasp_dump *d, int id);
} wasp_agent_part;

/* The agent part of analysis id; NULL when out of range. */
const wasp_agent_part *wasp_agent_part_of(int id);

#endif
