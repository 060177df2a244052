/*
 * Every analysis wasp has, in the order reports show them. Each line names
 * an analysis NAME whose code is in src/analysis/NAME/ (or is shared, as the
 * three pair analyses share src/analysis/pairs/). Each layer builds its own
 * registry from this list with an X-macro:
 *
 *   #define WASP_ANALYSIS(name) extern const wasp_report_part wasp_report_##name;
 *   #include "analysis/list.h"
 *   #undef WASP_ANALYSIS
 *
 * so adding an analysis is adding its files and one line here. The position
 * is the analysis id: its bit in the `events` option, its index in the
 * profile file's pair records (the first three), and the owner id of a
 * watchpoint. Append only: ids are in profile files.
 *
 * No include guard: included once per registry, with WASP_ANALYSIS defined.
 */
WASP_ANALYSIS(deadstore)
WASP_ANALYSIS(silentstore)
WASP_ANALYSIS(silentload)
WASP_ANALYSIS(objects)
WASP_ANALYSIS(replicas)
