/*
 * An analysis's part in the HTML report (--format html, render_html.c): a
 * script that draws its section from its member of the JSON report. The
 * page loads common.js, then src/cli/html/report.js (the frame: header,
 * search, flame graphs and ranked tables, as waspReport.kit), then the
 * scripts of the analyses the report shows, each calling
 *
 *   waspReport.section(NAME or [NAMES], function (data, name) {...}, {legend: {...}})
 *
 * for the JSON member(s) it draws (NAME in "analyses", or at the top level);
 * then the page draws every member that has a section, in the JSON's order,
 * naming none. Registry: cli/render/html_parts.c, from catalog/list.h; the files
 * are src/analysis/NAME/report_html.c and its script report.js
 * (WASP_HTML_PART). A script must not hold "</" (it would end its element).
 */
#ifndef WASP_CLI_HTML_PART_H
#define WASP_CLI_HTML_PART_H

#include "cli/render/html_assets.h"

typedef struct wasp_html_part {
    const char *script; /* NULL: no section in the HTML report */
} wasp_html_part;

/* The HTML part of analysis id; NULL when out of range. */
const wasp_html_part *wasp_html_part_of(int id);

/* The part wasp_html_NAME whose script is file (from the repository root). */
#define WASP_HTML_PART(name, file)                                                                 \
    WASP_INCBIN(wasp_html_script_##name, file);                                                    \
    extern const char wasp_html_script_##name[];                                                   \
    const wasp_html_part wasp_html_##name = {wasp_html_script_##name}

#endif
