/*
 * The fields analysis's section of the HTML report (cli/html_part.h): the
 * script report.js beside this file.
 */
#include "cli/html_part.h"

WASP_HTML_PART(fields, "src/analysis/fields/report.js");
