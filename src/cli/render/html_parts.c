/*
 * The registry of HTML parts (html_part.h), from catalog/list.h.
 */
#include "catalog/registry.h"
#include "cli/render/html_part.h"

WASP_REGISTRY(wasp_html_part, wasp_html_, wasp_html_part_of)
