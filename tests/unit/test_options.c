/* Agent option string: defaults, every key, every error, format round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/options.h"
#include "profile/profile.h"

#define DEFAULT_EVENTS \
    ((1u << WASP_AN_DEADSTORE) | (1u << WASP_AN_SILENTSTORE) | (1u << WASP_AN_SILENTLOAD))
#define ALL ((1u << WASP_ANALYSES) - 1) /* every analysis of catalog/list.h */

static wasp_options parse_ok(const char *s)
{
    wasp_options o;
    char err[512] = "";
    int rc = wasp_options_parse(s, &o, err, sizeof err);
    if (rc != 0)
        fail_msg("parse('%s') failed: %s", s, err);
    return o;
}

/* Parse must fail with a one-line message containing every given substring. */
static void parse_fails(const char *s, ...)
{
    wasp_options o;
    char err[1024] = "";
    if (wasp_options_parse(s, &o, err, sizeof err) == 0)
        fail_msg("parse('%.80s') succeeded, expected an error", s);
    if (strncmp(err, "wasp: ", 6) != 0 || strchr(err, '\n'))
        fail_msg("parse('%.80s'): not a one-line 'wasp: ' message: %s", s, err);
    va_list ap;
    va_start(ap, s);
    for (const char *sub; (sub = va_arg(ap, const char *)) != NULL;)
        if (!strstr(err, sub))
            fail_msg("parse('%.80s'): message lacks '%s': %s", s, sub, err);
    va_end(ap);
}

static void test_defaults(void **state)
{
    (void)state;
    wasp_options o;
    memset(&o, 0xab, sizeof o);
    wasp_options_defaults(&o);
    assert_int_equal(o.events, DEFAULT_EVENTS);
    assert_int_equal(o.min_size, 1024);
    assert_int_equal(o.alloc_interval, 256 * 1024);
    assert_int_equal(o.alloc_rate, 1000);
    assert_int_equal(o.track_existing, 0);
    assert_int_equal(o.action, WASP_ACTION_START);
    assert_string_equal(o.file, "");
    assert_int_equal(o.sampler, WASP_SAMPLER_AUTO);
    assert_int_equal(o.period_ns, 0); /* the analyses' choice: agent.c */
    assert_int_equal(o.pmu_period, 20011);
    assert_string_equal(o.pmu_event, "");
    assert_int_equal(o.watchpoints, 4);
    assert_true(o.float_threshold == 0.01);
    assert_int_equal(o.max_frames, 256);
    assert_string_equal(o.log, "stderr");
    assert_int_equal(o.seed, 0);
}

static void test_empty_string_gives_defaults(void **state)
{
    (void)state;
    wasp_options d, o;
    char err[256];
    wasp_options_defaults(&d);
    memset(&o, 0x5a, sizeof o);
    assert_int_equal(wasp_options_parse(NULL, &o, err, sizeof err), 0);
    assert_memory_equal(&o, &d, sizeof o);
    memset(&o, 0x5a, sizeof o);
    assert_int_equal(wasp_options_parse("", &o, err, sizeof err), 0);
    assert_memory_equal(&o, &d, sizeof o);
}

static void test_analysis_bits(void **state)
{
    (void)state;
    assert_int_equal(parse_ok("events=deadstore").events, 1u << 0);
    assert_int_equal(parse_ok("events=silentstore").events, 1u << 1);
    assert_int_equal(parse_ok("events=silentload").events, 1u << 2);
    assert_int_equal(parse_ok("events=deadstore+silentload").events, 5u);
    assert_int_equal(parse_ok("events=silentstore:silentload").events, 6u);
    assert_int_equal(parse_ok("events=silentload+deadstore:silentstore").events, DEFAULT_EVENTS);
    assert_int_equal(parse_ok("events=objects").events, 1u << WASP_EVENT_OBJECTS);
    assert_int_equal(parse_ok("events=deadstore+objects").events, 1u | 1u << WASP_EVENT_OBJECTS);
    assert_int_equal(parse_ok("events=all").events, ALL);
    assert_int_equal(parse_ok("events=deadstore+all").events, ALL);
    assert_int_equal(parse_ok("events=deadstore+deadstore").events, 1u);
}

