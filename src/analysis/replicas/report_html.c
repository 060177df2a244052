/*
 * The replicas analysis's section of the HTML report (cli/html_part.h): the
 * script report.js beside this file.
 */
#include "cli/html_part.h"

WASP_HTML_PART(replicas, "src/analysis/replicas/report.js");
