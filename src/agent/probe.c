/*
 * What this machine and this JVM allow: the sampler and the watchpoint engine
 * (each proven by a signal that arrived), NUMA, how object addresses look.
 * Asked once, when profiling starts; every "no" becomes one clear sentence
 * for the user. Not for signal handlers.
 */
#include "agent/probe.h"

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <numa.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/jvm.h"
#include "agent/log.h"
#include "agent/option_table.h"
#include "agent/vmflags.h"
#include "agent/zgc_heap.h"
#include "sample/signal.h"
#include "watch/engine.h"
#include "watch/mechanisms.h"
#include "heap/heap_addresses.h"

static void append(char *buf, size_t len, const char *what, const char *why)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s: %s", used ? "; " : "", what, why);
}

/* Initialise a source and prove it: a sample must arrive. */
static int try_source(wasp_source *s, const wasp_source_config *c, char *why, size_t len)
{
    char err[256] = "";
    if (wasp_source_prove(s, c, err, sizeof err) != 0) {
        char advice[512];
        if (s->uses_perf && wasp_perf_refusal(advice, sizeof advice) != 0)
            snprintf(why, len, "%s (%s)", err, advice);
        else
            snprintf(why, len, "%s", err);
        return -1;
    }
    return 0;
}

/* A forced sampler this machine lacks: why, and the values that can work
 * here ("use sampler=perf, timer or auto"). */
static void refuse_absent(const wasp_source *s, const wasp_source_config *c, char *why,
                          size_t len)
{
    char others[128] = "";
    for (int i = 0; wasp_samplers[i]; i++) {
        size_t used = strlen(others);
        if (wasp_samplers[i] != s && wasp_source_present(wasp_samplers[i], c))
            snprintf(others + used, sizeof others - used, "%s%s", used ? ", " : "",
                     wasp_samplers[i]->name);
    }
    snprintf(why, len, "sampler=%s: %s; use sampler=%s%sauto", s->name, s->absent_why, others,
             others[0] ? " or " : "");
}

int wasp_probe_source(const wasp_options *o, unsigned wants, char *passed, size_t plen,
                      char *why, size_t len)
{
    wasp_source_config c = {o->period_ns, o->pmu_period, o->pmu_event, o->period_jitter};
    /* auto: every sampler present here, in the list's order of preference;
     * else the one the option names (its values are the samplers' names). */
    char named[32] = "";
    if (o->sampler != WASP_SAMPLER_AUTO)
        wasp_option_value_text(wasp_option_find("sampler", 7), o, named, sizeof named);
    wasp_source *order[8];
    int n = 0;
    for (int i = 0; wasp_samplers[i] && n < 8; i++) {
        wasp_source *s = wasp_samplers[i];
        s->wants = wants;
        if (named[0] && strcmp(named, s->name) != 0)
            continue;
        if (named[0] && !wasp_source_present(s, &c)) {
            refuse_absent(s, &c, why, len);
            return -1;
        }
        if (wasp_source_present(s, &c))
            order[n++] = s;
    }
    char err[768];
    for (int i = 0; i < n; i++) {
        if (try_source(order[i], &c, err, sizeof err) == 0) {
            /* A new choice: the watchpoint engine (if any) is chosen next. */
            wasp_mechanisms_set(&(wasp_mechanisms){.source = order[i]});
            return 0;
        }
        if (named[0]) {
            snprintf(why, len, "sampler=%s: %s", order[i]->name, err);
            return -1;
        }
        append(passed, plen, order[i]->name, err);
    }
    snprintf(why, len, "no sampler works on this machine (%s)", passed);
    return -1;
}

/* What an armed watch costs of a string move's time (mechanisms.h). */
static double string_watch_share(const wasp_watch_engine *e)
{
    double slowdown = e->string_slowdown ? e->string_slowdown() : 1.0;
    return slowdown > 1.0 ? 1.0 - 1.0 / slowdown : 0.0;
}