static void test_every_option(void **state)
{
    (void)state;
    wasp_options o = parse_ok("events=deadstore,file=/tmp/x=y.wprof,sampler=soft,period=500us,"
                              "pmu-period=1000,pmu-event=MEM_UOPS_RETIRED:ALL_STORES,"
                              "watchpoints=2,float-threshold=0.05,max-frames=64,log=none,seed=42");
    assert_int_equal(o.events, 1u);
    assert_string_equal(o.file, "/tmp/x=y.wprof"); /* '=' in a value is fine */
    assert_int_equal(o.sampler, WASP_SAMPLER_PERF);
    assert_int_equal(o.period_ns, 500000);
    assert_int_equal(o.pmu_period, 1000);
    assert_string_equal(o.pmu_event, "MEM_UOPS_RETIRED:ALL_STORES");
    assert_int_equal(o.watchpoints, 2);
    assert_true(o.float_threshold == 0.05);
    assert_int_equal(o.max_frames, 64);
    assert_string_equal(o.log, "none");
    assert_int_equal(o.seed, 42);
}

static void test_option_edges(void **state)
{
    (void)state;
    assert_int_equal(parse_ok("sampler=auto").sampler, WASP_SAMPLER_AUTO);
    assert_int_equal(parse_ok("sampler=pmu").sampler, WASP_SAMPLER_PMU);
    assert_int_equal(parse_ok("sampler=perf").sampler, WASP_SAMPLER_PERF);
    assert_int_equal(parse_ok("sampler=timer").sampler, WASP_SAMPLER_TIMER);
    assert_int_equal(parse_ok("watch=page").watch, WASP_WATCH_PAGE);
    assert_int_equal(parse_ok("watch=debugreg").watch, WASP_WATCH_DEBUGREG);
    assert_true(parse_ok("watch-budget=5%").watch_budget == 0.05);
    assert_true(parse_ok("watch-budget=0").watch_budget == 0.0);
    assert_int_equal(parse_ok("period=10us").period_ns, 10000);
    assert_int_equal(parse_ok("period=10s").period_ns, 10000000000ull);
    assert_int_equal(parse_ok("period=10000").period_ns, 10000); /* bare = ns */
    assert_int_equal(parse_ok("period=2ms").period_ns, 2000000);
    assert_int_equal(parse_ok("pmu-period=1").pmu_period, 1);
    assert_int_equal(parse_ok("pmu-period=1000000000").pmu_period, 1000000000);
    for (unsigned w = 1; w <= 4; w++) {
        char s[32];
        snprintf(s, sizeof s, "watchpoints=%u", w);
        assert_int_equal(parse_ok(s).watchpoints, w);
    }
    assert_int_equal(parse_ok("watchpoints=004").watchpoints, 4);
    assert_true(parse_ok("float-threshold=0").float_threshold == 0.0);
    assert_true(parse_ok("float-threshold=1%").float_threshold == 0.01);
    assert_true(parse_ok("float-threshold=0%").float_threshold == 0.0);
    assert_true(parse_ok("float-threshold=1e-3").float_threshold == 1e-3);
    assert_true(parse_ok("float-threshold=.5").float_threshold == 0.5);
    assert_true(parse_ok("float-threshold=0.999").float_threshold == 0.999);
    assert_true(parse_ok("float-threshold=99.9%").float_threshold < 1.0);
    assert_int_equal(parse_ok("max-frames=1").max_frames, 1);
    assert_int_equal(parse_ok("max-frames=2048").max_frames, 2048);
    assert_string_equal(parse_ok("log=stderr").log, "stderr");
    assert_string_equal(parse_ok("log=/var/log/wasp.log").log, "/var/log/wasp.log");
    assert_int_equal(parse_ok("seed=0").seed, 0);
    assert_int_equal(parse_ok("seed=18446744073709551615").seed, UINT64_MAX);
    assert_string_equal(parse_ok("file=relative/out.wprof").file, "relative/out.wprof");
}

static void test_last_duplicate_wins(void **state)
{
    (void)state;
    wasp_options o = parse_ok("watchpoints=1,watchpoints=3,events=deadstore,events=silentload");
    assert_int_equal(o.watchpoints, 3);
    assert_int_equal(o.events, 1u << WASP_AN_SILENTLOAD);
}

