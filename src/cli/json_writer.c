/* Streaming JSON output; see json_writer.h. */
#include "cli/json_writer.h"

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
        fputc(',', j->out);
    if (j->depth > 0) {
        if (in_compact(j)) {
            if (!j->first[j->depth])
                fputc(' ', j->out);
        } else {
            fputc('\n', j->out);
            for (int i = 0; i < j->depth; i++)
                fputs("  ", j->out);
        }
    }
    j->first[j->depth] = false;
    if (key) {
        wasp_json_escape(j->out, key);
        fputs(": ", j->out);
    }
}

static void begin(wasp_json *j, const char *key, bool compact, char open)
{
    member(j, key);
    fputc(open, j->out);
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
        fputc('\n', j->out);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->out);
    }
    fputc(close, j->out);
    if (j->depth == 0)
        fputc('\n', j->out);
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
        fputs("null", j->out);
}

/* Shortest of %.15g / %.17g that reads back as the same double. */
void wasp_json_double(wasp_json *j, const char *key, double v)
{
    member(j, key);
    if (!isfinite(v)) {
        fputs("null", j->out);
        return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.17g", v);
    /* Keep doubles recognisably doubles for readers that type numbers (37000.0). */
    if (!strpbrk(buf, ".eE"))
        strcat(buf, ".0");
    fputs(buf, j->out);
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

void wasp_json_bool(wasp_json *j, const char *key, bool v)
{
    member(j, key);
    fputs(v ? "true" : "false", j->out);
}

void wasp_json_null(wasp_json *j, const char *key)
{
    member(j, key);
    fputs("null", j->out);
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
    fputc('"', out);
    while (*s) {
        unsigned c = *s;
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc((int)c, out);
        } else if (c == '\n') {
            fputs("\\n", out);
        } else if (c == '\t') {
            fputs("\\t", out);
        } else if (c == '\r') {
            fputs("\\r", out);
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
        } else if (c < 0x80) {
            fputc((int)c, out);
        } else {
            int n = utf8_len(s); /* stops at the terminator: it is no continuation byte */
            if (n == 0) {
                fputs("\\ufffd", out);
                n = 1;
            } else {
                fwrite(s, 1, (size_t)n, out);
            }
            s += n;
            continue;
        }
        s++;
    }
    fputc('"', out);
}
