/*
 * wasp's HTML pages (the report, the diff): one file that opens from disk and
 * fetches nothing. A page holds a JSON document as data (in
 * <script type="application/json" id="wasp-data">, every '<' written as
 * \u003c) and a script that draws it in the browser, so the JSON stays the
 * one description of what the page shows.
 */
#ifndef WASP_CLI_HTML_PAGE_H
#define WASP_CLI_HTML_PAGE_H

#include <stdio.h>

/* Writes the page's data: 0, or -1 when out of memory. */
typedef int (*wasp_html_data_fn)(const void *arg, FILE *out);

/* A page titled title whose data data(arg) writes, drawn by scripts (a
 * NULL-terminated list, each in its own element, in order, after the shared
 * helpers, src/cli/html/common.js). 0, or -1 when out of memory or data
 * failed; write errors stay in out's error flag for the caller. */
int wasp_html_page(const char *title, const char *const *scripts, wasp_html_data_fn data,
                   const void *arg, FILE *out);

#endif
