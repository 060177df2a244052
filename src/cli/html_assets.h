/*
 * The HTML pages' stylesheet and scripts (src/cli/html/: report.css for
 * both pages, common.js the helpers both scripts use, report.js the report,
 * diff.js the diff), built into the command by html_assets.c so the pages
 * they make need no file and no network. NUL-terminated.
 */
#ifndef WASP_CLI_HTML_ASSETS_H
#define WASP_CLI_HTML_ASSETS_H

extern const char wasp_html_css[];
extern const char wasp_html_common_js[];
extern const char wasp_html_js[];
extern const char wasp_html_diff_js[];

#endif
