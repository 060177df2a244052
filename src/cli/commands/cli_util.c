#include "cli/commands/cli_util.h"

#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common/parse.h"
#include <unistd.h>

/* v into *out when within [lo, hi]: 0, else -1. */
static int wasp_cli_parse_uint_range(uint64_t v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int wasp_cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t v;
    return wasp_parse_u64(s, &v) < 0 ? -1 : wasp_cli_parse_uint_range(v, lo, hi, out);
}

int wasp_cli_parse_seconds(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    static const struct { char unit; uint64_t seconds; } units[] = {{'s', 1}, {'m', 60}, {'h', 3600}};
    size_t n = strlen(s);
    char digits[24];
    uint64_t scale = 1, v;
    for (size_t i = 0; n > 1 && i < sizeof units / sizeof units[0]; i++)
        if (s[n - 1] == units[i].unit) {
            scale = units[i].seconds;
            n--;
            break;
        }
    if (n >= sizeof digits)
        return -1;
    memcpy(digits, s, n);
    digits[n] = '\0';
    if (wasp_parse_u64(digits, &v) < 0 || v > hi / scale)
        return -1;
    return wasp_cli_parse_uint_range(v * scale, lo, hi, out);
}

int wasp_cli_abs_path(const char *cwd, const char *path, char *out, size_t outlen)
{
    int n;
    if (!path || !*path)
        return -1;
    if (path[0] == '/')
        n = snprintf(out, outlen, "%s", path);
    else if (cwd[0] && cwd[strlen(cwd) - 1] == '/') /* cwd "/" */
        n = snprintf(out, outlen, "%s%s", cwd, path);
    else
        n = snprintf(out, outlen, "%s/%s", cwd, path);
    return (n < 0 || (size_t)n >= outlen) ? -1 : 0;
}

int wasp_cli_exe_dir(char *out, size_t outlen)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash)
        return -1;
    if (slash == buf) /* executable in "/" */
        slash++;
    *slash = '\0';
    int w = snprintf(out, outlen, "%s", buf);
    return (w < 0 || (size_t)w >= outlen) ? -1 : 0;
}

const char *wasp_cli_option_detail(const char *msg, const char *item)
{
    static const char bad[] = "wasp: bad option '";
    /* options.c quotes at most this many bytes of an item (ITEM_SHOWN). */
    size_t blen = sizeof bad - 1, ilen = strlen(item);
    if (ilen > WASP_CLI_ITEM_SHOWN)
        ilen = WASP_CLI_ITEM_SHOWN;
    if (strncmp(msg, bad, blen) == 0 && strncmp(msg + blen, item, ilen) == 0 &&
        strncmp(msg + blen + ilen, "': ", 3) == 0)
        return msg + blen + ilen + 3;
    if (strncmp(msg, "wasp: ", 6) == 0)
        return msg + 6;
    return msg;
}

const char *wasp_cli_option_value(int argc, char **argv, int *i, const char *name,
                                  bool *matched)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    *matched = strncmp(a, name, n) == 0 && (a[n] == 0 || a[n] == '=');
    if (!*matched)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

int wasp_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "wasp %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'wasp %s --help'.\n", cmd);
    va_end(ap);
    return 2;
}

int wasp_cli_bad_option(char *err, size_t errlen, const char *option, const char *value,
                        const char *expected)
{
    bool has = value && *value;
    snprintf(err, errlen, "bad option '%s%s%.*s': %s", option, has ? " " : "",
             WASP_CLI_ITEM_SHOWN, has ? value : "", expected);
    return -1;
}

void wasp_cli_join_names(const char *const *names, size_t n, const char *sep,
                         const char *last_sep, char *out, size_t outlen)
{
    size_t len = 0, left = 0;
    for (size_t i = 0; i < n; i++)
        left += names[i] != NULL;
    out[0] = '\0';
    for (size_t i = 0, k = 0; i < n && len < outlen; i++) {
        if (!names[i])
            continue;
        const char *before = k == 0 ? "" : k + 1 == left ? last_sep : sep;
        int w = snprintf(out + len, outlen - len, "%s%s", before, names[i]);
        if (w < 0)
            return;
        len += (size_t)w;
        k++;
    }
}

int wasp_cli_parse_choice(const char *option, const char *value, const char *const *names,
                          size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; value && i < n; i++)
        if (names[i] && strcmp(value, names[i]) == 0)
            return (int)i;
    char list[256], expected[270];
    wasp_cli_join_names(names, n, ", ", " or ", list, sizeof list);
    snprintf(expected, sizeof expected, "expected %s", list);
    return wasp_cli_bad_option(err, errlen, option, value, expected);
}
