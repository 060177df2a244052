/*
 * One option value, by the kind of its row (option_table.h): read from the
 * option string, written back, compared with the default, copied.
 *
 *  - Numbers are decimal digits only: no sign, no spaces, no trailing
 *    garbage ("5msx"), no overflow.
 *  - Durations: digits and a unit ns, us, ms or s (a bare number is ns).
 *  - Shares: [digits][.digits][e[+-]digits][%], so "1%" == 0.01 and "1e-3"
 *    work. Decimal points are always '.', whatever the locale (the JVM may
 *    have set one with ','), and what is written reads back as the same
 *    double.
 *  - events: names joined by '+' or ':' (',' would end the option; the
 *    command also takes ',' through wasp_options_parse_events); "all" means
 *    every analysis. The whole list replaces the default.
 *
 * Runs at agent load (never in a signal handler), so it may use the stack
 * freely and call locale functions.
 */
#include "agent/option_table.h"

#include "catalog/names.h"
#include "common/parse.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALL_EVENTS ((1u << WASP_ANALYSES) - 1u)
#define ITEM_SHOWN 200 /* longest piece of a value quoted back in a message */

/* "accepted: deadstore, ..., all": the analyses of catalog/list.h. */
static const char *accepted_events(char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "accepted:");
    for (int id = 0; id < WASP_ANALYSES && len < n; id++)
        len += (size_t)snprintf(buf + len, n - len, " %s,", wasp_analysis_id_name(id));
    if (len < n)
        snprintf(buf + len, n - len, " all");
    return buf;
}

const char *wasp_option_accepted(const wasp_option_row *r, char *buf, size_t n)
{
    if (r->kind != WASP_OPT_EVENTS)
        return r->accepted;
    char names[256];
    snprintf(buf, n, "analyses joined by '+' or ':' (%s)", accepted_events(names, sizeof names));
    return buf;
}

/* "what to find: deadstore = stores overwritten ..., all = every one". */
const char *wasp_option_help(const wasp_option_row *r, char *buf, size_t n)
{
    if (r->kind != WASP_OPT_EVENTS)
        return r->help;
    size_t len = (size_t)snprintf(buf, n, "what to find:");
    for (int id = 0; id < WASP_ANALYSES && len < n; id++)
        len += (size_t)snprintf(buf + len, n - len, " %s = %s,", wasp_analysis_id_name(id),
                                wasp_analysis_summary(id));
    if (len < n)
        snprintf(buf + len, n - len,
                 " all = every one (wasp run and attach also take ',' between names)");
    return buf;
}

#define set_err wasp_option_error

void wasp_option_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    /* Messages quote what was given: a control byte would split the one line
     * or reach the terminal as an escape sequence. */
    for (char *c = err; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
}

/* ---- fields: integers are stored as 4 or 8 bytes (enums and int included) ---- */

static void *field_of(wasp_options *o, const wasp_option_row *r)
{
    return (char *)o + r->offset;
}

static const void *cfield_of(const wasp_options *o, const wasp_option_row *r)
{
    return (const char *)o + r->offset;
}

static uint64_t load_uint(const void *p, size_t size)
{
    if (size == sizeof(uint32_t)) {
        uint32_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void store_uint(void *p, size_t size, uint64_t v)
{
    if (size == sizeof(uint32_t)) {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, sizeof w);
    } else {
        memcpy(p, &v, sizeof v);
    }
}

/* ---- reading values: all take a NUL-terminated value ---- */

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
    else if (strcmp(unit, "m") == 0)
        mult = 60000000000ull;
    else if (strcmp(unit, "h") == 0)
        mult = 3600000000000ull;
    else
        return -1;
    if (v > UINT64_MAX / mult)
        return -1;
    *ns = v * mult;
    return 0;
}

/* [digits][.digits][e[+-]digits][%] with at least one mantissa digit,
 * converted in the C locale so '.' is the decimal point everywhere. */
