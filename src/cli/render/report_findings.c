/* What the summary's findings share (report_part.h): where a finding is in
 * the application, the program's CPU samples, and the interval of a share. */
#include "common/wilson.h"
#include "cli/render/report_part.h"

#include <inttypes.h>
#include <string.h>

/* Packages whose frames are the JDK's, not the application's. */
static bool jdk_class(const char *name)
{
    static const char *const prefixes[] = {"java.", "javax.", "jdk.", "sun.", "com.sun."};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

const wasp_frame *wasp_place_frame(const wasp_profile *p, const wasp_context *c)
{
    if (c->nframes == 0)
        return NULL;
    const wasp_frame *java = NULL; /* the innermost JDK frame */
    for (uint32_t k = c->nframes; k-- > 0;) { /* leaf first */
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + k]];
        const char *name = wasp_profile_string(p, f->name);
        if (f->kind == WASP_FRAME_JAVA && name && *name && !jdk_class(name))
            return f;
        if (f->kind == WASP_FRAME_JAVA && !java)
            java = f;
    }
    /* no application frame: the JDK method that led there names more than
     * the native code under it (a memset of the JVM's) */
    return java ? java : &p->frames[p->frame_refs[c->first + c->nframes - 1]];
}

const wasp_frame *wasp_inner_java_frame(const wasp_profile *p, const wasp_context *c)
{
    for (uint32_t k = c->nframes; k-- > 0;) { /* leaf first */
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + k]];
        if (f->kind == WASP_FRAME_JAVA)
            return f;
    }
    return NULL;
}

const wasp_frame *wasp_place_inner(const wasp_profile *p, const wasp_context *c)
{
    const wasp_frame *at = wasp_place_frame(p, c), *inner = wasp_inner_java_frame(p, c);
    return inner && inner != at ? inner : NULL;
}

const char *wasp_frame_short(const wasp_profile *p, const wasp_frame *f, char *buf, size_t n)
{
    if (f->kind == WASP_FRAME_JAVA && f->file && f->line >= 0)
        snprintf(buf, n, "%s:%" PRId32, wasp_profile_string(p, f->file), f->line);
    else
        wasp_frame_label(p, f, buf, n);
    return buf;
}

const char *wasp_place_short(const wasp_profile *p, uint32_t ctx, char *buf, size_t n)
{
    const wasp_frame *f = ctx < p->ncontexts ? wasp_place_frame(p, &p->contexts[ctx]) : NULL;
    if (!f)
        snprintf(buf, n, "(no frames)");
    else
        wasp_frame_short(p, f, buf, n);
    return buf;
}

double wasp_report_samples_due(const wasp_profile *p)
{
    return (double)wasp_profile_get_counter(p, "samples") +
           (double)wasp_profile_get_counter(p, "sampler.paced_skips");
}

double wasp_report_taken_per_due(const wasp_profile *p)
{
    double due = wasp_report_samples_due(p);
    return due > 0 ? (double)wasp_profile_get_counter(p, "samples") / due : 1;
}

void wasp_wilson95(double k, double n, double *lo, double *hi)
{
    wasp_wilson_interval(k, n, lo, hi); /* θ's interval is this one too */
}
