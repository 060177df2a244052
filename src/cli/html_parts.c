/*
 * The registry of HTML parts (html_part.h), from analysis/list.h.
 */
#include "analysis/registry.h"
#include "cli/html_part.h"

WASP_REGISTRY(wasp_html_part, wasp_html_, wasp_html_part_of)
