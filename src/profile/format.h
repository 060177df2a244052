/*
 * Constants of the profile file (docs/profile-format.md is the full
 * description). Private to src/profile/.
 */
#ifndef WASP_PROFILE_FORMAT_H
#define WASP_PROFILE_FORMAT_H

#include <stdint.h>

#define WASP_PROF_MAGIC "WASPPROF"
enum { WASP_PROF_MAGIC_LEN = 8 };

/* Bumped only for changes older readers cannot skip over; new data goes in
 * new sections, which older readers ignore. */
enum { WASP_PROF_VERSION = 1 };

/* Section tags: four ASCII bytes, so they read well in a hex dump. */
#define WASP_TAG(a, b, c, d)                                                                       \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
enum wasp_section_tag {
    WASP_SEC_END = WASP_TAG('E', 'N', 'D', '_'),
    WASP_SEC_META = WASP_TAG('M', 'E', 'T', 'A'),
    WASP_SEC_STRINGS = WASP_TAG('S', 'T', 'R', 'S'),
    WASP_SEC_FRAMES = WASP_TAG('F', 'R', 'M', 'S'),
    WASP_SEC_CONTEXTS = WASP_TAG('C', 'T', 'X', 'S'),
    WASP_SEC_PAIRS = WASP_TAG('P', 'A', 'I', 'R'),
    WASP_SEC_TOTALS = WASP_TAG('T', 'O', 'T', 'L'),
    WASP_SEC_COUNTERS = WASP_TAG('C', 'N', 'T', 'R'),
    WASP_SEC_MERGED = WASP_TAG('M', 'R', 'G', 'D'),
    /* Object-centric data, optional (written only when there is some). */
    WASP_SEC_SITES = WASP_TAG('S', 'I', 'T', 'E'),
    WASP_SEC_ACCESSES = WASP_TAG('S', 'A', 'C', 'C'),
    /* Object replicas (OJXPerf), optional likewise. */
    WASP_SEC_REPLICAS = WASP_TAG('R', 'E', 'P', 'L'),
    WASP_SEC_REPLICA_CHECKS = WASP_TAG('R', 'C', 'H', 'K'),
};

/* magic + version; a section header is tag + length; the trailer is the CRC. */
enum { WASP_PROF_HEADER_LEN = 12, WASP_SEC_HEADER_LEN = 12, WASP_PROF_CRC_LEN = 4 };

#endif
