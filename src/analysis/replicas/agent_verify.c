/*
 * Verification of replica findings (OJXPerf's α; see verify.h).
 *
 * Short-lived objects are gone by the end of a run, so allocation tracking's
 * keeper calls the verification every VERIFY_MS while their objects are
 * alive, each consecutive pair once, and the tallies add up.
 *
 * Not async-signal-safe: the keeper thread and the agent's stop.
 */
#include "analysis/replicas/verify.h"

#include <pthread.h>
#include <string.h>

#include "agent/alloc.h"
#include "agent/log.h"
#include "analysis/replicas/comparisons.h"
#include "watch/reservoir.h" /* wasp_rng_next */

enum { VERIFY_MS = 5, VERIFY_OBJECTS = 201, VERIFY_WORDS = 16, MAX_CHECKS = 100 };

typedef struct tally {
    uint32_t site1; /* site + 1; 0 = unused */
    double pairs, identical;
    double words_equal_differ, words_differ; /* alpha = equal / all, over differing pairs */
    double words_equal;                      /* all sampled words that were equal */
} tally;

/* The keeper's rounds and the last one at stop: one at a time. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tally tallies[MAX_CHECKS];
static wasp_replica_check checks[MAX_CHECKS];
static uint32_t nchecks;
static uint64_t verify_rng = 0x9e3779b97f4a7c15ull;
static uint32_t verify_top;
static const uint32_t *verify_counts; /* comparisons per site, ranking the sites verified */

const wasp_replica_check *wasp_replica_verify_checks(uint32_t *n)
{
    *n = nchecks;
    return checks;
}

/* Compare two primitive arrays of the same length whole and at sampled words. */
static void compare_arrays(JNIEnv *env, jarray a, jarray b, size_t bytes, tally *t)
{
    uint8_t *pa = (*env)->GetPrimitiveArrayCritical(env, a, NULL);
    uint8_t *pb = pa ? (*env)->GetPrimitiveArrayCritical(env, b, NULL) : NULL;
    if (pa && pb) {
        int same = memcmp(pa, pb, bytes) == 0;
        t->pairs += 1;
        t->identical += same;
        size_t words = bytes / 8;
        for (int k = 0; k < VERIFY_WORDS && words; k++) {
            size_t w = (size_t)(wasp_rng_next(&verify_rng) % words);
            int eq = memcmp(pa + 8 * w, pb + 8 * w, 8) == 0;
            t->words_equal += eq;
            if (!same) {
                t->words_differ += 1;
                t->words_equal_differ += eq;
            }
        }
    }
    if (pb)
        (*env)->ReleasePrimitiveArrayCritical(env, b, pb, JNI_ABORT);
    if (pa)
        (*env)->ReleasePrimitiveArrayCritical(env, a, pa, JNI_ABORT);
}

/* Bytes per element of a primitive array class, 0 for anything else. */
static uint32_t element_size(const char *cls)
{
    static const struct {
        const char *name;
        uint32_t size;
    } prims[] = {{"boolean[]", 1}, {"byte[]", 1}, {"char[]", 2},  {"short[]", 2},
                 {"int[]", 4},     {"float[]", 4}, {"long[]", 8}, {"double[]", 8}};
    for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++)
        if (strcmp(cls, prims[i].name) == 0)
            return prims[i].size;
    return 0;
}

/* One walk over a site's objects (verify_site). */
struct walk {
    JNIEnv *env;
    tally *t;
    uint32_t elem;
    jobject prev;
    wasp_alloc_object *prev_entry;
    jsize prev_len;
    size_t seen;
};

