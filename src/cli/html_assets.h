/*
 * The HTML report's stylesheet and script (src/cli/html/report.css and
 * report.js), built into the command by html_assets.c so the page they make
 * needs no file and no network. NUL-terminated.
 */
#ifndef WASP_CLI_HTML_ASSETS_H
#define WASP_CLI_HTML_ASSETS_H

extern const char wasp_html_css[];
extern const char wasp_html_js[];

#endif