static void test_exact_messages(void **state)
{
    (void)state;
    wasp_options o;
    char err[512];
    assert_int_equal(wasp_options_parse("watchpoints=9", &o, err, sizeof err), -1);
    assert_string_equal(err, "wasp: bad option 'watchpoints=9': expected a number from 1 to 4");
    assert_int_equal(wasp_options_parse("foo", &o, err, sizeof err), -1);
    /* Keys in table order (option_table.c): the command's flags' first. */
    assert_string_equal(err, "wasp: unknown option 'foo' (accepted: events, file, period, "
                             "period-jitter, sampler, pmu-event, pmu-period, watchpoints, watch, "
                             "watch-budget, float-threshold, max-frames, context, min-size, "
                             "alloc-interval, alloc-rate, verify-top, track-existing, recompile, "
                             "snapshot, max-contexts, threads, log, seed, signal, action)");
    assert_int_equal(wasp_options_parse("events=deadstor", &o, err, sizeof err), -1);
    assert_string_equal(err, "wasp: bad option 'events=deadstor': unknown analysis 'deadstor' "
                             "(accepted: deadstore, silentstore, silentload, objects, replicas, fields, alloc, locks, all)");
}

static void test_error_messages(void **state)
{
    (void)state;
    const char *wp = "expected a number from 1 to 4";
    parse_fails("watchpoints=0", "'watchpoints=0'", wp, NULL);
    parse_fails("watchpoints=5", "'watchpoints=5'", wp, NULL);
    parse_fails("watchpoints=-1", "'watchpoints=-1'", wp, NULL);
    parse_fails("watchpoints=+1", "'watchpoints=+1'", wp, NULL);
    parse_fails("watchpoints= 1", wp, NULL);
    parse_fails("watchpoints=1x", "'watchpoints=1x'", wp, NULL);
    parse_fails("watchpoints=", "'watchpoints='", wp, NULL);
    parse_fails("watchpoints", "'watchpoints'", "missing '=value'", wp, NULL);
    parse_fails("watchpoints=99999999999999999999999", wp, NULL);
    parse_fails("signal=sigio", "'signal=sigio'", "one of auto, sigtrap, fasync", NULL);
    parse_fails("action=pause", "'action=pause'", "start, stop or dump", NULL);
    parse_fails("min-size=-1", "'min-size=-1'", "from 0 to 2147483647", NULL);
    parse_fails("alloc-interval=1k", "'alloc-interval=1k'", "from 0 to 2147483647", NULL);
    parse_fails("alloc-rate=2000000", "'alloc-rate=2000000'", "from 0 to 1000000", NULL);
    parse_fails("track-existing=yes", "'track-existing=yes'", "0 or 1", NULL);

    const char *keys = "(accepted: events, file, period, period-jitter, sampler, pmu-event, "
                       "pmu-period, watchpoints, watch, watch-budget, float-threshold, max-frames, "
                       "context, min-size, alloc-interval, alloc-rate, verify-top, track-existing, "
                       "recompile, snapshot, max-contexts, threads, log, seed, signal, action)";
    parse_fails("foo=1", "unknown option 'foo'", keys, NULL);
    parse_fails("Events=all", "unknown option 'Events'", keys, NULL);
    parse_fails("=1", "unknown option ''", keys, NULL);
    parse_fails("seed=1,,watchpoints=2", "empty option", keys, NULL);
    parse_fails("seed=1,", "empty option", NULL);
    parse_fails(",seed=1", "empty option", NULL);

    const char *an = "(accepted: deadstore, silentstore, silentload, objects, replicas, fields, alloc, locks, all)";
    parse_fails("events=", "'events='", an, NULL);
    parse_fails("events=deadstore++silentload", "empty analysis name", an, NULL);
    parse_fails("events=+deadstore", "empty analysis name", an, NULL);
    parse_fails("events=deadstore+", "empty analysis name", an, NULL);
    parse_fails("events=deadstore+bogus", "unknown analysis 'bogus'", an, NULL);
    parse_fails("events=DEADSTORE", "unknown analysis 'DEADSTORE'", an, NULL);

    const char *dur = "a duration from 10us to 10s";
    parse_fails("period=5msx", "'period=5msx'", dur, "units ns, us, ms, s", NULL);
    parse_fails("period=9us", dur, NULL);
    parse_fails("period=9999", dur, NULL);
    parse_fails("period=11s", dur, NULL);
    parse_fails("period=1.5ms", dur, NULL);
    parse_fails("period=ms", dur, NULL);
    parse_fails("period=-1ms", dur, NULL);
    parse_fails("period=", dur, NULL);
    parse_fails("period=18446744073709551615s", dur, NULL); /* overflow */

    parse_fails("sampler=hw", "'sampler=hw'", "one of auto, perf, timer, pmu", NULL);
    parse_fails("sampler=", "one of auto, perf, timer, pmu", NULL);
    parse_fails("watch=dr", "'watch=dr'", "one of auto, debugreg, page", NULL);
    parse_fails("watch-budget=60%", "'watch-budget=60%'", "from 0 to 0.5", NULL);

    const char *pp = "expected a number from 1 to 1000000000";
    parse_fails("pmu-period=0", pp, NULL);
    parse_fails("pmu-period=1000000001", pp, NULL);
    parse_fails("pmu-period=-5", pp, NULL);
    parse_fails("pmu-period=1k", pp, NULL);

    parse_fails("pmu-event=", "'pmu-event='", "libpfm4 event name", NULL);
    parse_fails("pmu-event=a b", "libpfm4 event name", NULL);

    const char *ft = "a fraction from 0 up to (not including) 1, such as 0.01 or 1%";
    parse_fails("float-threshold=1", "'float-threshold=1'", ft, NULL);
    parse_fails("float-threshold=100%", ft, NULL);
    parse_fails("float-threshold=-0.1", ft, NULL);
    parse_fails("float-threshold=-0", ft, NULL);
    parse_fails("float-threshold=abc", ft, NULL);
    parse_fails("float-threshold=nan", ft, NULL);
    parse_fails("float-threshold=inf", ft, NULL);
    parse_fails("float-threshold=0x1p-4", ft, NULL);
    parse_fails("float-threshold=0.01.", ft, NULL);
    parse_fails("float-threshold=1e", ft, NULL);
    parse_fails("float-threshold=1e999", ft, NULL);
    parse_fails("float-threshold=.", ft, NULL);
    parse_fails("float-threshold=1%%", ft, NULL);
    parse_fails("float-threshold=", ft, NULL);

    const char *mf = "expected a number from 1 to 2048";
    parse_fails("max-frames=0", mf, NULL);
    parse_fails("max-frames=2049", mf, NULL);

    const char *sd = "a number from 0 to 18446744073709551615";
    parse_fails("seed=18446744073709551616", sd, NULL);
    parse_fails("seed=-1", sd, NULL);
    parse_fails("seed=0x10", sd, NULL);

    parse_fails("file=", "'file='", "a path", "cannot contain a comma", NULL);
    parse_fails("log=", "'log='", "stderr, none or a path", NULL);
}

