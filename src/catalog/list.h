/*
 * Every analysis wasp has, in the order reports show them. Each entry names
 * an analysis NAME whose code is in src/analysis/NAME/ (or is shared, as the
 * three pair analyses share src/analysis/pairs/). Each layer builds its
 * registry of parts from this list (catalog/registry.h), so adding an
 * analysis is adding its files and one entry here. The position is the
 * analysis id: its bit in the `events` option, its index in the profile
 * file's pair records (the first three), and the owner id of a watchpoint.
 * Append only: ids are in profile files.
 *
 * WASP_FOR_EACH_ANALYSIS(X, a, b) expands X(NAME, SUMMARY, a, b) for each
 * analysis; SUMMARY is its one-line description in help texts.
 */
#ifndef WASP_ANALYSIS_LIST_H
#define WASP_ANALYSIS_LIST_H

#define WASP_FOR_EACH_ANALYSIS(X, a, b)                                                            \
    X(deadstore, "stores overwritten before any load (JXPerf)", a, b)                              \
    X(silentstore, "stores of the value already there (JXPerf)", a, b)                             \
    X(silentload, "loads of a value unchanged since the last load (JXPerf)", a, b)                 \
    X(objects, "access cost by allocation site (DJXPerf)", a, b)                                   \
    X(replicas, "objects with identical contents (OJXPerf)", a, b)                                 \
    X(fields, "accessed classes, fields and heap areas (Inoue & Nakatani)", a, b)                  \
    X(alloc, "objects created, from sampled header stores", a, b)                                  \
    X(locks, "lock acquisitions and their slow paths", a, b)

#endif