int wasp_probe_watch(const wasp_options *o, char *passed, size_t plen, char *why, size_t len)
{
    /* auto: every engine, in the list's order of preference; else the one
     * the option names (its values are the engines' names). */
    const wasp_watch_engine *order[8];
    int n = 0;
    char named[32] = "";
    if (o->watch != WASP_WATCH_AUTO)
        wasp_option_value_text(wasp_option_find("watch", 5), o, named, sizeof named);
    for (int i = 0; wasp_watch_engines[i] && n < 8; i++)
        if (!named[0] || !strcmp(named, wasp_watch_engines[i]->name))
            order[n++] = wasp_watch_engines[i];
    for (int i = 0; i < n; i++) {
        char err[1024], advice[400];
        uint64_t ns = 0;
        if (order[i]->self_test(err, sizeof err, &ns) == 0) {
            wasp_mechanisms_set(&(wasp_mechanisms){wasp_chosen()->source, order[i], ns,
                                                   string_watch_share(order[i])});
            return 0;
        }
        if (order[i]->uses_perf && wasp_perf_refusal(advice, sizeof advice) != 0) {
            size_t used = strnlen(err, 500);
            snprintf(err + used, sizeof err - used, " (%.400s)", advice);
        }
        if (n == 1) {
            snprintf(why, len, "watch=%s: %s", order[i]->name, err);
            return -1;
        }
        append(passed, plen, order[i]->name, err);
    }
    snprintf(why, len, "no watchpoint engine works on this machine (%s)", passed);
    return -1;
}

int wasp_probe_numa_nodes(void)
{
    if (numa_available() < 0)
        return 1;
    int n = numa_num_configured_nodes();
    return n > 0 ? n : 1;
}

void wasp_probe_heap_addresses(void)
{
    int zgc = 0, shenandoah = 0;
    wasp_heap_addresses.address_mask = ~0ull;
    wasp_heap_addresses.moves_concurrently = 0;
    wasp_heap_addresses.aliased = 0;
    wasp_heap_addresses.zpointers = 0;
    if (wasp_vm_get_bool_flag("UseShenandoahGC", &shenandoah) == 0 && shenandoah)
        wasp_heap_addresses.moves_concurrently = 1;
    if (wasp_vm_get_bool_flag("UseZGC", &zgc) != 0) {
        wasp_heap_addresses.aliased = 1; /* perhaps ZGC: the page engine copies no page */
        return;
    }
    if (!zgc)
        return;
    wasp_heap_addresses.moves_concurrently = 1;
    wasp_heap_addresses.aliased = 1; /* every ZGC: its memory may be mapped twice */
    /* Not from java.specification.version: in the OnLoad phase, where this
     * runs for `wasp run`, JVMTI does not have it yet, and JDK 25 was taken
     * for single-generation ZGC (zgc_heap.h says how instead). */
    if (wasp_zgc_generational() == 1) {
        /* generational ZGC (the only one from JDK 23): JNI handles and
         * accesses use plain addresses, the VM's oop slots zpointers */
        wasp_heap_addresses.zpointers = 1;
        return;
    }
    /* Single-generation ZGC maps the heap at several "colours": compare heap
     * offsets, below the colour bits (42 offset bits for heaps up to 4 TB). */
    wasp_heap_addresses.address_mask = (1ull << 42) - 1;
}

/* ZGC maps its heap (several views of it, on JDK 17) from a memfd named
 * "java_heap": the span of those mappings. */
static int heap_from_maps(uint64_t *lo, uint64_t *hi)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[512];
    uint64_t a, b, min = UINT64_MAX, max = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "java_heap") && sscanf(line, "%lx-%lx", &a, &b) == 2) {
            min = a < min ? a : min;
            max = b > max ? b : max;
        }
    fclose(f);
    if (max <= min)
        return -1;
    *lo = min;
    *hi = max;
    return 0;
}

int wasp_probe_heap_range(uint64_t *lo, uint64_t *hi)
{
    char why[256];
    if (wasp_vm_heap_range(lo, hi, why, sizeof why) == 0)
        return 0;
    return heap_from_maps(lo, hi);
}
