/*
 * Writes a large synthetic profile for the rendering benchmark (bench/render.py):
 * what 64 threads and 1,000,000 samples leave behind — thousands of distinct
 * pairs per analysis over deep Java stacks, object sites with their access
 * contexts, replica records. Deterministic (a fixed-seed generator).
 *
 * Usage: large_profile OUT.wprof
 */
#include <stdint.h>
#include <stdio.h>

#include "analysis/objects/profile.h"
#include "analysis/replicas/profile.h"
#include "profile/profile.h"

enum { METHODS = 4000, DEPTH = 40, PAIRS_PER_ANALYSIS = 4000, SITES = 2000, ACCESSES = 12,
       REPLICA_SITES = 600, SAMPLES = 1000000, THREADS = 64 };

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next(uint32_t n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static uint32_t frame_ids[METHODS];

/* A context: a common root, then random frames (a Zipf-ish pick favours
 * few methods, as real programs do), and a leaf instruction. */
static uint32_t context(wasp_profile *p, int with_insn)
{
    uint32_t ids[DEPTH];
    uint32_t depth = 8 + next(DEPTH - 8);
    for (uint32_t i = 0; i < depth; i++)
        ids[i] = frame_ids[i < 4 ? i : next(1 + next(METHODS))];
    char insn[64];
    snprintf(insn, sizeof insn, "mov %%eax, 0x%x(%%rbx,%%rcx,4)", 16 + 4 * next(64));
    return wasp_profile_intern_context(p, ids, depth,
                                       with_insn ? wasp_profile_intern_string(p, insn) : 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: large_profile OUT.wprof\n");
        return 2;
    }
    wasp_profile *p = wasp_profile_new();
    for (uint32_t m = 0; m < METHODS; m++) {
        char name[96], file[64];
        snprintf(name, sizeof name, "com.example.pkg%u.Class%u.method%u", m % 37, m % 211, m);
        snprintf(file, sizeof file, "Class%u.java", m % 211);
        wasp_frame f = {.kind = m % 50 == 0 ? WASP_FRAME_NATIVE : WASP_FRAME_JAVA,
                        .name = wasp_profile_intern_string(p, name),
                        .file = wasp_profile_intern_string(p, file),
                        .line = 10 + (int32_t)(m % 900)};
        frame_ids[m] = wasp_profile_intern_frame(p, &f);
    }
    for (int a = 0; a < WASP_AN_COUNT; a++) {
        wasp_totals t = {0};
        for (int i = 0; i < PAIRS_PER_ANALYSIS; i++) {
            double bytes = 8.0 * (1 + next(4000)), count = bytes / 8;
            wasp_profile_add_pair(p, (wasp_analysis)a, 0, context(p, 1), context(p, 1), bytes,
                                  count);
            t.wasted += bytes;
            t.pairs += count;
        }
        t.bytes = t.wasted * 2.5;
        wasp_profile_add_totals(p, (wasp_analysis)a, &t);
    }
    static const char *const classes[] = {"int[]", "double[]", "byte[]", "java.lang.String",
                                          "java.util.HashMap$Node", "long[]"};
    for (int s = 0; s < SITES; s++) {
        uint32_t site = wasp_profile_intern_site(
            p, context(p, 0), wasp_profile_intern_string(p, classes[next(6)]));
        wasp_profile_add_site_allocs(p, site, 1 + next(5000), 1024.0 * (1 + next(4096)));
        for (int k = 0; k < ACCESSES; k++)
            wasp_profile_add_site_access(p, site, context(p, 1), 1 + next(500), 0);
        if (s < REPLICA_SITES)
            for (int k = 0; k < 4; k++)
                wasp_profile_add_replica(p, site, context(p, 1), next(50), next(50));
    }
    wasp_profile_add_counter(p, "samples", SAMPLES);
    wasp_profile_add_counter(p, "samples.memory", SAMPLES * 4 / 10);
    wasp_profile_set_meta(p, "events", "deadstore+silentstore+silentload+objects+replicas");
    wasp_profile_set_meta(p, "java_command", "LargeSynthetic (bench/large_profile.c)");
    wasp_profile_set_meta_num(p, "threads", THREADS);
    char err[256];
    if (wasp_profile_write(p, argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "large_profile: %s\n", err);
        return 1;
    }
    printf("%u contexts, %u pairs, %u sites\n", p->ncontexts, p->npairs, p->nsites);
    wasp_profile_free(p);
    return 0;
}
