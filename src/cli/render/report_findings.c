/* What the summary's findings share (report_part.h): where a finding is in
 * the application, the program's CPU samples, and the interval of a share. */
#include "common/wilson.h"
#include "cli/render/report_part.h"

#include <inttypes.h>
#include <string.h>

/* Packages whose frames are the JDK's, not the application's (org.xml.sax
 * and org.w3c.dom: the java.xml module's standard APIs, as javax.xml). */
static bool jdk_class(const char *name)
{
    static const char *const prefixes[] = {"java.",  "javax.",       "jdk.",
                                           "sun.",   "com.sun.",     "org.xml.sax.",
                                           "org.w3c.dom."};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

/* The place among the context's first n frames from the root (n <= nframes):
 * wasp_place_frame's rule; with app_only, NULL where none is application code. */
static const wasp_frame *place_among(const wasp_profile *p, const wasp_context *c, uint32_t n,
                                     bool app_only)
{
    if (n == 0)
        return NULL;
    const wasp_frame *java = NULL; /* the innermost JDK frame */
    for (uint32_t k = n; k-- > 0;) { /* leaf first */
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + k]];
        const char *name = wasp_profile_string(p, f->name);
        if (f->kind == WASP_FRAME_JAVA && name && *name && !jdk_class(name))
            return f;
        if (f->kind == WASP_FRAME_JAVA && !java)
            java = f;
    }
    if (app_only)
        return NULL;
    /* no application frame: the JDK method that led there names more than
     * the native code under it (a memset of the JVM's) */
    return java ? java : &p->frames[p->frame_refs[c->first + n - 1]];
}

/* A constructor of an exception, by its class's name (the convention
 * every JDK and library exception follows): ...Exception, ...Error, and
 * java.lang.Throwable's own. */
static bool exception_constructor(const char *name)
{
    static const char *const ends[] = {"Exception", "Error", "Throwable"};
    const char *dot = strrchr(name, '.');
    if (!dot || strcmp(dot, ".<init>") != 0)
        return false;
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
        size_t n = strlen(ends[i]);
        if ((size_t)(dot - name) >= n && strncmp(dot - n, ends[i], n) == 0)
            return true;
    }
    return false;
}

/* How many frames from the leaf fill in a new exception's stack trace:
 * Throwable.fillInStackTrace and the code under it, and the exception's
 * constructors that called it (its class's and its superclasses'); 0 when
 * the context runs no fillInStackTrace, or nothing calls those
 * constructors. Its place is then where the exception is created, not
 * inside an exception class of the application's (a MyException.<init>
 * would gather every throw of it into one place). */
static uint32_t filling_in(const wasp_profile *p, const wasp_context *c)
{
    static const char fill_in[] = "java.lang.Throwable.fillInStackTrace";
    uint32_t k = c->nframes;
    while (k-- > 0) { /* leaf first, to the fill-in frame */
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + k]];
        const char *name = wasp_profile_string(p, f->name);
        if (f->kind == WASP_FRAME_JAVA && name && !strcmp(name, fill_in))
            break;
    }
    if (k >= c->nframes) /* wrapped: no fill-in */
        return 0;
    while (k-- > 0) { /* on through the constructors (and the Java fillInStackTrace
                       * that called the native one) */
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + k]];
        const char *name = wasp_profile_string(p, f->name);
        if (f->kind != WASP_FRAME_JAVA || !name ||
            (!exception_constructor(name) && strcmp(name, fill_in) != 0))
            return c->nframes - k - 1;
    }
    return 0; /* constructors to the root: no caller to name */
}

bool wasp_context_passes(const wasp_profile *p, const wasp_context *c, uint32_t frame)
{
    for (uint32_t k = 0; k < c->nframes; k++)
        if (p->frame_refs[c->first + k] == frame)
            return true;
    return false;
}

const wasp_frame *wasp_place_frame(const wasp_profile *p, const wasp_context *c)
{
    uint32_t skip = filling_in(p, c);
    const wasp_frame *at = skip ? place_among(p, c, c->nframes - skip, true) : NULL;
    return at ? at : place_among(p, c, c->nframes, false);
}

static bool is_constructor_of(const char *name, const char *cls, size_t len)
{
    return !strncmp(name, cls, len) && !strcmp(name + len, ".<init>");
}

/* How many frames from the leaf construct the new object of class created:
 * those up to its class's innermost <init>, when only constructors (its
 * superclasses', which that one calls), the JDK's methods and native code
 * run above it; 0 when the leaf is not within such a constructor. */
static uint32_t constructing(const wasp_profile *p, const wasp_context *c, uint32_t created)
{
    const char *cls = created ? wasp_profile_string(p, created) : NULL;
    if (!cls || !*cls)
        return 0;
    size_t len = strlen(cls);
    for (uint32_t k = c->nframes; k-- > 0;) { /* leaf first */
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + k]];
        const char *name = wasp_profile_string(p, f->name);
        if (f->kind != WASP_FRAME_JAVA || !name)
            continue;
        if (is_constructor_of(name, cls, len))
            return c->nframes - k;
        const char *dot = strrchr(name, '.');
        if (!jdk_class(name) && !(dot && !strcmp(dot, ".<init>")))
            return 0; /* application code that is no constructor */
    }
    return 0;
}

const wasp_frame *wasp_created_place(const wasp_profile *p, const wasp_context *c,
                                     uint32_t created)
{
    uint32_t skip = constructing(p, c, created);
    const wasp_frame *at = skip ? place_among(p, c, c->nframes - skip, true) : NULL;
    return at ? at : wasp_place_frame(p, c);
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

const wasp_frame *wasp_created_inner(const wasp_profile *p, const wasp_context *c,
                                     uint32_t created)
{
    const wasp_frame *at = wasp_created_place(p, c, created);
    if (at != wasp_place_frame(p, c))
        return NULL; /* past the new object's constructors: they are its creation */
    const wasp_frame *inner = wasp_inner_java_frame(p, c);
    return inner && inner != at ? inner : NULL;
}

const wasp_frame *wasp_place_inner(const wasp_profile *p, const wasp_context *c)
{
    return wasp_created_inner(p, c, 0);
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
