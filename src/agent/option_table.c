/*
 * The rows of the agent option table (option_table.h). Their order is the
 * order of `wasp help agent`, of the keys a message lists, of the agent
 * option string and of the wasp run/attach flags: the command's flags first,
 * then the keys only the agent string has.
 */
#include "agent/option_table.h"

#include "profile/profile.h"

#include <string.h>

#define FIELD(f) .offset = offsetof(wasp_options, f), .size = sizeof(((wasp_options *)0)->f)
#define RUN_ATTACH (WASP_OPT_IN_RUN | WASP_OPT_IN_ATTACH)
#define SIZE_LIMIT 0x7fffffffu /* object sizes and intervals: what a jint holds */

static const char *const sampler_names[] = {
    [WASP_SAMPLER_AUTO] = "auto",
    [WASP_SAMPLER_PERF] = "perf",
    [WASP_SAMPLER_PMU] = "pmu",
    [WASP_SAMPLER_TIMER] = "timer",
    NULL,
};

static const char *const watch_names[] = {
    [WASP_WATCH_AUTO] = "auto",
    [WASP_WATCH_DEBUGREG] = "debugreg",
    [WASP_WATCH_PAGE] = "page",
    NULL,
};

static const char *const context_names[] = {
    [WASP_CONTEXT_CHOICE_WALK] = "walk",
    [WASP_CONTEXT_CHOICE_CHAIN] = "chain",
    [WASP_CONTEXT_CHOICE_CHAIN_CHECK] = "chain-check",
    NULL,
};

static const char *const signal_names[] = {
    [WASP_SIGNAL_AUTO] = "auto",
    [WASP_SIGNAL_SIGTRAP] = "sigtrap",
    [WASP_SIGNAL_FASYNC] = "fasync",
    NULL,
};

static const char *const action_names[] = {
    [WASP_ACTION_START] = "start",
    [WASP_ACTION_STOP] = "stop",
    [WASP_ACTION_DUMP] = "dump",
    NULL,
};

