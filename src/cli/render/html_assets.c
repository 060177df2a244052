/*
 * The HTML pages' CSS and JavaScript (html_assets.h), kept as ordinary files under
 * src/cli/html/ (readable, diffable) and included byte for byte by the
 * assembler's .incbin, each followed by a NUL. The path is relative to the
 * repository root, where make runs the compiler; the Makefile makes this
 * object depend on those files.
 */
#include "cli/render/html_assets.h"

WASP_INCBIN(wasp_html_css, "src/cli/html/report.css");
WASP_INCBIN(wasp_html_common_js, "src/cli/html/common.js");
WASP_INCBIN(wasp_html_js, "src/cli/html/report.js");
WASP_INCBIN(wasp_html_diff_js, "src/cli/html/diff.js");
WASP_INCBIN(wasp_html_view_js, "src/cli/html/view.js");
