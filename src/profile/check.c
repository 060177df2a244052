/*
 * Are a profile's ids in range? The writer checks what the reader will
 * reject, so that a bad id becomes an error now rather than an unreadable
 * file later; merging and grouping check their source the same way, and then
 * follow its ids without checking each.
 */
#include "profile/internal.h"

#include <stdio.h>

static int names_check(const wasp_profile *p, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < p->nframes; i++)
        if (p->frames[i].name >= p->nstrings || p->frames[i].file >= p->nstrings) {
            snprintf(err, errlen, "frame %u refers to a missing string", i);
            return -1;
        }
    for (uint32_t i = 0; i < p->ncontexts; i++) {
        const wasp_context *c = &p->contexts[i];
        if (c->insn >= p->nstrings || c->first > p->nframe_refs ||
            c->nframes > p->nframe_refs - c->first) {
            snprintf(err, errlen, "context %u is out of range", i);
            return -1;
        }
        for (uint32_t j = 0; j < c->nframes; j++)
            if (p->frame_refs[c->first + j] >= p->nframes) {
                snprintf(err, errlen, "context %u refers to a missing frame", i);
                return -1;
            }
    }
    return 0;
}

int wasp_profile_check(const wasp_profile *p, char *err, size_t errlen)
{
    if (names_check(p, err, errlen) != 0)
        return -1;
    for (uint32_t i = 0; i < p->nsites; i++)
        if (p->sites[i].ctx >= p->ncontexts || p->sites[i].class_name >= p->nstrings) {
            snprintf(err, errlen, "site %u refers to a missing context or string", i);
            return -1;
        }
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_profile_part *part = wasp_profile_part_of(id);
        if (part->check && part->check(p, err, errlen) != 0)
            return -1;
    }
    return 0;
}