static const wasp_option_row rows[] = {
    {
        .key = "events", .kind = WASP_OPT_EVENTS, FIELD(events),
        .def = (1u << WASP_AN_COUNT) - 1u, /* the three JXPerf analyses */
        .metavar = "LIST",
        /* help and accepted: made from the analysis list (option_value.c) */
        .flag = "events", .letter = 'e', .cli = RUN_ATTACH,
    },
    {
        .key = "file", .kind = WASP_OPT_PATH, FIELD(file), .def_text = "",
        .metavar = "FILE",
        .help = "profile file",
        .accepted = "a path of at most 4095 bytes (it cannot contain a comma)",
        .default_help = "wasp-<pid>.wprof in the working directory",
        .flag = "output", .letter = 'o',
        .flag_default_help = "wasp.wprof for run, wasp-PID.wprof for attach, in the current "
                             "directory; an existing file is overwritten",
        .cli = RUN_ATTACH | WASP_OPT_IN_DETACH | WASP_OPT_LAST,
    },
    {
        .key = "period", .kind = WASP_OPT_DURATION, FIELD(period_ns),
        .min = 10000ull, .max = 10000000000ull, .def = 0, /* the analyses' choice */
        .metavar = "DURATION",
        .help = "perf/timer sampler: thread CPU time between samples (under 100us is "
                "raised to 100us)",
        .default_help = "1ms, or the shortest the analyses that run ask for: 2ms for locks "
                        "and objects (their results are shares), 4ms for fields, 8ms for alloc when "
                        "debug registers watch (its watchpoints follow allocation between "
                        "samples)",
        .accepted = "a duration from 10us to 10s such as 500us or 2ms (units ns, us, ms, s; "
                    "a bare number is ns)",
        .flag = "period", .cli = RUN_ATTACH,
    },
    {
        .key = "period-jitter", .kind = WASP_OPT_SHARE, FIELD(period_jitter),
        .lo = 0.0, .hi = 0.9, .def_share = 0.5,
        .metavar = "X",
        .help = "each interval between two samples of a thread is drawn uniformly in "
                "(1 +- X) x the period (pmu-period for pmu), so that a program periodic in "
                "step with the sampler is not sampled at one point of its cycle; the mean "
                "stays the period",
        .accepted = "a fraction from 0 to 0.9 such as 0.5 or 50% (0: a fixed interval)",
        .flag = "period-jitter", .cli = RUN_ATTACH,
    },
    {
        .key = "sampler", .kind = WASP_OPT_CHOICE, FIELD(sampler), .names = sampler_names,
        .old_name = "soft", .old_value = WASP_SAMPLER_PERF, /* perf's name before 0.3 */
        .def = WASP_SAMPLER_AUTO,
        .metavar = "auto|perf|timer|pmu",
        .help = "address source: perf = perf task-clock + decoding, timer = POSIX "
                "CPU-time timer + decoding (no perf events needed), pmu = hardware "
                "PEBS/IBS; auto takes the first of pmu, perf, timer that proves itself "
                "at start-up",
        .accepted = "one of auto, perf, timer, pmu",
        .flag = "sampler", .cli = RUN_ATTACH,
    },
    {
        .key = "pmu-event", .kind = WASP_OPT_TOKEN, FIELD(pmu_event), .def_text = "",
        .metavar = "NAME",
        .help = "PMU sampler: the libpfm4 event sampled",
        .accepted = "a libpfm4 event name of at most 127 characters, without spaces",
        .default_help = "chosen per CPU",
        .flag = "pmu-event", .cli = RUN_ATTACH,
    },
    {
        .key = "pmu-period", .kind = WASP_OPT_NUMBER, FIELD(pmu_period),
        .min = 1, .max = 1000000000ull, .def = 20011,
        .metavar = "N",
        .help = "PMU sampler: memory events between samples",
        .accepted = "a number from 1 to 1000000000",
        .flag = "pmu-period", .cli = RUN_ATTACH,
    },
    {
        .key = "watchpoints", .kind = WASP_OPT_NUMBER, FIELD(watchpoints),
        .min = 1, .max = 4, .def = 4, /* x86-64 has four debug registers */
        .metavar = "N",
        .help = "watchpoints per thread",
        .accepted = "a number from 1 to 4",
        .flag = "watchpoints", .cli = RUN_ATTACH,
    },
    {
        .key = "watch", .kind = WASP_OPT_CHOICE, FIELD(watch), .names = watch_names,
        .def = WASP_WATCH_AUTO,
        .metavar = "auto|debugreg|page",
        .help = "watchpoint engine: debugreg = hardware debug registers, page = page "
                "protection + single-step; auto takes debugreg when a test breakpoint "
                "traps at start-up, else page",
        .accepted = "one of auto, debugreg, page",
        .flag = "watch", .cli = RUN_ATTACH,
    },
    {
        .key = "watch-budget", .kind = WASP_OPT_SHARE, FIELD(watch_budget),
        .lo = 0.0, .hi = 0.5, .def_share = -1.0, /* < 0: the engine's own */
        .metavar = "X",
        .help = "most CPU the watchpoint engine may cost, as a share of the watching "
                "thread's time (and the process's), split evenly among the analyses that "
                "watch",
        .accepted = "a fraction from 0 to 0.5 such as 0.02 or 2% (0: no limit)",
        .default_help = "2% for page, 10% for debugreg",
        .flag = "watch-budget", .cli = RUN_ATTACH,
    },
    {
        .key = "float-threshold", .kind = WASP_OPT_SHARE, FIELD(float_threshold),
        .lo = 0.0, .hi = 1.0, .hi_open = 1, .def_share = 0.01,
        .metavar = "X",
        .help = "relative difference under which floating-point values count as equal",
        .accepted = "a fraction from 0 up to (not including) 1, such as 0.01 or 1%",
        .flag = "float-threshold", .cli = RUN_ATTACH,
    },
    {
        .key = "max-frames", .kind = WASP_OPT_NUMBER, FIELD(max_frames),
        .min = 1, .max = 2048, .def = 256,
        .metavar = "N",
        .help = "deepest Java stack recorded",
        .accepted = "a number from 1 to 2048",
        .flag = "max-frames", .cli = RUN_ATTACH,
    },
    {
        .key = "context", .kind = WASP_OPT_CHOICE, FIELD(context), .names = context_names,
        .def = WASP_CONTEXT_CHOICE_WALK,
        .metavar = "walk|chain|chain-check",
        .help = "calling contexts: walk = AsyncGetCallTrace at every sample; chain = "
                "CallerChaining, a sample in compiled code is its (pc, stack depth) and its "
                "callers come from a calling-context tree built from all samples, no walk; "
                "chain-check = chain, plus a walk of a uniform sample of them (2048 per "
                "thread) to measure how often the two agree (docs/context-chain.md)",
        .accepted = "one of walk, chain, chain-check",
        .flag = "context", .cli = RUN_ATTACH,
    },
    {
        .key = "min-size", .kind = WASP_OPT_NUMBER, FIELD(min_size),
        .min = 0, .max = SIZE_LIMIT, .def = 1024,
        .metavar = "BYTES",
        .help = "objects: smallest object tracked",
        .accepted = "a size in bytes from 0 to 2147483647",
        .flag = "min-size", .cli = RUN_ATTACH,
    },
    {
        .key = "alloc-interval", .kind = WASP_OPT_NUMBER, FIELD(alloc_interval),
        .min = 0, .max = SIZE_LIMIT, .def = 256u * 1024u,
        .metavar = "BYTES",
        .help = "objects: mean bytes allocated between tracked allocations (the JVMTI "
                "heap sampling interval; tracking every one is costly)",
        .accepted = "a size in bytes from 0 to 2147483647 (0: every allocation)",
        .flag = "alloc-interval", .cli = RUN_ATTACH,
    },
    {
        .key = "alloc-rate", .kind = WASP_OPT_NUMBER, FIELD(alloc_rate),
        .min = 0, .max = 1000000, .def = 1000,
        .metavar = "N",
        .help = "objects: allocation events a second above which the interval grows, to "
                "bound their cost",
        .accepted = "a number of events per second from 0 to 1000000 (0: no cap)",
        .flag = "alloc-rate", .cli = RUN_ATTACH,
    },
    {
        .key = "verify-top", .kind = WASP_OPT_NUMBER, FIELD(verify_top),
        .min = 0, .max = 100, .def = 0,
        .metavar = "N",
        .help = "replicas: compare whole objects of the N sites with the most comparisons "
                "at the end, to measure alpha",
        .accepted = "a number from 0 to 100",
        .flag = "verify-top", .cli = RUN_ATTACH,
    },
    {
        .key = "track-existing", .kind = WASP_OPT_NUMBER, FIELD(track_existing),
        .min = 0, .max = 1, .def = 0,
        .metavar = "0|1",
        .help = "objects, replicas, at attach: also track the objects already in the heap "
                "(at least min-size bytes), under their class, as their allocation path "
                "is unknown; walks the heap once, a pause of the JVM (the log says how long)",
        .accepted = "0 or 1",
        .flag = "track-existing", .cli = WASP_OPT_IN_ATTACH | WASP_OPT_SWITCH,
    },
    {
        .key = "recompile", .kind = WASP_OPT_NUMBER, FIELD(recompile),
        .min = 0, .max = 1, .def = 0,
        .metavar = "0|1",
        .help = "at attach: have the JIT compile again the code it compiled before, so that "
                "its samples get exact lines (without it, code compiled before the attach has "
                "lines at safepoints only); the program runs slower for a few seconds while "
                "its hot methods compile again",
        .accepted = "0 or 1",
        .flag = "recompile", .cli = WASP_OPT_IN_ATTACH | WASP_OPT_SWITCH,
    },
    {
        .key = "snapshot", .kind = WASP_OPT_DURATION, FIELD(snapshot_ns),
        .min = 1000000000ull, .max = 86400000000000ull, .def = 0,
        .metavar = "DURATION",
        .help = "write the profile so far every DURATION while the program runs (atomically, "
                "over the last one), so that a JVM killed or ended without its normal exit "
                "loses at most one interval",
        .accepted = "a duration from 1s to 86400s (24h) such as 30s, 5m or 1h (units ms, s, m, "
                    "h)",
        .default_help = "none: the profile is written when the program ends",
        .flag = "snapshot", .cli = RUN_ATTACH,
    },
    {
        .key = "max-contexts", .kind = WASP_OPT_NUMBER, FIELD(max_contexts),
        .min = 1000, .max = 10000000, .def = 100000,
        .metavar = "N",
        .help = "the most calling contexts the session's profile keeps: past N (a long run "
                "with snapshots, or one whose threads' tables were folded), the lightest are "
                "merged into one entry per kind of context, keeping N/2, so that memory stays "
                "bounded; every total stays exact",
        .accepted = "a number from 1000 to 10000000",
        .flag = "max-contexts", .cli = RUN_ATTACH,
    },
    {
        .key = "threads", .kind = WASP_OPT_NUMBER, FIELD(threads),
        .min = 0, .max = 1, .def = 0,
        .metavar = "0|1",
        .help = "record each sample's thread: every calling context gets a root frame "
                "\"[thread NAME]\", NAME the thread's name with its digits folded to # (a "
                "pool's workers are one), so that wasp report --thread can keep one thread's "
                "evidence",
        .accepted = "0 or 1",
        .flag = "threads", .cli = RUN_ATTACH | WASP_OPT_SWITCH,
    },
    {
        .key = "log", .kind = WASP_OPT_PATH, FIELD(log), .def_text = "stderr",
        .metavar = "stderr|none|PATH",
        .help = "where the agent logs",
        .accepted = "stderr, none or a path of at most 4095 bytes (it cannot contain a "
                    "comma)",
    },
    {
        .key = "seed", .kind = WASP_OPT_NUMBER, FIELD(seed),
        .min = 0, .max = UINT64_MAX, .def = 0,
        .metavar = "N",
        .help = "seed of the random numbers that choose which samples are watched",
        .accepted = "a number from 0 to 18446744073709551615 (0 means time-based)",
        .default_help = "0, time-based",
    },
    {
        .key = "signal", .kind = WASP_OPT_CHOICE, FIELD(signal), .names = signal_names,
        .def = WASP_SIGNAL_AUTO,
        .metavar = "auto|sigtrap|fasync",
        .help = "how perf events signal threads: sigtrap (Linux 5.13+) or the older "
                "F_SETSIG route; auto takes sigtrap when the kernel has it",
        .accepted = "one of auto, sigtrap, fasync",
    },
    {
        .key = "action", .kind = WASP_OPT_CHOICE, FIELD(action), .names = action_names,
        .def = WASP_ACTION_START,
        .metavar = "start|stop|dump",
        .help = "what an agent loaded into a running JVM does (wasp attach, wasp "
                "detach, wasp dump): start profiling, stop and write the profile, or write "
                "the profile so far and go on",
        .accepted = "start, stop or dump (for an agent loaded into a running JVM)",
    },
};

const wasp_option_row *wasp_option_at(size_t i)
{
    return i < sizeof rows / sizeof *rows ? &rows[i] : NULL;
}

const wasp_option_row *wasp_option_find(const char *key, size_t len)
{
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        if (strlen(rows[i].key) == len && strncmp(rows[i].key, key, len) == 0)
            return &rows[i];
    return NULL;
}
