/* Frame patterns and the report's stack filter (frame_filter.h). */
#include "cli/render/frame_filter.h"
#include "cli/render/thread_filter.h"

#include <stdio.h>
#include <string.h>

bool wasp_glob_match(const char *pattern, const char *s)
{
    /* Backtracking to the last '*' only: linear enough for method names. */
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*pattern == '*') {
            star = pattern++;
            resume = s;
        } else if (*pattern == '?' || *pattern == *s) {
            pattern++;
            s++;
        } else if (star) {
            pattern = star + 1;
            s = ++resume;
        } else
            return false;
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == 0;
}

const char *wasp_frame_method(const wasp_profile *p, const wasp_frame *f)
{
    const char *name = wasp_profile_string(p, f->name);
    if (!name)
        return "";
    const char *tick = f->kind == WASP_FRAME_NATIVE ? strchr(name, '`') : NULL;
    return tick ? tick + 1 : name;
}

bool wasp_context_matches(const wasp_profile *p, const wasp_context *c,
                          const char *const *patterns, int n)
{
    for (uint32_t k = 0; k < c->nframes; k++) {
        const char *m = wasp_frame_method(p, &p->frames[p->frame_refs[c->first + k]]);
        for (int i = 0; i < n; i++)
            if (wasp_glob_match(patterns[i], m))
                return true;
    }
    return false;
}

bool wasp_frame_filter_hides(const wasp_profile *p, const wasp_context *c, const void *arg)
{
    const wasp_frame_filter *f = arg;
    if (f->ninclude > 0 && !wasp_context_matches(p, c, f->include, f->ninclude))
        return true;
    if (f->nthread > 0 && !wasp_thread_matches(p, c, f->thread, f->nthread))
        return true;
    return wasp_context_matches(p, c, f->exclude, f->nexclude);
}

bool wasp_context_hidden(const wasp_profile *p, const wasp_context *c)
{
    if (c->nframes != 1)
        return false;
    const wasp_frame *f = &p->frames[p->frame_refs[c->first]];
    const char *name = wasp_profile_string(p, f->name);
    return f->kind == WASP_FRAME_UNKNOWN && name && strcmp(name, WASP_HIDDEN_FRAME) == 0;
}

const char *wasp_frame_filter_text(const wasp_frame_filter *f, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < f->ninclude + f->nexclude + f->nthread && used < n; i++) {
        bool inc = i < f->ninclude, exc = !inc && i < f->ninclude + f->nexclude;
        int w = snprintf(buf + used, n - used, "%s--%s %s", used ? " " : "",
                         inc ? "include" : exc ? "exclude" : "thread",
                         inc   ? f->include[i]
                         : exc ? f->exclude[i - f->ninclude]
                               : f->thread[i - f->ninclude - f->nexclude]);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}
