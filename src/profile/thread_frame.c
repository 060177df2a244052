/* The thread of a calling context, as its root pseudo frame (thread_frame.h). */
#include "profile/thread_frame.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void wasp_thread_group(const char *name, char *out, size_t n)
{
    size_t k = 0;
    for (const char *s = name; *s && k + 1 < n; s++) {
        bool digit = *s >= '0' && *s <= '9';
        if (!digit)
            out[k++] = *s;
        else if (s == name || !(s[-1] >= '0' && s[-1] <= '9'))
            out[k++] = '#'; /* the first digit of a run */
    }
    if (n)
        out[k] = 0;
}

uint32_t wasp_profile_thread_frame(wasp_profile *p, const char *name)
{
    char group[128], label[160];
    wasp_thread_group(name && *name ? name : "?", group, sizeof group);
    snprintf(label, sizeof label, WASP_THREAD_FRAME_PREFIX "%s]", group);
    uint32_t s = wasp_profile_intern_string(p, label);
    if (s == UINT32_MAX)
        return UINT32_MAX;
    wasp_frame f = {.kind = WASP_FRAME_UNKNOWN, .name = s, .file = 0, .line = -1};
    return wasp_profile_intern_frame(p, &f);
}

const char *wasp_context_thread(const wasp_profile *p, const wasp_context *c, size_t *len)
{
    if (c->nframes == 0)
        return NULL;
    const wasp_frame *f = &p->frames[p->frame_refs[c->first]];
    const char *name = f->kind == WASP_FRAME_UNKNOWN ? wasp_profile_string(p, f->name) : NULL;
    size_t prefix = sizeof WASP_THREAD_FRAME_PREFIX - 1, n = name ? strlen(name) : 0;
    if (n <= prefix || strncmp(name, WASP_THREAD_FRAME_PREFIX, prefix) != 0 || name[n - 1] != ']')
        return NULL;
    *len = n - prefix - 1;
    return name + prefix;
}