static int visit(wasp_alloc_object *o, void *arg)
{
    struct walk *w = arg;
    JNIEnv *env = w->env;
    jobject obj = (*env)->NewLocalRef(env, o->ref);
    if (!obj)
        return 0;
    w->seen++;
    jsize len = (*env)->GetArrayLength(env, (jarray)obj);
    if (w->prev && len == w->prev_len)
        compare_arrays(env, (jarray)w->prev, (jarray)obj, (size_t)len * w->elem, w->t);
    if (w->prev_entry)
        w->prev_entry->mark = 1; /* compared with its predecessor */
    if (w->prev)
        (*env)->DeleteLocalRef(env, w->prev);
    w->prev = obj;
    w->prev_len = len;
    w->prev_entry = o;
    /* older pairs were compared in an earlier round */
    return o->mark || w->seen >= VERIFY_OBJECTS;
}

/* Consecutive live objects of the site, newest first (the order the program
 * made, and most often used, them). Each pair is compared once: a newer object
 * is marked once compared with its predecessor, and the walk stops at an
 * object compared in an earlier round. */
static void verify_site(JNIEnv *env, uint32_t site, tally *t)
{
    wasp_alloc_site s;
    struct walk w = {.env = env, .t = t, .prev_len = -1};
    if (wasp_alloc_site_get(site, &s) != 0 || !(w.elem = element_size(s.class_name)))
        return;
    wasp_alloc_each_object(site, visit, &w);
    if (w.prev)
        (*env)->DeleteLocalRef(env, w.prev);
}

static tally *tally_for(uint32_t site)
{
    for (uint32_t i = 0; i < MAX_CHECKS; i++)
        if (tallies[i].site1 == site + 1 || tallies[i].site1 == 0) {
            tallies[i].site1 = site + 1;
            return &tallies[i];
        }
    return NULL;
}

/* One round: the `top` sites with the most comparisons so far. Call with
 * lock held. */
static void verify_round(JNIEnv *env, uint32_t top, const uint32_t *counts)
{
    uint32_t done[MAX_CHECKS], nsites = wasp_alloc_site_count();
    for (uint32_t k = 0; k < top && k < MAX_CHECKS; k++) {
        uint32_t best = UINT32_MAX, best_count = 0;
        for (uint32_t s = 0; s < WASP_MAX_SITES_COUNTED && s < nsites; s++) {
            if (counts[s] <= best_count)
                continue;
            int taken = 0;
            for (uint32_t j = 0; j < k; j++)
                taken |= done[j] == s;
            if (!taken) {
                best = s;
                best_count = counts[s];
            }
        }
        if (best == UINT32_MAX)
            break;
        done[k] = best;
        tally *t = tally_for(best);
        if (t)
            verify_site(env, best, t);
    }
}

/* The keeper's tick. */
static void tick(JNIEnv *env)
{
    pthread_mutex_lock(&lock);
    if (verify_top && verify_counts)
        verify_round(env, verify_top, verify_counts);
    pthread_mutex_unlock(&lock);
}

void wasp_replica_verify_start(uint32_t top, const uint32_t *counts)
{
    pthread_mutex_lock(&lock);
    verify_counts = counts;
    verify_top = counts ? top : 0;
    pthread_mutex_unlock(&lock);
    wasp_alloc_on_tick(verify_top ? tick : NULL, VERIFY_MS);
}

void wasp_replica_verify_stop(JNIEnv *env)
{
    wasp_alloc_on_tick(NULL, 0);
    pthread_mutex_lock(&lock);
    nchecks = 0;
    if (verify_top && verify_counts && env) {
        verify_round(env, verify_top, verify_counts);
        for (uint32_t i = 0; i < MAX_CHECKS && tallies[i].site1; i++) {
            const tally *t = &tallies[i];
            checks[nchecks++] = (wasp_replica_check){
                .site = t->site1 - 1,
                .pairs = t->pairs,
                .identical = t->identical,
                .alpha = t->words_differ > 0 ? t->words_equal_differ / t->words_differ : 0,
                .false_positive =
                    t->words_equal > 0 ? t->words_equal_differ / t->words_equal : 0,
            };
        }
        wasp_log("verified %u replica sites by whole-object comparison", (unsigned)nchecks);
    }
    pthread_mutex_unlock(&lock);
}
