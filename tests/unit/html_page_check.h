/* Test helpers shared by the unit tests of wasp's HTML pages (the report,
 * test_render_html.c; the diff, test_diff.c; both built by
 * src/cli/render/html_page.c): the page carries its JSON intact and inert, and is
 * whole (its style and scripts built in, nothing to fetch). Included by one
 * test file each. */
#ifndef WASP_TEST_HTML_PAGE_CHECK_H
#define WASP_TEST_HTML_PAGE_CHECK_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/render/html_assets.h"

/* s with every \u003c turned back into '<' (what JSON.parse reads). */
static char *unescape_lt(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    assert_non_null(out);
    while (*s) {
        if (strncmp(s, "\\u003c", 6) == 0) {
            *o++ = '<';
            s += 6;
        } else {
            *o++ = *s++;
        }
    }
    *o = 0;
    return out;
}

/* The page's data element holds json, and nothing in it could end it, open
 * a comment or a tag: no '<' at all. */
static void check_data_intact_and_inert(const char *html, const char *json)
{
    const char *open = "<script type=\"application/json\" id=\"wasp-data\">";
    const char *start = strstr(html, open);
    assert_non_null(start);
    start += strlen(open);
    const char *end = strstr(start, "</script>");
    assert_non_null(end);
    char *inside = strndup(start, (size_t)(end - start));
    assert_non_null(inside);
    assert_null(strchr(inside, '<'));
    char *data = unescape_lt(inside);
    assert_string_equal(data, json);
    free(data);
    free(inside);
}

/* The page is whole: its style and scripts (the shared helpers, then
 * script) built in, in that order; no address to fetch. */
static void check_page_whole(const char *html, const char *script)
{
    assert_true(strlen(wasp_html_css) > 100 && strlen(wasp_html_common_js) > 500 &&
                strlen(script) > 1000);
    assert_non_null(strstr(html, wasp_html_css));
    const char *common = strstr(html, wasp_html_common_js), *own = strstr(html, script);
    assert_non_null(common);
    assert_non_null(own);
    assert_true(common < own);
    const char *const assets[] = {wasp_html_css, wasp_html_common_js, script};
    for (size_t i = 0; i < sizeof assets / sizeof assets[0]; i++)
        assert_null(strstr(assets[i], "</"));
    assert_non_null(strstr(html, "Content-Security-Policy\" content=\"default-src 'none';"));
    assert_null(strstr(html, "http://"));
    assert_null(strstr(html, "https://"));
    assert_int_equal(strncmp(html, "<!DOCTYPE html>", 15), 0);
    const char *tail = "</script>\n</body>\n</html>\n";
    assert_true(strlen(html) > strlen(tail));
    assert_string_equal(html + strlen(html) - strlen(tail), tail);
}

#endif
