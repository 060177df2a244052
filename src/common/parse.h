/*
 * Number parsing shared by the agent's options and the command line.
 */
#ifndef WASP_PARSE_H
#define WASP_PARSE_H

#include <stdint.h>

/* Unsigned decimal: digits only (no sign, no spaces, not empty), no overflow.
 * Returns 0, or -1 leaving *out untouched. */
int wasp_parse_u64(const char *s, uint64_t *out);

#endif
