/*
 * Agent option string: "key=value,key=value" (see options.h for the keys).
 *
 * Rules beyond options.h:
 *  - Options are split at commas, and a key from its value at the first '=',
 *    so no value can contain a comma: file= and log= paths with a comma in
 *    them cannot be passed (wasp_options_format refuses them). A path may
 *    contain '='.
 *  - Empty items (",,"), empty values, unknown keys, numbers with a sign,
 *    trailing garbage ("5msx") or out of range are errors. A key given twice:
 *    the last one wins.
 *  - events= takes names joined by '+' or ':' (',' would end the option);
 *    "all" means all three. The whole list replaces the default.
 *  - float-threshold= also accepts a percentage ("1%" == 0.01) and an
 *    exponent ("1e-3"). Decimal points are always '.', whatever the locale.
 *
 * Runs at agent load (never in a signal handler), so it may use the stack
 * freely and call locale functions.
 */
#include "agent/options.h"

#include "common/parse.h"
#include "profile/profile.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_EVENTS ((1u << WASP_AN_COUNT) - 1u) /* the three JXPerf analyses */
#define ALL_EVENTS ((1u << WASP_EVENT_COUNT) - 1u)
#define DEFAULT_MIN_SIZE 1024u
#define DEFAULT_ALLOC_INTERVAL (256u * 1024u)
#define DEFAULT_ALLOC_RATE 1000u
#define SIZE_MAX_OPTION 0x7fffffffu
#define DEFAULT_PERIOD_NS 1000000ull /* 1ms */
#define DEFAULT_PMU_PERIOD 20011ull
#define DEFAULT_WATCHPOINTS 4u
#define DEFAULT_WATCH_BUDGET (-1.0) /* the engine's own: see wasp_options.watch_budget */
#define DEFAULT_FLOAT_THRESHOLD 0.01
#define DEFAULT_MAX_FRAMES 256u
#define PERIOD_MIN_NS 10000ull        /* 10us */
#define PERIOD_MAX_NS 10000000000ull  /* 10s */
#define PMU_PERIOD_MAX 1000000000ull
#define MAX_FRAMES_MAX 2048u
#define ITEM_SHOWN 200 /* longest piece of an item quoted back in a message */

/* Indexed by wasp_analysis so the bit numbering matches the profile's; the
 * object-centric analysis follows them. */
static const char *const analysis_names[WASP_EVENT_COUNT] = {
    [WASP_AN_DEADSTORE] = "deadstore",
    [WASP_AN_SILENTSTORE] = "silentstore",
    [WASP_AN_SILENTLOAD] = "silentload",
    [WASP_EVENT_OBJECTS] = "objects",
    [WASP_EVENT_REPLICAS] = "replicas",
};
#define ACCEPTED_EVENTS "accepted: deadstore, silentstore, silentload, objects, replicas, all"

static const char *const sampler_names[] = {
    [WASP_SAMPLER_AUTO] = "auto",
    [WASP_SAMPLER_PERF] = "perf",
    [WASP_SAMPLER_PMU] = "pmu",
    [WASP_SAMPLER_TIMER] = "timer",
};

static const char *const watch_names[] = {
    [WASP_WATCH_AUTO] = "auto",
    [WASP_WATCH_DEBUGREG] = "debugreg",
    [WASP_WATCH_PAGE] = "page",
};

