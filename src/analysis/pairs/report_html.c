/*
 * The pair analyses' sections of the HTML report (cli/html_part.h): one
 * script, report.js beside this file, for the three.
 */
#include "cli/html_part.h"

WASP_INCBIN(wasp_html_script_pairs, "src/analysis/pairs/report.js");
extern const char wasp_html_script_pairs[];

const wasp_html_part wasp_html_deadstore = {wasp_html_script_pairs};
const wasp_html_part wasp_html_silentstore = {wasp_html_script_pairs};
const wasp_html_part wasp_html_silentload = {wasp_html_script_pairs};
