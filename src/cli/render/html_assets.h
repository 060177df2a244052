/*
 * The HTML pages' stylesheet and scripts (src/cli/html/: report.css for
 * both pages, common.js the helpers both scripts use, report.js the report's
 * frame (tables, flame graphs, search; each analysis draws its own section
 * with a script of its own, html_part.h), diff.js the diff), built into the
 * command by html_assets.c so the pages they make need no file and no
 * network. NUL-terminated.
 */
#ifndef WASP_CLI_HTML_ASSETS_H
#define WASP_CLI_HTML_ASSETS_H

/* Defines the NUL-terminated array sym holding file's bytes (a path from the
 * repository root, where make runs the compiler; the Makefile makes the
 * object depend on the file). At file scope, once per file. */
#define WASP_INCBIN(sym, file)                                                                     \
    __asm__(".pushsection .rodata\n"                                                               \
            ".global " #sym "\n"                                                                   \
            ".type " #sym ", @object\n"                                                            \
            ".balign 16\n" #sym ":\n"                                                              \
            ".incbin \"" file "\"\n"                                                               \
            ".byte 0\n"                                                                            \
            ".size " #sym ", . - " #sym "\n"                                                       \
            ".popsection\n")

extern const char wasp_html_css[];
extern const char wasp_html_common_js[];
extern const char wasp_html_js[];
extern const char wasp_html_view_js[]; /* the sections drawn by views (view.h) */
extern const char wasp_html_diff_js[];

#endif
