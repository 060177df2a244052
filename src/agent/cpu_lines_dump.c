/*
 * See cpu_lines_dump.h.
 */
#include "agent/cpu_lines_dump.h"

#include <dlfcn.h>
#include <string.h>

#include "agent/code_map_load.h"
#include "agent/jvm.h"
#include "profile/cpu_lines.h"
#include "watch/pc_hist.h"

enum { MAX_INLINE = 64 };

/* Where the samples at no line were, of those whose PC was kept. */
enum { IN_INTERPRETER, IN_STUBS, IN_JVM, IN_NATIVE, PLACES };
static const char *const place_counter[PLACES] = {WASP_CPU_INTERPRETER, WASP_CPU_STUBS,
                                                  WASP_CPU_JVM, WASP_CPU_NATIVE};

typedef struct drain {
    wasp_dump *d;
    uint64_t unmapped, late, interpreted, coarse;
    uint64_t at[PLACES];
} drain;

/* A sample in the interpreter: at its method's line (no inline chain). */
static void one_interpreted(void *ctx, const void *method, int32_t bci, uint64_t count)
{
    drain *dr = ctx;
    wasp_rframe rf = {.bci = bci, .method = (void *)(uintptr_t)method};
    wasp_frame f;
    wasp_dump_java_frame(dr->d, &rf, &f);
    wasp_profile *p = wasp_dump_profile(dr->d);
    if (wasp_profile_add_cpu_chain(p, &f, 1, (double)count) == 0) /* out of memory: it goes */
        wasp_profile_add_cpu_leaf(p, f.name, f.file, f.line, (double)count);
    dr->interpreted += count;
}

/* A PC outside compiled Java code: the JVM's code blobs by the names it
 * gave them (the interpreter, else a stub), else the library mapped there. */
static int place_of(uint64_t pc)
{
    const char *blob = wasp_jvm_code_name(pc);
    if (blob)
        return strcmp(blob, "Interpreter") == 0 ? IN_INTERPRETER : IN_STUBS;
    Dl_info info;
    if (dladdr((void *)(uintptr_t)pc, &info) && info.dli_fname)
        return strstr(info.dli_fname, "libjvm.so") ? IN_JVM : IN_NATIVE;
    return IN_STUBS; /* the code cache's other code: unnamed stubs */
}

static void one_pc(void *ctx, uint32_t id, uint64_t pc, uint64_t count)
{
    drain *dr = ctx;
    wasp_rframe rf[MAX_INLINE];
    wasp_frame f[MAX_INLINE];
    if (!id) { /* outside the published methods: maybe one published since */
        id = wasp_code_map_late_id(pc);
        if (!id) { /* the interpreter, stubs, native code: not compiled */
            dr->at[place_of(pc)] += count;
            return;
        }
        dr->late += count;
    }
    /* The sampled instruction is described by the first record after it
     * (pc_frames.h). */
    bool coarse;
    int n = wasp_code_map_frames(id, pc, rf, MAX_INLINE, &coarse);
    if (coarse)
        dr->coarse += count;
    if (n <= 0) {
        dr->unmapped += count;
        return;
    }
    wasp_profile *p = wasp_dump_profile(dr->d);
    for (int i = 0; i < n; i++)
        wasp_dump_java_frame(dr->d, &rf[i], &f[i]);
    /* out of memory: the line goes */
    if (wasp_profile_add_cpu_chain(p, f, n, (double)count) == 0)
        wasp_profile_add_cpu_leaf(p, f[0].name, f[0].file, f[0].line, (double)count);
}

void wasp_cpu_lines_dump(wasp_dump *d)
{
    drain dr = {.d = d};
    wasp_pc_hist_totals t;
    wasp_code_map_drain_begin();
    wasp_pc_hist_drain(one_pc, one_interpreted, &dr, &t);
    wasp_code_map_drain_end();
    if (!t.total)
        return;
    wasp_profile *p = wasp_dump_profile(d);
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, t.total);
    wasp_profile_add_counter(p, WASP_CPU_NOT_COMPILED, t.not_compiled - dr.late - dr.interpreted);
    wasp_profile_add_counter(p, WASP_CPU_INTERPRETED, dr.interpreted);
    wasp_profile_add_counter(p, WASP_CPU_LATE, dr.late);
    wasp_profile_add_counter(p, WASP_CPU_COARSE, dr.coarse);
    wasp_profile_add_counter(p, WASP_CPU_VIA_CALLER, t.via_caller);
    for (int i = 0; i < PLACES; i++)
        wasp_profile_add_counter(p, place_counter[i], dr.at[i]);
    wasp_profile_add_counter(p, WASP_CPU_UNMAPPED, dr.unmapped);
    wasp_profile_add_counter(p, WASP_CPU_DROPPED, t.dropped);
    uint64_t methods, unknown, bytes;
    wasp_code_map_stats(&methods, &unknown, &bytes);
    /* Meta, not counters: a level at this write, which merging a profile's
     * writes must not add up. */
    wasp_profile_set_meta_num(p, "cpu.code_map_methods", (double)methods);
    wasp_profile_set_meta_num(p, "cpu.code_map_bytes", (double)bytes);
}
