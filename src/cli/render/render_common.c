/* Choices both renderers and the report parts make the same way; see
 * render.h and report_part.h. */
#include "catalog/ids.h"
#include "cli/render/render.h"
#include "cli/render/report_part.h"
#include "heap/class_site.h"
#include "cli/render/units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t wasp_report_shown_analyses(const wasp_profile *p)
{
    uint32_t shown = 0;
    for (int id = 0; id < WASP_ANALYSES; id++)
        if (wasp_report_part_of(id)->shown(p, id))
            shown |= 1u << id;
    return shown;
}

uint32_t wasp_report_shown(int top, uint32_t n)
{
    return top > 0 && (uint32_t)top < n ? (uint32_t)top : n;
}

double wasp_share(double part, double whole)
{
    return whole > 0 ? part / whole : 0;
}

bool wasp_report_budget_spent(const wasp_profile *p)
{
    /* Pacing (watch/sampler_period.h): while the budget was spent, threads
     * sampled less often; those samples were never taken. */
    return wasp_profile_get_counter(p, "dropped.budget") ||
           wasp_profile_get_counter(p, "sampler.paced_skips");
}

/* Fewer samples armed than this under a spent budget: the fractions rest on
 * few watched pages. */
enum { THIN_ARMED = 20 };

/* The samples armed when they are that few under a spent budget, else -1;
 * -1 too when no analysis shown arms samples (-e alloc alone watches TLAB
 * boundaries, not samples: its budget spent says nothing of "armed"). */
bool wasp_report_arms_samples(uint32_t shown)
{
    for (int id = 0; id < WASP_ANALYSES; id++)
        if ((shown & (1u << id)) && wasp_report_part_of(id)->counts_armed)
            return true;
    return false;
}

static int64_t thin_armed(const wasp_profile *p)
{
    uint64_t armed = wasp_profile_get_counter(p, "armed");
    return wasp_report_arms_samples(wasp_report_shown_analyses(p)) &&
                   wasp_report_budget_spent(p) && armed < THIN_ARMED
               ? (int64_t)armed
               : -1;
}

/* What to do about it. Page protection arms a few samples a second within
 * its budget (each watched page costs hundreds of faults: docs/corpus.md),
 * so a short run on a machine whose debug registers do not trap arms a
 * handful: say why, not only what. */
static void thin_remedy(const wasp_profile *p, char *buf, size_t n)
{
    const char *watch = wasp_profile_get_meta(p, "watch");
    if (!watch || strcmp(watch, "page") != 0) {
        snprintf(buf, n, "run longer or raise --watch-budget");
        return;
    }
    const char *passed = wasp_profile_get_meta(p, "watch_passed_over");
    snprintf(buf, n,
             "page protection%s arms a few samples a second within its budget: run a minute or "
             "longer, or raise --watch-budget",
             passed && strstr(passed, "debugreg") ? ", used because debug registers are not "
                                                    "usable here,"
                                                  : "");
}

bool wasp_report_thin_evidence(const wasp_profile *p, char *buf, size_t n)
{
    /* An armed sample is one watched page's evidence, however many pairs
     * its window gives: seen on a guest whose faults cost 12-36 us, a
     * 2-second run armed 3 and its dead stores came out 0 in one run and
     * 100% in the next. */
    int64_t armed = thin_armed(p);
    if (armed < 0)
        return false;
    if (armed == 0)
        snprintf(buf, n, "no samples armed: the watch budget was spent before the first; raise "
                         "--watch-budget");
    else {
        char remedy[200];
        thin_remedy(p, remedy, sizeof remedy);
        snprintf(buf, n,
                 "only %lld sample%s armed: each fraction below rests on that few watched pages "
                 "and may differ from run to run; %s",
                 (long long)armed, armed == 1 ? "" : "s", remedy);
    }
    return true;
}

bool wasp_report_thin_nothing(const wasp_profile *p, char *buf, size_t n)
{
    int64_t armed = thin_armed(p);
    if (armed < 0)
        return false;
    char count[40] = "no samples";
    if (armed > 0)
        snprintf(count, sizeof count, "only %lld sample%s", (long long)armed, armed == 1 ? "" : "s");
    snprintf(buf, n, "%s armed, too few to find anything (the warning above says why)", count);
    return true;
}

