/*
 * Objects already in the heap when wasp attaches (`track-existing=1`).
 *
 * Allocation events only show objects allocated after the agent started, so
 * after `wasp attach` the long-lived data a server built at startup — often
 * what its accesses go to — would count as unattributed. The census walks
 * the heap once and tracks every object of at least min-size bytes under a
 * site made of its class alone (its allocation path is unknowable now).
 *
 * Not for signal handlers. Live phase, after allocation tracking started.
 */
#ifndef WASP_CENSUS_H
#define WASP_CENSUS_H

#include <jvmti.h>
#include <stdint.h>

/* At most this many existing objects are tracked (the biggest first is not
 * guaranteed: the heap is walked in address order). */
enum { WASP_CENSUS_MAX_OBJECTS = 200000 };

/* Walks the heap (a pause of the JVM: it is a safepoint operation) and tracks
 * what it finds. Returns the number of objects tracked, or -1 with why[] set. */
long wasp_census_run(jvmtiEnv *jvmti, JNIEnv *env, char *why, size_t len);

#endif