static int parse_share(const char *s, double *out)
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
    char accepted[256];
    accepted_events(accepted, sizeof accepted);
    if (*p == '\0') {
        set_err(detail, n, "expected one or more analyses joined by '+' (%s)", accepted);
        return -1;
    }
    for (;;) {
        size_t len = strcspn(p, "+:,");
        if (len == 0) {
            set_err(detail, n, "empty analysis name in '%.*s' (%s)", ITEM_SHOWN, list, accepted);
            return -1;
        }
        int found = -1;
        if (len == 3 && strncmp(p, "all", 3) == 0) {
            bits |= ALL_EVENTS;
            found = 0;
        }
        for (int a = 0; found < 0 && a < WASP_ANALYSES; a++) {
            const char *name = wasp_analysis_id_name(a);
            if (strlen(name) == len && strncmp(p, name, len) == 0) {
                bits |= 1u << a;
                found = a;
            }
        }
        if (found < 0) {
            set_err(detail, n, "unknown analysis '%.*s' (%s)",
                    (int)(len < ITEM_SHOWN ? len : ITEM_SHOWN), p, accepted);
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

static int copy_str(char *dst, size_t cap, const char *v)
{
    size_t len = strlen(v);
    if (len == 0 || len >= cap)
        return -1;
    memcpy(dst, v, len + 1);
    return 0;
}

/* One token: no spaces or control characters (a libpfm4 event name). */
static int is_one_word(const char *v)
{
    for (const char *p = v; *p; p++)
        if (*p <= ' ' || *p > '~')
            return 0;
    return 1;
}

static int set_choice(const wasp_option_row *r, void *f, const char *v)
{
    for (size_t i = 0; r->names[i]; i++)
        if (strcmp(v, r->names[i]) == 0) {
            store_uint(f, r->size, i);
            return 0;
        }
    if (r->old_name && strcmp(v, r->old_name) == 0) {
        store_uint(f, r->size, r->old_value);
        return 0;
    }
    return -1;
}

int wasp_option_set(const wasp_option_row *r, wasp_options *o, const char *v, char *detail,
                    size_t n)
{
    void *f = field_of(o, r);
    uint64_t x;
    double d;
    switch (r->kind) {
    case WASP_OPT_EVENTS: {
        uint32_t bits;
        if (events_detail(v, &bits, detail, n) < 0)
            return -1;
        store_uint(f, r->size, bits);
        return 0;
    }
    case WASP_OPT_PATH:
        return copy_str(f, r->size, v);
    case WASP_OPT_TOKEN:
        return is_one_word(v) ? copy_str(f, r->size, v) : -1;
    case WASP_OPT_CHOICE:
        return set_choice(r, f, v);
    case WASP_OPT_NUMBER:
        if (wasp_parse_u64(v, &x) < 0 || x < r->min || x > r->max)
            return -1;
        store_uint(f, r->size, x);
        return 0;
    case WASP_OPT_DURATION:
        if (wasp_options_parse_duration(v, &x) < 0 || x < r->min || x > r->max)
            return -1;
        store_uint(f, r->size, x);
        return 0;
    case WASP_OPT_SHARE:
        /* Written so that NaN fails too. */
        if (parse_share(v, &d) < 0 || !(d >= r->lo && (r->hi_open ? d < r->hi : d <= r->hi)))
            return -1;
        memcpy(f, &d, sizeof d);
        return 0;
    }
    return -1;
}

void wasp_option_set_default(const wasp_option_row *r, wasp_options *o)
{
    void *f = field_of(o, r);
    switch (r->kind) {
    case WASP_OPT_PATH:
    case WASP_OPT_TOKEN:
        snprintf(f, r->size, "%s", r->def_text);
        break;
    case WASP_OPT_SHARE:
        memcpy(f, &r->def_share, sizeof r->def_share);
        break;
    default:
        store_uint(f, r->size, r->def);
    }
}

/* ---- writing values ---- */

static int events_text(uint64_t bits, char *buf, size_t n)
{
    if (bits == 0 || (bits & ~(uint64_t)ALL_EVENTS))
        return -1;
    size_t len = 0;
    buf[0] = '\0';
    for (int a = 0; a < WASP_ANALYSES; a++)
        if (bits & (1u << a)) {
            int w = snprintf(buf + len, n - len, "%s%s", len ? "+" : "",
                             wasp_analysis_id_name(a));
            if (w < 0 || (size_t)w >= n - len)
                return -1;
            len += (size_t)w;
        }
    return 0;
}

static int duration_text(uint64_t ns, char *buf, size_t n)
{
    if (ns != 0 && ns % 1000000000ull == 0)
        return snprintf(buf, n, "%llus", (unsigned long long)(ns / 1000000000ull));
    if (ns != 0 && ns % 1000000ull == 0)
        return snprintf(buf, n, "%llums", (unsigned long long)(ns / 1000000ull));
    if (ns != 0 && ns % 1000ull == 0)
        return snprintf(buf, n, "%lluus", (unsigned long long)(ns / 1000ull));
    return snprintf(buf, n, "%lluns", (unsigned long long)ns);
}

/* Shortest of %.15g / %.17g that reads back as the same double, in the C
 * locale (the JVM may have set a locale with a ',' decimal point). */
static int share_text(double x, char *buf, size_t n)
{
    char t[40];
    locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (c == (locale_t)0)
        return -1;
    locale_t old = uselocale(c);
    snprintf(t, sizeof t, "%.15g", x);
    if (strtod_l(t, NULL, c) != x)
        snprintf(t, sizeof t, "%.17g", x);
    uselocale(old);
    freelocale(c);
    return snprintf(buf, n, "%s", t);
}

/* What the option string cannot carry: an empty value, or a comma. */
static int representable(const char *s)
{
    return s[0] != '\0' && strchr(s, ',') == NULL;
}

int wasp_option_value_text(const wasp_option_row *r, const wasp_options *o, char *buf,
                           size_t n)
{
    const void *f = cfield_of(o, r);
    uint64_t v = 0;
    double d;
    int w = -1;
    if (!buf || n == 0)
        return -1;
    switch (r->kind) {
    case WASP_OPT_EVENTS:
        return events_text(load_uint(f, r->size), buf, n);
    case WASP_OPT_PATH:
    case WASP_OPT_TOKEN:
        if (!representable(f))
            return -1;
        w = snprintf(buf, n, "%s", (const char *)f);
        break;
    case WASP_OPT_CHOICE:
        v = load_uint(f, r->size);
        for (size_t i = 0; r->names[i]; i++)
            if (i == v)
                w = snprintf(buf, n, "%s", r->names[i]);
        break;
    case WASP_OPT_NUMBER:
        w = snprintf(buf, n, "%llu", (unsigned long long)load_uint(f, r->size));
        break;
    case WASP_OPT_DURATION:
        w = duration_text(load_uint(f, r->size), buf, n);
        break;
    case WASP_OPT_SHARE:
        memcpy(&d, f, sizeof d);
        w = share_text(d, buf, n);
        break;
    }
    return (w < 0 || (size_t)w >= n) ? -1 : 0;
}

int wasp_option_is_default(const wasp_option_row *r, const wasp_options *o)
{
    const void *f = cfield_of(o, r);
    double d;
    switch (r->kind) {
    case WASP_OPT_PATH:
    case WASP_OPT_TOKEN:
        return strcmp(f, r->def_text) == 0;
    case WASP_OPT_SHARE:
        memcpy(&d, f, sizeof d);
        return d == r->def_share;
    default:
        return load_uint(f, r->size) == r->def;
    }
}

void wasp_option_copy(const wasp_option_row *r, wasp_options *dst, const wasp_options *src)
{
    memcpy(field_of(dst, r), cfield_of(src, r), r->size);
}