static void test_long_values(void **state)
{
    (void)state;
    static char s[WASP_PATH_MAX + 64];
    /* file=/ + 4094 'a' = a 4095-byte path: fits with its NUL. */
    strcpy(s, "file=/");
    memset(s + 6, 'a', WASP_PATH_MAX - 2);
    s[6 + WASP_PATH_MAX - 2] = '\0';
    wasp_options o = parse_ok(s);
    assert_int_equal(strlen(o.file), WASP_PATH_MAX - 1);
    strcat(s, "a"); /* one byte too many */
    parse_fails(s, "bad option 'file=/aaa", "at most 4095 bytes", NULL);
    /* An unknown key is quoted back, but not without bound. */
    memset(s, 'k', WASP_PATH_MAX);
    s[WASP_PATH_MAX] = '\0';
    char err[8192];
    assert_int_equal(wasp_options_parse(s, &o, err, sizeof err), -1);
    assert_true(strlen(err) < 640); /* the key shown cut at 200 bytes, then the accepted keys */
    assert_non_null(strstr(err, "(accepted: events,"));

    char pe[200] = "pmu-event=";
    memset(pe + 10, 'E', 128);
    pe[138] = '\0';
    parse_fails(pe, "at most 127 characters", NULL);
}

static void test_failed_parse_leaves_options(void **state)
{
    (void)state;
    wasp_options o = parse_ok("watchpoints=2,seed=7");
    wasp_options before = o;
    char err[256];
    assert_int_equal(wasp_options_parse("seed=9,watchpoints=7", &o, err, sizeof err), -1);
    assert_memory_equal(&o, &before, sizeof o);
}

