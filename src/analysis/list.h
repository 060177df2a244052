/*
 * Every analysis wasp has, in the order reports show them. Each entry names
 * an analysis NAME whose code is in src/analysis/NAME/ (or is shared, as the
 * three pair analyses share src/analysis/pairs/). Each layer builds its
 * registry of parts from this list (analysis/registry.h), so adding an
 * analysis is adding its files and one entry here. The position is the
 * analysis id: its bit in the `events` option, its index in the profile
 * file's pair records (the first three), and the owner id of a watchpoint.
 * Append only: ids are in profile files.
 *
 * WASP_FOR_EACH_ANALYSIS(X, a, b) expands X(NAME, a, b) for each analysis.
 */
#ifndef WASP_ANALYSIS_LIST_H
#define WASP_ANALYSIS_LIST_H

#define WASP_FOR_EACH_ANALYSIS(X, a, b)                                                            \
    X(deadstore, a, b)                                                                             \
    X(silentstore, a, b)                                                                           \
    X(silentload, a, b)                                                                            \
    X(objects, a, b)                                                                               \
    X(replicas, a, b)                                                                              \
    X(fields, a, b)                                                                                \
    X(alloc, a, b)                                                                                 \
    X(locks, a, b)

#endif
