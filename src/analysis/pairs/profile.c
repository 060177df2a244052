/*
 * The pair analyses' parts in the profile: none of their own. Their pairs
 * and totals are the profile's core (profile.h: one PAIR section keyed by
 * analysis, one TOTL), shared machinery like contexts, so these parts are
 * empty.
 */
#include "profile/part.h"

const wasp_profile_part wasp_profile_part_deadstore = {0};
const wasp_profile_part wasp_profile_part_silentstore = {0};
const wasp_profile_part wasp_profile_part_silentload = {0};