static void test_small_error_buffer(void **state)
{
    (void)state;
    wasp_options o;
    char err[16];
    assert_int_equal(wasp_options_parse("watchpoints=9", &o, err, sizeof err), -1);
    assert_int_equal(strlen(err), sizeof err - 1); /* truncated, terminated */
    assert_int_equal(wasp_options_parse("watchpoints=9", &o, NULL, 0), -1);
}

/* ---- format ---- */

static void assert_same_options(const wasp_options *a, const wasp_options *b)
{
    assert_int_equal(a->events, b->events);
    assert_string_equal(a->file, b->file);
    assert_int_equal(a->sampler, b->sampler);
    assert_int_equal(a->watch, b->watch);
    assert_true(a->watch_budget == b->watch_budget);
    assert_int_equal(a->period_ns, b->period_ns);
    assert_int_equal(a->pmu_period, b->pmu_period);
    assert_string_equal(a->pmu_event, b->pmu_event);
    assert_int_equal(a->watchpoints, b->watchpoints);
    if (a->float_threshold != b->float_threshold)
        fail_msg("float_threshold %.17g != %.17g", a->float_threshold, b->float_threshold);
    assert_int_equal(a->max_frames, b->max_frames);
    assert_string_equal(a->log, b->log);
    assert_int_equal(a->seed, b->seed);
    assert_int_equal(a->signal, b->signal);
    assert_int_equal(a->action, b->action);
    assert_int_equal(a->min_size, b->min_size);
    assert_int_equal(a->alloc_interval, b->alloc_interval);
    assert_int_equal(a->alloc_rate, b->alloc_rate);
    assert_int_equal(a->verify_top, b->verify_top);
    assert_int_equal(a->track_existing, b->track_existing);
}

static void round_trip(const wasp_options *o)
{
    char buf[3 * WASP_PATH_MAX], err[512];
    int n = wasp_options_format(o, buf, sizeof buf);
    assert_true(n >= 0);
    assert_int_equal((size_t)n, strlen(buf));
    wasp_options back;
    if (wasp_options_parse(buf, &back, err, sizeof err) != 0)
        fail_msg("format gave '%s', which does not parse: %s", buf, err);
    assert_same_options(o, &back);
}