void wasp_options_defaults(wasp_options *o)
{
    memset(o, 0, sizeof *o);
    o->events = DEFAULT_EVENTS;
    o->min_size = DEFAULT_MIN_SIZE;
    o->alloc_interval = DEFAULT_ALLOC_INTERVAL;
    o->alloc_rate = DEFAULT_ALLOC_RATE;
    o->sampler = WASP_SAMPLER_AUTO;
    o->period_ns = DEFAULT_PERIOD_NS;
    o->pmu_period = DEFAULT_PMU_PERIOD;
    o->watchpoints = DEFAULT_WATCHPOINTS;
    o->watch = WASP_WATCH_AUTO;
    o->watch_budget = DEFAULT_WATCH_BUDGET;
    o->float_threshold = DEFAULT_FLOAT_THRESHOLD;
    o->max_frames = DEFAULT_MAX_FRAMES;
    strcpy(o->log, "stderr");
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- value parsers: all take a NUL-terminated value ---- */


int wasp_options_parse_duration(const char *s, uint64_t *ns)
{
    if (!s)
        return -1;
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    if (n == 0 || n > 20)
        return -1;
    char digits[21];
    memcpy(digits, s, n);
    digits[n] = '\0';
    uint64_t v, mult;
    if (wasp_parse_u64(digits, &v) < 0)
        return -1;
    const char *unit = s + n;
    if (*unit == '\0' || strcmp(unit, "ns") == 0)
        mult = 1;
    else if (strcmp(unit, "us") == 0)
        mult = 1000;
    else if (strcmp(unit, "ms") == 0)
        mult = 1000000;
    else if (strcmp(unit, "s") == 0)
        mult = 1000000000;
    else
        return -1;
    if (v > UINT64_MAX / mult)
        return -1;
    *ns = v * mult;
    return 0;
}

/* [digits][.digits][e[+-]digits][%] with at least one mantissa digit,
 * converted in the C locale so '.' is the decimal point everywhere. */
static int parse_fraction(const char *s, double *out)
{
    const char *p = s;
    int mant = 0;
    while (*p >= '0' && *p <= '9')
        p++, mant++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            mant++;
    if (mant == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return -1;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    size_t numlen = (size_t)(p - s);
    int percent = 0;
    if (*p == '%')
        percent = 1, p++;
    if (*p != '\0' || numlen >= 64)
        return -1;
    char num[64];
    memcpy(num, s, numlen);
    num[numlen] = '\0';

    locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (c == (locale_t)0)
        return -1;
    char *end;
    double v = strtod_l(num, &end, c);
    freelocale(c);
    if (*end != '\0')
        return -1;
    *out = percent ? v / 100.0 : v;
    return 0;
}

/* events: names separated by '+', ':' or ','. On error, detail explains. */
static int events_detail(const char *list, uint32_t *events, char *detail, size_t n)
{
    uint32_t bits = 0;
    const char *p = list;
    if (*p == '\0') {
        set_err(detail, n, "expected one or more analyses joined by '+' (%s)", ACCEPTED_EVENTS);
        return -1;
    }
    for (;;) {
        size_t len = strcspn(p, "+:,");
        if (len == 0) {
            set_err(detail, n, "empty analysis name in '%.*s' (%s)", ITEM_SHOWN, list,
                    ACCEPTED_EVENTS);
            return -1;
        }
        int found = -1;
        if (len == 3 && strncmp(p, "all", 3) == 0) {
            bits |= ALL_EVENTS;
            found = 0;
        }
        for (int a = 0; found < 0 && a < WASP_EVENT_COUNT; a++)
            if (strlen(analysis_names[a]) == len && strncmp(p, analysis_names[a], len) == 0) {
                bits |= 1u << a;
                found = a;
            }
        if (found < 0) {
            set_err(detail, n, "unknown analysis '%.*s' (%s)",
                    (int)(len < ITEM_SHOWN ? len : ITEM_SHOWN), p, ACCEPTED_EVENTS);
            return -1;
        }
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    *events = bits;
    return 0;
}

int wasp_options_parse_events(const char *list, uint32_t *events, char *err, size_t errlen)
{
    char detail[512];
    if (!list)
        list = "";
    if (events_detail(list, events, detail, sizeof detail) < 0) {
        /* Same shape as wasp_options_parse's message for events=LIST. */
        set_err(err, errlen, "wasp: bad option 'events=%.*s': %s", ITEM_SHOWN, list, detail);
        return -1;
    }
    return 0;
}

/* ---- one setter per key; -1 means "expected <spec.expected>" unless the
 * setter wrote a more precise detail ---- */

typedef int (*setter_fn)(wasp_options *o, const char *v, char *detail, size_t n);

static int copy_str(char *dst, size_t cap, const char *v)
{
    size_t len = strlen(v);
    if (len == 0 || len >= cap)
        return -1;
    memcpy(dst, v, len + 1);
    return 0;
}

static int set_events(wasp_options *o, const char *v, char *d, size_t n)
{
    return events_detail(v, &o->events, d, n);
}

static int set_file(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    return copy_str(o->file, sizeof o->file, v);
}

static int set_sampler(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    if (strcmp(v, "soft") == 0) { /* the perf sampler's name before 0.3 */
        o->sampler = WASP_SAMPLER_PERF;
        return 0;
    }
    for (size_t i = 0; i < sizeof sampler_names / sizeof *sampler_names; i++)
        if (strcmp(v, sampler_names[i]) == 0) {
            o->sampler = (wasp_sampler_choice)i;
            return 0;
        }
    return -1;
}

static int set_period(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    uint64_t ns;
    if (wasp_options_parse_duration(v, &ns) < 0 || ns < PERIOD_MIN_NS || ns > PERIOD_MAX_NS)
        return -1;
    o->period_ns = ns;
    return 0;
}

static int set_u64_range(uint64_t *dst, const char *v, uint64_t lo, uint64_t hi)
{
    uint64_t x;
    if (wasp_parse_u64(v, &x) < 0 || x < lo || x > hi)
        return -1;
    *dst = x;
    return 0;
}

static int set_pmu_period(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    return set_u64_range(&o->pmu_period, v, 1, PMU_PERIOD_MAX);
}

static int set_pmu_event(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    for (const char *p = v; *p; p++)
        if (*p <= ' ' || *p > '~') /* one token: no spaces or control characters */
            return -1;
    return copy_str(o->pmu_event, sizeof o->pmu_event, v);
}

static int set_watchpoints(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    uint64_t x;
    if (set_u64_range(&x, v, 1, 4) < 0)
        return -1;
    o->watchpoints = (uint32_t)x;
    return 0;
}

static int set_watch(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    for (size_t i = 0; i < sizeof watch_names / sizeof *watch_names; i++)
        if (strcmp(v, watch_names[i]) == 0) {
            o->watch = (wasp_watch_choice)i;
            return 0;
        }
    return -1;
}

static int set_watch_budget(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    double x;
    if (parse_fraction(v, &x) < 0 || !(x >= 0.0 && x <= 0.5))
        return -1;
    o->watch_budget = x;
    return 0;
}

static int set_float_threshold(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    double x;
    if (parse_fraction(v, &x) < 0 || !(x >= 0.0 && x < 1.0))
        return -1;
    o->float_threshold = x;
    return 0;
}

static int set_max_frames(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    uint64_t x;
    if (set_u64_range(&x, v, 1, MAX_FRAMES_MAX) < 0)
        return -1;
    o->max_frames = (uint32_t)x;
    return 0;
}

static int set_log(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    return copy_str(o->log, sizeof o->log, v);
}

static const char *const signal_names[] = {
    [WASP_SIGNAL_AUTO] = "auto",
    [WASP_SIGNAL_SIGTRAP] = "sigtrap",
    [WASP_SIGNAL_FASYNC] = "fasync",
};

static int set_signal(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    for (size_t i = 0; i < sizeof signal_names / sizeof *signal_names; i++) {
        if (strcmp(v, signal_names[i]) == 0) {
            o->signal = (wasp_signal_choice)i;
            return 0;
        }
    }
    return -1;
}

static const char *const action_names[] = {
    [WASP_ACTION_START] = "start",
    [WASP_ACTION_STOP] = "stop",
};

static int set_action(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    for (size_t i = 0; i < sizeof action_names / sizeof *action_names; i++) {
        if (strcmp(v, action_names[i]) == 0) {
            o->action = (wasp_action)i;
            return 0;
        }
    }
    return -1;
}

static int set_min_size(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    uint64_t x;
    if (set_u64_range(&x, v, 0, SIZE_MAX_OPTION) < 0)
        return -1;
    o->min_size = (uint32_t)x;
    return 0;
}

static int set_alloc_interval(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    uint64_t x;
    if (set_u64_range(&x, v, 0, SIZE_MAX_OPTION) < 0)
        return -1;
    o->alloc_interval = (uint32_t)x;
    return 0;
}

static int set_alloc_rate(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    uint64_t x;
    if (set_u64_range(&x, v, 0, 1000000) < 0)
        return -1;
    o->alloc_rate = (uint32_t)x;
    return 0;
}

static int set_verify_top(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    uint64_t x;
    if (set_u64_range(&x, v, 0, 100) < 0)
        return -1;
    o->verify_top = (uint32_t)x;
    return 0;
}

static int set_track_existing(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    uint64_t x;
    if (set_u64_range(&x, v, 0, 1) < 0)
        return -1;
    o->track_existing = (int)x;
    return 0;
}

static int set_seed(wasp_options *o, const char *v, char *d, size_t n)
{
    (void)d, (void)n;
    return set_u64_range(&o->seed, v, 0, UINT64_MAX);
}

static const struct spec {
    const char *key;
    const char *expected;
    setter_fn set;
} specs[] = {
    {"events", "analyses joined by '+' or ':' (" ACCEPTED_EVENTS ")", set_events},
    {"file", "a path of at most 4095 bytes (it cannot contain a comma)", set_file},
    {"sampler", "one of auto, perf, timer, pmu", set_sampler},
    {"period",
     "a duration from 10us to 10s such as 500us or 2ms (units ns, us, ms, s; a bare number is ns)",
     set_period},
    {"pmu-period", "a number from 1 to 1000000000", set_pmu_period},
    {"pmu-event", "a libpfm4 event name of at most 127 characters, without spaces", set_pmu_event},
    {"watchpoints", "a number from 1 to 4", set_watchpoints},
    {"watch", "one of auto, debugreg, page", set_watch},
    {"watch-budget", "a fraction from 0 to 0.5 such as 0.02 or 2% (0: no limit)",
     set_watch_budget},
    {"float-threshold", "a fraction from 0 up to (not including) 1, such as 0.01 or 1%",
     set_float_threshold},
    {"max-frames", "a number from 1 to 2048", set_max_frames},
    {"log", "stderr, none or a path of at most 4095 bytes (it cannot contain a comma)",
     set_log},
    {"seed", "a number from 0 to 18446744073709551615 (0 means time-based)", set_seed},
    {"signal", "one of auto, sigtrap, fasync", set_signal},
    {"action", "start or stop (for an agent loaded into a running JVM)", set_action},
    {"min-size", "a size in bytes from 0 to 2147483647", set_min_size},
    {"alloc-interval", "a size in bytes from 0 to 2147483647 (0: every allocation)",
     set_alloc_interval},
    {"alloc-rate", "a number of events per second from 0 to 1000000 (0: no cap)",
     set_alloc_rate},
    {"verify-top", "a number from 0 to 100", set_verify_top},
    {"track-existing", "0 or 1", set_track_existing},
};
#define NSPECS (sizeof specs / sizeof *specs)
#define ACCEPTED_KEYS                                                                           \
    "accepted: events, file, sampler, period, pmu-period, pmu-event, watchpoints, watch, "     \
    "watch-budget, "                                                                            \
    "float-threshold, max-frames, log, seed, signal, action, min-size, alloc-interval, "         \
    "alloc-rate, verify-top, track-existing"

/* One "key=value" item of length len (not NUL-terminated). */
static int parse_item(const char *item, size_t len, wasp_options *o, char *err, size_t errlen)
{
    int shown = (int)(len < ITEM_SHOWN ? len : ITEM_SHOWN);
    const char *eq = memchr(item, '=', len);
    size_t keylen = eq ? (size_t)(eq - item) : len;
    const struct spec *sp = NULL;
    for (size_t i = 0; i < NSPECS; i++)
        if (strlen(specs[i].key) == keylen && strncmp(item, specs[i].key, keylen) == 0)
            sp = &specs[i];
    if (!sp) {
        set_err(err, errlen, "wasp: unknown option '%.*s' (%s)",
                (int)(keylen < ITEM_SHOWN ? keylen : ITEM_SHOWN), item, ACCEPTED_KEYS);
        return -1;
    }
    if (!eq) {
        set_err(err, errlen, "wasp: bad option '%.*s': missing '=value', expected %s", shown, item,
                sp->expected);
        return -1;
    }
    char value[WASP_PATH_MAX];
    size_t vlen = len - keylen - 1;
    char detail[512] = "";
    int rc = -1;
    if (vlen < sizeof value) {
        memcpy(value, eq + 1, vlen);
        value[vlen] = '\0';
        rc = sp->set(o, value, detail, sizeof detail);
    }
    if (rc < 0) {
        if (detail[0])
            set_err(err, errlen, "wasp: bad option '%.*s': %s", shown, item, detail);
        else
            set_err(err, errlen, "wasp: bad option '%.*s': expected %s", shown, item, sp->expected);
        return -1;
    }
    return 0;
}

int wasp_options_parse(const char *s, wasp_options *o, char *err, size_t errlen)
{
    /* Parse into a copy so a failed parse leaves o untouched. */
    wasp_options tmp;
    wasp_options_defaults(&tmp);
    if (s && *s) {
        for (const char *p = s;;) {
            size_t len = strcspn(p, ",");
            if (len == 0) {
                set_err(err, errlen,
                        "wasp: empty option in '%.*s': expected key=value items separated by "
                        "single commas (%s)",
                        ITEM_SHOWN, s, ACCEPTED_KEYS);
                return -1;
            }
            if (parse_item(p, len, &tmp, err, errlen) < 0)
                return -1;
            if (p[len] == '\0')
                break;
            p += len + 1;
        }
    }
    *o = tmp;
    return 0;
}

/* ---- format ---- */

struct out {
    char *buf;
    size_t cap, len;
    int overflow;
};

static void emit(struct out *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct out *w, const char *fmt, ...)
{
    if (w->overflow)
        return;
    if (w->len > 0) { /* separator before every option but the first */
        if (w->len + 1 >= w->cap) {
            w->overflow = 1;
            return;
        }
        w->buf[w->len++] = ',';
        w->buf[w->len] = '\0';
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(w->buf + w->len, w->cap - w->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= w->cap - w->len)
        w->overflow = 1;
    else
        w->len += (size_t)n;
}

static const char *duration_text(uint64_t ns, char *buf, size_t n)
{
    if (ns != 0 && ns % 1000000000ull == 0)
        snprintf(buf, n, "%llus", (unsigned long long)(ns / 1000000000ull));
    else if (ns != 0 && ns % 1000000ull == 0)
        snprintf(buf, n, "%llums", (unsigned long long)(ns / 1000000ull));
    else if (ns != 0 && ns % 1000ull == 0)
        snprintf(buf, n, "%lluus", (unsigned long long)(ns / 1000ull));
    else
        snprintf(buf, n, "%lluns", (unsigned long long)ns);
    return buf;
}

/* Shortest of %.15g / %.17g that reads back as the same double, in the C
 * locale (the JVM may have set a locale with a ',' decimal point). */
static int fraction_text(double x, char *buf, size_t n)
{
    locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (c == (locale_t)0)
        return -1;
    locale_t old = uselocale(c);
    snprintf(buf, n, "%.15g", x);
    if (strtod_l(buf, NULL, c) != x)
        snprintf(buf, n, "%.17g", x);
    uselocale(old);
    freelocale(c);
    return 0;
}

/* Values that the option string cannot carry: format returns -1 for them. */
static int representable(const char *s)
{
    return s[0] != '\0' && strchr(s, ',') == NULL;
}

int wasp_options_format(const wasp_options *o, char *buf, size_t buflen)
{
    wasp_options d;
    wasp_options_defaults(&d);
    if (!buf || buflen == 0)
        return -1;
    buf[0] = '\0';
    struct out w = {buf, buflen, 0, 0};

    if (o->events != d.events) {
        if (o->events == 0 || (o->events & ~ALL_EVENTS))
            return -1;
        char list[64] = "";
        for (int a = 0; a < WASP_EVENT_COUNT; a++)
            if (o->events & (1u << a)) {
                if (list[0])
                    strcat(list, "+");
                strcat(list, analysis_names[a]);
            }
        emit(&w, "events=%s", list);
    }
    if (o->sampler != d.sampler) {
        if ((unsigned)o->sampler >= sizeof sampler_names / sizeof *sampler_names)
            return -1;
        emit(&w, "sampler=%s", sampler_names[o->sampler]);
    }
    if (o->period_ns != d.period_ns) {
        char t[32];
        emit(&w, "period=%s", duration_text(o->period_ns, t, sizeof t));
    }
    if (o->pmu_period != d.pmu_period)
        emit(&w, "pmu-period=%llu", (unsigned long long)o->pmu_period);
    if (o->pmu_event[0]) {
        if (!representable(o->pmu_event))
            return -1;
        emit(&w, "pmu-event=%s", o->pmu_event);
    }
    if (o->watchpoints != d.watchpoints)
        emit(&w, "watchpoints=%u", (unsigned)o->watchpoints);
    if (o->watch != d.watch) {
        if ((unsigned)o->watch >= sizeof watch_names / sizeof *watch_names)
            return -1;
        emit(&w, "watch=%s", watch_names[o->watch]);
    }
    if (o->watch_budget != d.watch_budget) {
        char t[40];
        if (fraction_text(o->watch_budget, t, sizeof t) < 0)
            return -1;
        emit(&w, "watch-budget=%s", t);
    }
    if (o->float_threshold != d.float_threshold) {
        char t[40];
        if (fraction_text(o->float_threshold, t, sizeof t) < 0)
            return -1;
        emit(&w, "float-threshold=%s", t);
    }
    if (o->max_frames != d.max_frames)
        emit(&w, "max-frames=%u", (unsigned)o->max_frames);
    if (strcmp(o->log, d.log) != 0) {
        if (!representable(o->log))
            return -1;
        emit(&w, "log=%s", o->log);
    }
    if (o->seed != d.seed)
        emit(&w, "seed=%llu", (unsigned long long)o->seed);
    if (o->min_size != d.min_size)
        emit(&w, "min-size=%u", (unsigned)o->min_size);
    if (o->alloc_interval != d.alloc_interval)
        emit(&w, "alloc-interval=%u", (unsigned)o->alloc_interval);
    if (o->alloc_rate != d.alloc_rate)
        emit(&w, "alloc-rate=%u", (unsigned)o->alloc_rate);
    if (o->verify_top != d.verify_top)
        emit(&w, "verify-top=%u", (unsigned)o->verify_top);
    if (o->track_existing != d.track_existing)
        emit(&w, "track-existing=%d", o->track_existing);
    if (o->action != d.action) {
        if ((unsigned)o->action >= sizeof action_names / sizeof *action_names)
            return -1;
        emit(&w, "action=%s", action_names[o->action]);
    }
    if (o->signal != d.signal) {
        if ((unsigned)o->signal >= sizeof signal_names / sizeof *signal_names)
            return -1;
        emit(&w, "signal=%s", signal_names[o->signal]);
    }
    if (o->file[0]) { /* last: it is the longest, and easiest to read at the end */
        if (!representable(o->file))
            return -1;
        emit(&w, "file=%s", o->file);
    }
    if (w.overflow) {
        buf[0] = '\0';
        return -1;
    }
    return (int)w.len;
}
