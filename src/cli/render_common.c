/* Choices both renderers make the same way; see render.h. */
#include "cli/render.h"

#include <string.h>

static bool has_data(const wasp_profile *p, wasp_analysis a)
{
    const wasp_totals *t = &p->totals[a];
    if (t->bytes != 0 || t->wasted != 0 || t->wasted_approx != 0 || t->pairs != 0)
        return true;
    for (uint32_t i = 0; i < p->npairs; i++)
        if (p->pairs[i].analysis == (uint32_t)a)
            return true;
    return false;
}

void wasp_report_enabled(const wasp_profile *p, bool enabled[WASP_AN_COUNT])
{
    for (int a = 0; a < WASP_AN_COUNT; a++)
        enabled[a] = has_data(p, (wasp_analysis)a);
    const char *ev = wasp_profile_get_meta(p, "events");
    while (ev && *ev) {
        size_t n = strcspn(ev, "+, ");
        char name[32];
        if (n > 0 && n < sizeof name) {
            memcpy(name, ev, n);
            name[n] = 0;
            int a = wasp_analysis_from_name(name);
            if (a >= 0)
                enabled[a] = true;
        }
        ev += n;
        ev += strspn(ev, "+, ");
    }
}

uint32_t wasp_report_shown(int top, uint32_t n)
{
    return top > 0 && (uint32_t)top < n ? (uint32_t)top : n;
}

const char *wasp_frame_kind_name(uint32_t kind)
{
    switch (kind) {
    case WASP_FRAME_JAVA: return "java";
    case WASP_FRAME_NATIVE: return "native";
    case WASP_FRAME_STUB: return "stub";
    default: return "unknown";
    }
}

bool wasp_has_counter(const wasp_profile *p, const char *name)
{
    for (uint32_t i = 0; i < p->ncounters; i++)
        if (strcmp(p->counters[i].name, name) == 0)
            return true;
    return false;
}
