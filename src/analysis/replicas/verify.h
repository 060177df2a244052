/*
 * Verification of replica findings (OJXPerf's α), in the agent
 * (agent_verify.c): for the `top` sites with the most field comparisons,
 * compare consecutive live tracked objects whole, and at sampled words, to
 * measure how often a sampled field is equal although the objects differ.
 * Primitive arrays only. Runs on allocation tracking's keeper thread while
 * the program runs (short-lived objects are gone by the end) and once more
 * when the run stops. Not for signal handlers.
 */
#ifndef WASP_REPLICA_VERIFY_H
#define WASP_REPLICA_VERIFY_H

#include <jni.h>
#include <stdint.h>

#include "analysis/replicas/profile.h"

/* Verify the `top` sites by counts[site] (comparisons per site, NULL or top 0:
 * no verification) from now on, on every tick of allocation tracking's
 * keeper. */
void wasp_replica_verify_start(uint32_t top, const uint32_t *counts);
/* A last round (live phase, env non-NULL), then the keeper ticks no more. */
void wasp_replica_verify_stop(JNIEnv *env);
/* The sites verified so far, .site being the allocation site id
 * (agent/alloc.h), and their count in *n. */
const wasp_replica_check *wasp_replica_verify_checks(uint32_t *n);

#endif
