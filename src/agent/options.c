/*
 * Agent option string: "key=value,key=value". The keys, their values, ranges,
 * defaults and messages are the rows of option_table.c; values are read and
 * written by option_value.c.
 *
 * Rules beyond the rows:
 *  - Options are split at commas, and a key from its value at the first '=',
 *    so no value can contain a comma: file= and log= paths with a comma in
 *    them cannot be passed (wasp_options_format refuses them). A path may
 *    contain '='.
 *  - Empty items (",,"), empty values and unknown keys are errors. A key
 *    given twice: the last one wins.
 */
#include "agent/options.h"

#include "agent/option_table.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ITEM_SHOWN 200 /* longest piece of an item quoted back in a message */

void wasp_options_defaults(wasp_options *o)
{
    memset(o, 0, sizeof *o); /* padding too: callers compare whole structs */
    const wasp_option_row *r;
    for (size_t i = 0; (r = wasp_option_at(i)); i++)
        wasp_option_set_default(r, o);
}

#define set_err wasp_option_error

/* "accepted: events, file, ..." in table order. */
static const char *accepted_keys(char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "accepted:");
    const wasp_option_row *r;
    for (size_t i = 0; (r = wasp_option_at(i)) && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s %s", i ? "," : "", r->key);
    return buf;
}

/* One "key=value" item of length len (not NUL-terminated). */
static int parse_item(const char *item, size_t len, wasp_options *o, char *err, size_t errlen)
{
    int shown = (int)(len < ITEM_SHOWN ? len : ITEM_SHOWN);
    const char *eq = memchr(item, '=', len);
    size_t keylen = eq ? (size_t)(eq - item) : len;
    const wasp_option_row *r = wasp_option_find(item, keylen);
    char keys[512], accepted[512];
    if (!r) {
        set_err(err, errlen, "wasp: unknown option '%.*s' (%s)",
                (int)(keylen < ITEM_SHOWN ? keylen : ITEM_SHOWN), item,
                accepted_keys(keys, sizeof keys));
        return -1;
    }
    if (!eq) {
        set_err(err, errlen, "wasp: bad option '%.*s': missing '=value', expected %s", shown, item,
                wasp_option_accepted(r, accepted, sizeof accepted));
        return -1;
    }
    char value[WASP_PATH_MAX];
    size_t vlen = len - keylen - 1;
    char detail[512] = "";
    int rc = -1;
    if (vlen < sizeof value) {
        memcpy(value, eq + 1, vlen);
        value[vlen] = '\0';
        rc = wasp_option_set(r, o, value, detail, sizeof detail);
    }
    if (rc < 0) {
        if (detail[0])
            set_err(err, errlen, "wasp: bad option '%.*s': %s", shown, item, detail);
        else
            set_err(err, errlen, "wasp: bad option '%.*s': expected %s", shown, item,
                    wasp_option_accepted(r, accepted, sizeof accepted));
        return -1;
    }
    return 0;
}

int wasp_options_parse(const char *s, wasp_options *o, char *err, size_t errlen)
{
    /* Parse into a copy so a failed parse leaves o untouched. */
    wasp_options tmp;
    char keys[512];
    wasp_options_defaults(&tmp);
    if (s && *s) {
        for (const char *p = s;;) {
            size_t len = strcspn(p, ",");
            if (len == 0) {
                set_err(err, errlen,
                        "wasp: empty option in '%.*s': expected key=value items separated by "
                        "single commas (%s)",
                        ITEM_SHOWN, s, accepted_keys(keys, sizeof keys));
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

int wasp_options_format(const wasp_options *o, char *buf, size_t buflen)
{
    if (!buf || buflen == 0)
        return -1;
    buf[0] = '\0';
    size_t len = 0;
    const wasp_option_row *r;
    /* Non-default values in table order, the WASP_OPT_LAST rows after the others. */
    for (int last = 0; last <= 1; last++)
        for (size_t i = 0; (r = wasp_option_at(i)); i++) {
            if (!!(r->cli & WASP_OPT_LAST) != last || wasp_option_is_default(r, o))
                continue;
            int w = snprintf(buf + len, buflen - len, "%s%s=", len ? "," : "", r->key);
            if (w < 0 || (size_t)w >= buflen - len ||
                wasp_option_value_text(r, o, buf + len + (size_t)w, buflen - len - (size_t)w) < 0) {
                buf[0] = '\0';
                return -1;
            }
            len += (size_t)w;
            len += strlen(buf + len);
        }
    return (int)len;
}
