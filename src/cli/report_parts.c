/*
 * The registry of report parts, from analysis/list.h.
 */
#include "analysis/ids.h"
#include "cli/report_part.h"

#define WASP_ANALYSIS(name) extern const wasp_report_part wasp_report_##name;
#include "analysis/list.h"
#undef WASP_ANALYSIS

static const wasp_report_part *const parts[WASP_ANALYSES] = {
#define WASP_ANALYSIS(name) &wasp_report_##name,
#include "analysis/list.h"
#undef WASP_ANALYSIS
};

const wasp_report_part *wasp_report_part_of(int id)
{
    return id >= 0 && id < WASP_ANALYSES ? parts[id] : NULL;
}
