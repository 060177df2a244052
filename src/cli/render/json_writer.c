/* Streaming JSON output; see json_writer.h. */
/* The writer is used by one thread: stdio's unlocked calls (GNU) halve a large
 * report's time, which was spent taking the FILE lock per call. */
#include "cli/render/json_writer.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void wasp_json_init(wasp_json *j, FILE *out)
{
    *j = (wasp_json){.out = out};
    j->first[0] = true;
}

static bool in_compact(const wasp_json *j)
{
    return j->compact[j->depth];
}

/* Separator, newline and indentation before a value, then "key": . */
static void member(wasp_json *j, const char *key)
{
    if (!j->first[j->depth])
        fputc_unlocked(',', j->out);
    if (j->depth > 0) {
        if (in_compact(j)) {
            if (!j->first[j->depth])
                fputc_unlocked(' ', j->out);
        } else {
            fputc_unlocked('\n', j->out);
            for (int i = 0; i < j->depth; i++)
                fputs_unlocked("  ", j->out);
        }
    }
    j->first[j->depth] = false;
    if (key) {
        wasp_json_escape(j->out, key);
        fputs_unlocked(": ", j->out);
    }
}

static void begin(wasp_json *j, const char *key, bool compact, char open)
{
    member(j, key);
    fputc_unlocked(open, j->out);
    if (j->depth + 1 >= WASP_JSON_MAX_DEPTH)
        abort(); /* a renderer bug: nesting is fixed by the schema */
    bool parent_compact = in_compact(j);
    j->depth++;
    j->first[j->depth] = true;
    j->compact[j->depth] = compact || parent_compact;
}

static void end(wasp_json *j, char close)
{
    bool empty = j->first[j->depth], compact = in_compact(j);
    j->depth--;
    if (!empty && !compact) {
        fputc_unlocked('\n', j->out);
        for (int i = 0; i < j->depth; i++)
            fputs_unlocked("  ", j->out);
    }
    fputc_unlocked(close, j->out);
    if (j->depth == 0)
        fputc_unlocked('\n', j->out);
}

void wasp_json_begin_object(wasp_json *j, const char *key, bool compact)
{
    begin(j, key, compact, '{');
}
void wasp_json_end_object(wasp_json *j)
{
    end(j, '}');
}
void wasp_json_begin_array(wasp_json *j, const char *key, bool compact)
{
    begin(j, key, compact, '[');
}
void wasp_json_end_array(wasp_json *j)
{
    end(j, ']');
}

void wasp_json_string(wasp_json *j, const char *key, const char *s)
{
    member(j, key);
    if (s)
        wasp_json_escape(j->out, s);
    else
        fputs_unlocked("null", j->out);
}

/* Shortest of %.15g / %.17g that reads back as the same double. */
void wasp_json_double(wasp_json *j, const char *key, double v)
{
    member(j, key);
    if (!isfinite(v)) {
        fputs_unlocked("null", j->out);
        return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.17g", v);
    /* Keep doubles recognisably doubles for readers that type numbers (37000.0). */
    if (!strpbrk(buf, ".eE"))
        strcat(buf, ".0");
    fputs_unlocked(buf, j->out);
}

void wasp_json_u64(wasp_json *j, const char *key, uint64_t v)
{
    member(j, key);
    fprintf(j->out, "%" PRIu64, v);
}

void wasp_json_i64(wasp_json *j, const char *key, int64_t v)
{
    member(j, key);
    fprintf(j->out, "%" PRId64, v);
}

void wasp_json_raw(wasp_json *j, const char *key, const char *text, size_t len)
{
    member(j, key);
    fwrite_unlocked(text, 1, len, j->out);
}

void wasp_json_bool(wasp_json *j, const char *key, bool v)
{
    member(j, key);
    fputs_unlocked(v ? "true" : "false", j->out);
}

void wasp_json_null(wasp_json *j, const char *key)
{
    member(j, key);
    fputs_unlocked("null", j->out);
}

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 when it is not one. */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    int n;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

void wasp_json_escape(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc_unlocked('"', out);
    while (*s) {
        /* Plain ASCII, by far the most of a report, goes out in one write. */
        const unsigned char *run = s;
        while (*s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\')
            s++;
        if (s > run)
            fwrite_unlocked(run, 1, (size_t)(s - run), out);
        if (!*s)
            break;
        unsigned c = *s;
        if (c == '"' || c == '\\') {
            fputc_unlocked('\\', out);
            fputc_unlocked((int)c, out);
        } else if (c == '\n') {
            fputs_unlocked("\\n", out);
        } else if (c == '\t') {
            fputs_unlocked("\\t", out);
        } else if (c == '\r') {
            fputs_unlocked("\\r", out);
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
        } else if (c < 0x80) {
            fputc_unlocked((int)c, out);
        } else {
            int n = utf8_len(s); /* stops at the terminator: it is no continuation byte */
            if (n == 0) {
                fputs_unlocked("\\ufffd", out);
                n = 1;
            } else {
                fwrite_unlocked(s, 1, (size_t)n, out);
            }
            s += n;
            continue;
        }
        s++;
    }
    fputc_unlocked('"', out);
}
