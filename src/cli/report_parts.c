/*
 * The registry of report parts, from analysis/list.h.
 */
#include "analysis/ids.h"
#include "cli/report_part.h"
#include "analysis/registry.h"

WASP_REGISTRY(wasp_report_part, wasp_report_, wasp_report_part_of)