static void test_format_defaults_is_empty(void **state)
{
    (void)state;
    wasp_options o;
    char buf[64];
    wasp_options_defaults(&o);
    assert_int_equal(wasp_options_format(&o, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    round_trip(&o);
}

static void test_format_every_field(void **state)
{
    (void)state;
    wasp_options o;
    wasp_options_defaults(&o);
    o.events = 1u << WASP_AN_SILENTSTORE | 1u << WASP_AN_SILENTLOAD;
    strcpy(o.file, "/tmp/dir=x/out.wprof");
    o.sampler = WASP_SAMPLER_PMU;
    o.period_ns = 250000;
    o.pmu_period = 4093;
    strcpy(o.pmu_event, "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=3");
    o.watchpoints = 1;
    o.float_threshold = 0.125;
    o.max_frames = 2048;
    strcpy(o.log, "/tmp/wasp.log");
    o.seed = UINT64_MAX;
    o.signal = WASP_SIGNAL_FASYNC;
    o.events |= 1u << WASP_EVENT_OBJECTS;
    o.min_size = 0;
    o.alloc_interval = 4096;
    o.alloc_rate = 0;
    o.verify_top = 3;
    o.track_existing = 1;
    o.action = WASP_ACTION_STOP;
    char buf[1024];
    assert_true(wasp_options_format(&o, buf, sizeof buf) > 0);
    /* Table order, the file last. */
    assert_string_equal(buf, "events=silentstore+silentload+objects,period=250us,sampler=pmu,"
                             "pmu-event=MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=3,pmu-period=4093,"
                             "watchpoints=1,float-threshold=0.125,max-frames=2048,min-size=0,"
                             "alloc-interval=4096,alloc-rate=0,verify-top=3,track-existing=1,"
                             "log=/tmp/wasp.log,seed=18446744073709551615,signal=fasync,"
                             "action=stop,file=/tmp/dir=x/out.wprof");
    round_trip(&o);
}

static void test_round_trip_values(void **state)
{
    (void)state;
    wasp_options o;
    wasp_options_defaults(&o);
    for (uint32_t ev = 1; ev <= ALL; ev++) {
        o.events = ev;
        round_trip(&o);
    }
    wasp_options_defaults(&o);
    const uint64_t periods[] = {10000, 10001, 999999, 1000000, 1500000, 1000000000,
                                2500000000ull, 10000000000ull};
    for (size_t i = 0; i < sizeof periods / sizeof *periods; i++) {
        o.period_ns = periods[i];
        round_trip(&o);
    }
    wasp_options_defaults(&o);
    const double fts[] = {0.0, 0.1, 0.3, 1e-5, 1e-300, 1.0 / 3.0, 0.999999999999, 0.02};
    for (size_t i = 0; i < sizeof fts / sizeof *fts; i++) {
        o.float_threshold = fts[i];
        round_trip(&o);
    }
    o.float_threshold = nextafter(1.0, 0.0);
    round_trip(&o);
    wasp_options_defaults(&o);
    for (int s = 0; s < 4; s++) {
        o.sampler = (wasp_sampler_choice)s;
        round_trip(&o);
    }
    wasp_options_defaults(&o);
    for (int w = 0; w < 3; w++) {
        o.watch = (wasp_watch_choice)w;
        o.watch_budget = w * 0.25;
        round_trip(&o);
    }
    wasp_options_defaults(&o);
    strcpy(o.log, "none");
    o.seed = 1;
    round_trip(&o);
}

static void test_format_refuses_unrepresentable(void **state)
{
    (void)state;
    wasp_options o;
    char buf[256];
    wasp_options_defaults(&o);
    strcpy(o.file, "/tmp/a,b.wprof");
    assert_int_equal(wasp_options_format(&o, buf, sizeof buf), -1);
    wasp_options_defaults(&o);
    strcpy(o.log, "/tmp/a,b.log");
    assert_int_equal(wasp_options_format(&o, buf, sizeof buf), -1);
    wasp_options_defaults(&o);
    o.events = 0;
    assert_int_equal(wasp_options_format(&o, buf, sizeof buf), -1);
    o.events = 1u << WASP_ANALYSES; /* no such analysis */
    assert_int_equal(wasp_options_format(&o, buf, sizeof buf), -1);
}

static void test_format_small_buffer(void **state)
{
    (void)state;
    wasp_options o;
    wasp_options_defaults(&o);
    o.watchpoints = 2;
    strcpy(o.file, "/tmp/out.wprof");
    char buf[64];
    int n = wasp_options_format(&o, buf, sizeof buf);
    assert_int_equal(n, (int)strlen("watchpoints=2,file=/tmp/out.wprof"));
    assert_int_equal(wasp_options_format(&o, buf, (size_t)n + 1), n); /* exactly fits */
    assert_int_equal(wasp_options_format(&o, buf, (size_t)n), -1);
    assert_int_equal(wasp_options_format(&o, buf, 5), -1);
}

/* ---- durations and event lists ---- */

static void test_duration(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        uint64_t ns;
    } ok[] = {
        {"0", 0},
        {"1", 1},
        {"1ns", 1},
        {"2us", 2000},
        {"3ms", 3000000},
        {"4s", 4000000000ull},
        {"5m", 300000000000ull},
        {"2h", 7200000000000ull},
        {"0010ms", 10000000},
        {"18446744073709551615", UINT64_MAX},
        {"18446744073s", 18446744073000000000ull},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        uint64_t ns = 12345;
        if (wasp_options_parse_duration(ok[i].s, &ns) != 0)
            fail_msg("duration '%s' rejected", ok[i].s);
        assert_int_equal(ns, ok[i].ns);
    }
    static const char *const bad[] = {
        "", "s", "ms", "m", "1M", "1 ms", " 1ms", "1ms ", "1MS", "1H", "1min", "-1", "+1", "1.5ms", "5msx",
        "18446744073709551616", "18446744074s", "99999999999999999999999ns", "1e3",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t ns = 777;
        if (wasp_options_parse_duration(bad[i], &ns) == 0)
            fail_msg("duration '%s' accepted", bad[i]);
        assert_int_equal(ns, 777); /* untouched */
    }
    uint64_t ns;
    assert_int_equal(wasp_options_parse_duration(NULL, &ns), -1);
}

static void test_parse_events_list(void **state)
{
    (void)state;
    uint32_t ev = 0;
    char err[512];
    assert_int_equal(wasp_options_parse_events("deadstore,silentload", &ev, err, sizeof err), 0);
    assert_int_equal(ev, 5u);
    assert_int_equal(wasp_options_parse_events("silentstore+deadstore", &ev, err, sizeof err), 0);
    assert_int_equal(ev, 3u);
    assert_int_equal(wasp_options_parse_events("all", &ev, err, sizeof err), 0);
    assert_int_equal(ev, ALL);
    ev = 9;
    assert_int_equal(wasp_options_parse_events("deadstore,nope", &ev, err, sizeof err), -1);
    assert_int_equal(ev, 9);
    assert_non_null(strstr(err, "unknown analysis 'nope'"));
    assert_non_null(strstr(err, "accepted: deadstore, silentstore, silentload, objects, replicas, fields, alloc, locks, all"));
    assert_int_equal(wasp_options_parse_events("", &ev, err, sizeof err), -1);
    assert_int_equal(wasp_options_parse_events(",", &ev, err, sizeof err), -1);
    assert_non_null(strstr(err, "empty analysis name"));
}

/* The JVM (or the user) may run with a locale whose decimal point is ','. */
/* Messages quote what was given, but a newline or an escape byte in it is
 * shown as '?': the message stays one line and a terminal sees no escape. */
static void test_error_quotes_no_control_bytes(void **state)
{
    (void)state;
    wasp_options o;
    char err[512];
    const char *bad[] = {"period=1\nms", "watch=\x1b[31mred", "no\tsuch=1", "events=dead\rstore"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(wasp_options_parse(bad[i], &o, err, sizeof err), -1);
        for (const char *c = err; *c; c++)
            assert_true((unsigned char)*c >= 0x20 && *c != 0x7f);
        assert_non_null(strchr(err, '?'));
    }
}

static void test_locale_independent(void **state)
{
    (void)state;
    const char *locs[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE", NULL};
    const char *got = NULL;
    for (int i = 0; locs[i] && !got; i++)
        got = setlocale(LC_NUMERIC, locs[i]);
    if (!got) {
        skip(); /* no comma-decimal locale installed */
        return;
    }
    wasp_options o = parse_ok("float-threshold=0.25");
    assert_true(o.float_threshold == 0.25);
    round_trip(&o);
    setlocale(LC_NUMERIC, "C");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_empty_string_gives_defaults),
        cmocka_unit_test(test_analysis_bits),
        cmocka_unit_test(test_every_option),
        cmocka_unit_test(test_option_edges),
        cmocka_unit_test(test_last_duplicate_wins),
        cmocka_unit_test(test_exact_messages),
        cmocka_unit_test(test_error_messages),
        cmocka_unit_test(test_long_values),
        cmocka_unit_test(test_failed_parse_leaves_options),
        cmocka_unit_test(test_small_error_buffer),
        cmocka_unit_test(test_format_defaults_is_empty),
        cmocka_unit_test(test_format_every_field),
        cmocka_unit_test(test_round_trip_values),
        cmocka_unit_test(test_format_refuses_unrepresentable),
        cmocka_unit_test(test_format_small_buffer),
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_parse_events_list),
        cmocka_unit_test(test_error_quotes_no_control_bytes),
        cmocka_unit_test(test_locale_independent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
