/*
 * Agent options: the string after "-agentpath:libwasp.so=", key=value items
 * separated by commas. The wasp command builds this string; people who wire
 * the agent up themselves write it.
 *
 * The keys, what they set, their values, defaults and help are the rows of
 * agent/option_table.c (`wasp help agent` prints them); this header is the
 * struct they fill and the functions callers use.
 *
 * Parsing never exits: errors come back as a one-line message naming the
 * option and the accepted values.
 */
#ifndef WASP_OPTIONS_H
#define WASP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

typedef enum wasp_sampler_choice {
    WASP_SAMPLER_AUTO = 0,
    WASP_SAMPLER_PERF = 1,
    WASP_SAMPLER_PMU = 2,
    WASP_SAMPLER_TIMER = 3
} wasp_sampler_choice;

typedef enum wasp_watch_choice {
    WASP_WATCH_AUTO = 0,
    WASP_WATCH_DEBUGREG = 1,
    WASP_WATCH_PAGE = 2
} wasp_watch_choice;

/* events bits are analysis ids (catalog/list.h); these name the
 * object-level ones for callers that need them. */
#include "catalog/ids.h"
enum { WASP_EVENT_OBJECTS = WASP_ID_objects, WASP_EVENT_REPLICAS = WASP_ID_replicas,
       WASP_EVENT_COUNT = WASP_ANALYSES };

/* What an agent loaded into a running JVM does: start a session, end it
 * (wasp detach), or write the profile so far and go on (wasp dump). */
typedef enum wasp_action {
    WASP_ACTION_START = 0,
    WASP_ACTION_STOP = 1,
    WASP_ACTION_DUMP = 2
} wasp_action;

/* How calling contexts are taken (watch/caller_chain.h). */
typedef enum wasp_context_choice {
    WASP_CONTEXT_CHOICE_WALK = 0,       /* AsyncGetCallTrace at every sample */
    WASP_CONTEXT_CHOICE_CHAIN = 1,      /* CallerChaining: (pc, depth), no walk */
    WASP_CONTEXT_CHOICE_CHAIN_CHECK = 2 /* chain, and a walk beside it to compare */
} wasp_context_choice;

typedef enum wasp_signal_choice {
    WASP_SIGNAL_AUTO = 0,
    WASP_SIGNAL_SIGTRAP = 1,
    WASP_SIGNAL_FASYNC = 2
} wasp_signal_choice;

enum { WASP_PATH_MAX = 4096, WASP_NAME_MAX = 128 };

/* The CPU-time sampling period when neither the options nor the analyses
 * (watch/handler_part.h period_ns) name one. */
#define WASP_PERIOD_DEFAULT_NS 1000000ull

typedef struct wasp_options {
    uint32_t events;           /* bit (1u << wasp_analysis) per analysis, WASP_EVENT_OBJECTS */
    char file[WASP_PATH_MAX];  /* "" means the default name */
    wasp_sampler_choice sampler;
    uint64_t period_ns;        /* 0: the analyses' choice (agent.c), else WASP_PERIOD_DEFAULT_NS */
    double period_jitter;      /* intervals uniform in (1 +- this) x the period (sample/jitter.h) */
    uint64_t pmu_period;
    char pmu_event[WASP_NAME_MAX]; /* "" means chosen per CPU */
    uint32_t watchpoints;
    wasp_watch_choice watch;
    double watch_budget;       /* < 0: the engine's default_budget */
    double float_threshold;
    uint32_t max_frames;
    wasp_context_choice context;
    char log[WASP_PATH_MAX]; /* "stderr", "none" or a path */
    uint64_t seed;           /* 0 means time-based */
    wasp_signal_choice signal;
    wasp_action action;
    uint32_t min_size;
    uint32_t alloc_interval;
    uint32_t alloc_rate;
    uint32_t verify_top;
    int track_existing;
    int recompile;           /* attach: compiled code compiled again with exact lines */
    uint64_t snapshot_ns;    /* 0: no periodic snapshots */
    uint32_t max_contexts;   /* the session's profile prunes its lightest contexts past this */
    int threads;             /* contexts carry their thread (profile/thread_frame.h) */
} wasp_options;

void wasp_options_defaults(wasp_options *o);

/* Parse an agent option string (NULL or "" gives the defaults) into o.
 * Returns 0, or -1 with a message in err such as
 * "wasp: bad option 'watchpoints=9': expected a number from 1 to 4". */
int wasp_options_parse(const char *s, wasp_options *o, char *err, size_t errlen);

/* Parse one event list "deadstore,silentstore" or "deadstore+silentstore"
 * (either separator) into a bitmask. Returns 0 or -1 with err set. */
int wasp_options_parse_events(const char *list, uint32_t *events, char *err, size_t errlen);

/* Parse "500us", "2ms", "100000ns", "1s"; a bare number means ns.
 * Returns 0 or -1. */
int wasp_options_parse_duration(const char *s, uint64_t *ns);

/* Render o back as an agent option string (only non-default values need to
 * appear, but everything that is set must round-trip through parse).
 * Returns the length, or -1 if buf is too small. */
int wasp_options_format(const wasp_options *o, char *buf, size_t buflen);

#endif
