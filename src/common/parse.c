/*
 * Number parsing (see parse.h).
 */
#include "common/parse.h"

int wasp_parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!s || *s == '\0')
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}
