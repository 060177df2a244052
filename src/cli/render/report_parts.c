/*
 * The registry of report parts, from catalog/list.h.
 */
#include "catalog/ids.h"
#include "cli/render/report_part.h"
#include "catalog/registry.h"

WASP_REGISTRY(wasp_report_part, wasp_report_, wasp_report_part_of)
