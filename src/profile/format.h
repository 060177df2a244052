/*
 * Constants of the profile file (docs/profile-format.md is the full
 * description). Private to src/profile/.
 */
#ifndef WASP_PROFILE_FORMAT_H
#define WASP_PROFILE_FORMAT_H

#include <stdint.h>

#include "profile/part.h"

#define WASP_PROF_MAGIC "WASPPROF"
enum { WASP_PROF_MAGIC_LEN = 8 };

/* Bumped only for changes older readers cannot skip over; new data goes in
 * new sections, which older readers ignore. */
enum { WASP_PROF_VERSION = 1 };

/* The core's section tags (WASP_TAG, part.h); each analysis's part defines
 * its own. */
enum wasp_section_tag {
    WASP_SEC_END = WASP_TAG('E', 'N', 'D', '_'),
    WASP_SEC_META = WASP_TAG('M', 'E', 'T', 'A'),
    /* The metadata that are numbers, optional (written only when there are some). */
    WASP_SEC_META_NUMBERS = WASP_TAG('M', 'N', 'U', 'M'),
    WASP_SEC_STRINGS = WASP_TAG('S', 'T', 'R', 'S'),
    WASP_SEC_FRAMES = WASP_TAG('F', 'R', 'M', 'S'),
    WASP_SEC_CONTEXTS = WASP_TAG('C', 'T', 'X', 'S'),
    WASP_SEC_COUNTERS = WASP_TAG('C', 'N', 'T', 'R'),
    WASP_SEC_MERGED = WASP_TAG('M', 'R', 'G', 'D'),
    /* Allocation sites, optional (written only when there are some). */
    WASP_SEC_SITES = WASP_TAG('S', 'I', 'T', 'E'),
    /* CPU samples by source line, optional (cpu_lines.h). */
    WASP_SEC_CPU_LINES = WASP_TAG('C', 'P', 'U', 'L'),
    /* CPU samples by innermost line, optional (cpu_lines.h). */
    WASP_SEC_CPU_LEAVES = WASP_TAG('C', 'P', 'U', 'I'),
};

/* magic + version; a section header is tag + length; the trailer is the CRC. */
enum { WASP_PROF_HEADER_LEN = 12, WASP_SEC_HEADER_LEN = 12, WASP_PROF_CRC_LEN = 4 };

#endif
