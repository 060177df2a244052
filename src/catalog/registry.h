/*
 * A layer's registry of analysis parts, from catalog/list.h:
 *
 *   WASP_REGISTRY(wasp_report_part, wasp_report_, wasp_report_part_of)
 *
 * declares `const wasp_report_part wasp_report_NAME` for every analysis NAME
 * (each analysis defines its own) and defines the accessor
 * `const wasp_report_part *wasp_report_part_of(int id)`, NULL out of range.
 */
#ifndef WASP_ANALYSIS_REGISTRY_H
#define WASP_ANALYSIS_REGISTRY_H

#include <stddef.h>

#include "catalog/ids.h"
#include "catalog/list.h"

#define WASP_REGISTRY_EXTERN_(name, summary, type, prefix) extern const type prefix##name;
#define WASP_REGISTRY_ENTRY_(name, summary, type, prefix) &prefix##name,

#define WASP_REGISTRY(type, prefix, accessor)                                                     \
    WASP_FOR_EACH_ANALYSIS(WASP_REGISTRY_EXTERN_, type, prefix)                                    \
    static const type *const registry_[WASP_ANALYSES] = {                                          \
        WASP_FOR_EACH_ANALYSIS(WASP_REGISTRY_ENTRY_, type, prefix)};                              \
    const type *accessor(int id)                                                                   \
    {                                                                                              \
        return id >= 0 && id < WASP_ANALYSES ? registry_[id] : NULL;                               \
    }

#endif
