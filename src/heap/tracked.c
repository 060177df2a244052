/*
 * The tracked objects' process-wide state (see tracked.h).
 */
#include "heap/tracked.h"

wasp_tracked wasp_objects;
