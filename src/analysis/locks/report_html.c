/*
 * The locks analysis's section of the HTML report (cli/render/html_part.h): the
 * script report.js beside this file.
 */
#include "cli/render/html_part.h"

WASP_HTML_PART(locks, "src/analysis/locks/report.js");
