/*
 * Analysis names (names.c), from catalog/list.h.
 */
#ifndef WASP_ANALYSIS_NAMES_H
#define WASP_ANALYSIS_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/ids.h"

/* "deadstore", ..., "replicas"; NULL when out of range. */
const char *wasp_analysis_id_name(int id);
/* Its one-line description for help texts; NULL when out of range. */
const char *wasp_analysis_summary(int id);
/* The id of a name, -1 when unknown. */
int wasp_analysis_id_from_name(const char *name);
/* The names of the ids in `ids` (a bit per id) joined by '+', in id order
 * ("deadstore+objects"); "" for none. Truncated at a name to fit len. */
void wasp_analysis_ids_format(uint32_t ids, char *buf, size_t len);

#endif