/* With the blind analyses, the agent's other warnings about the whole
 * profile (meta "warning.NAME", e.g. warning.pruned: contexts merged to
 * bound a long session's memory). */
const char *wasp_report_blind(const wasp_profile *p, uint32_t k)
{
    for (uint32_t i = 0; i < p->nmeta; i++)
        if ((strncmp(p->meta[i].key, "blind.", 6) == 0 ||
             strncmp(p->meta[i].key, "warning.", 8) == 0) &&
            k-- == 0)
            return p->meta[i].value;
    return NULL;
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

const char *wasp_context_insn(const wasp_profile *p, const wasp_context *c)
{
    const char *insn = c->insn ? wasp_profile_string(p, c->insn) : NULL;
    return insn && *insn ? insn : NULL;
}

const char *wasp_site_class(const wasp_profile *p, const wasp_site *s)
{
    const char *cls = wasp_profile_string(p, s->class_name);
    return cls && *cls ? cls : "<unknown class>";
}

bool wasp_site_by_class(const wasp_profile *p, const wasp_site *s)
{
    if (s->ctx >= p->ncontexts || p->contexts[s->ctx].nframes != 1)
        return false;
    const wasp_frame *f = &p->frames[p->frame_refs[p->contexts[s->ctx].first]];
    const char *name = wasp_profile_string(p, f->name);
    return f->kind == WASP_FRAME_UNKNOWN && name && strcmp(name, WASP_CLASS_SITE_FRAME) == 0;
}

const char *wasp_fmt_site_allocations(const wasp_profile *p, const wasp_site *s, char *buf,
                                      size_t n)
{
    if (wasp_site_by_class(p, s) && !(s->allocations > 0)) {
        snprintf(buf, n, "untracked objects, grouped by class");
        return buf;
    }
    /* JVMTI samples about one allocation per interval bytes: what the
     * profile holds is a sample of the site's allocations, and says so. */
    const char *interval = wasp_profile_get_meta(p, "objects.sampling_interval");
    bool sampled = interval && strtod(interval, NULL) > 0; /* numbers keep their text too */
    char c[WASP_UNIT_BUF], b[WASP_UNIT_BUF];
    snprintf(buf, n, "%s %sallocation%s (%s)", wasp_fmt_count(s->allocations, c, sizeof c),
             sampled ? "sampled " : "", s->allocations == 1 ? "" : "s",
             wasp_fmt_bytes(s->bytes, b, sizeof b));
    return buf;
}

void wasp_frame_label(const wasp_profile *p, const wasp_frame *f, char *buf, size_t n)
{
    const char *name = wasp_profile_string(p, f->name);
    const char *file = f->file ? wasp_profile_string(p, f->file) : NULL;
    if (!name || !*name)
        name = "<unknown>";
    switch (f->kind) {
    case WASP_FRAME_JAVA:
        if (!file)
            snprintf(buf, n, "%s(Unknown Source)", name);
        else if (f->line >= 0)
            snprintf(buf, n, "%s(%s:%" PRId32 ")", name, file, f->line);
        else if (f->line == WASP_LINE_NATIVE)
            snprintf(buf, n, "%s(Native Method)", name);
        else
            snprintf(buf, n, "%s(%s)", name, file);
        break;
    case WASP_FRAME_NATIVE: {
        /* "libc.so.6`memset" reads as "libc.so.6 memset". */
        const char *tick = strchr(name, '`');
        if (tick)
            snprintf(buf, n, "%.*s %s", (int)(tick - name), name, tick + 1);
        else if (file) {
            const char *base = strrchr(file, '/');
            snprintf(buf, n, "%s %s", base ? base + 1 : file, name);
        } else
            snprintf(buf, n, "%s", name);
        break;
    }
    case WASP_FRAME_STUB: snprintf(buf, n, "%s [jvm stub]", name); break;
    default: snprintf(buf, n, "%s", name); break;
    }
}

int wasp_report_stacks(const wasp_profile *p, wasp_stack_sink *sink)
{
    uint32_t shown = wasp_report_shown_analyses(p);
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_report_part *part = wasp_report_part_of(id);
        if ((shown & (1u << id)) && part->stacks && part->stacks(p, id, sink) != 0)
            return -1;
    }
    return 0;
}
