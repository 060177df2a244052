/*
 * See cpu_lines.h. The lines are an array indexed by (name, file, line)
 * through a hindex; the section's payload is
 *   u32 n, n x { u32 name, u32 file, u32 line (int32 as bits), f64 samples }
 * written only when there are lines, so that a profile without them stays
 * what older wasps wrote.
 */
#include "profile/cpu_lines.h"

#include <stdlib.h>
#include <string.h>

#include "profile/format.h"
#include "profile/hindex.h"
#include "profile/internal.h"
#include "profile/part.h"

typedef struct key {
    const wasp_profile *p;
    uint32_t name, file;
    int32_t line;
} key;

static uint32_t hash_of(uint32_t name, uint32_t file, int32_t line)
{
    return wasp_fnv1a_u32(wasp_fnv1a_u32(wasp_fnv1a_u32(WASP_FNV_INIT, name), file), (uint32_t)line);
}

static bool same(const void *ctx, uint32_t id)
{
    const key *k = ctx;
    const wasp_cpu_line *l = &k->p->cpu_lines[id];
    return l->name == k->name && l->file == k->file && l->line == k->line;
}

int wasp_profile_add_cpu_line(wasp_profile *p, uint32_t name, uint32_t file, int32_t line,
                              double samples)
{
    if (!p->cpu_line_index && !(p->cpu_line_index = wasp_hindex_new()))
        return -1;
    key k = {p, name, file, line};
    uint32_t h = hash_of(name, file, line);
    uint32_t id = wasp_hindex_find(p->cpu_line_index, h, same, &k);
    if (id == WASP_HINDEX_NONE) {
        if (wasp_grow(&p->cpu_lines, &p->cap_cpu_lines, p->ncpu_lines + 1, sizeof *p->cpu_lines) != 0 ||
            wasp_hindex_add(p->cpu_line_index, h, p->ncpu_lines) != 0)
            return -1;
        id = p->ncpu_lines++;
        p->cpu_lines[id] = (wasp_cpu_line){name, file, line, 0};
    }
    p->cpu_lines[id].samples += samples;
    return 0;
}

/* Whether chain[0..n) holds a frame at the same (method, line) as f. */
static bool seen(const wasp_frame *chain, int n, const wasp_frame *f)
{
    for (int i = 0; i < n; i++)
        if (chain[i].name == f->name && chain[i].line == f->line)
            return true;
    return false;
}

int wasp_profile_add_cpu_chain(wasp_profile *p, const wasp_frame *chain, int n, double samples)
{
    for (int i = 0; i < n; i++)
        if (!seen(chain, i, &chain[i]) &&
            wasp_profile_add_cpu_line(p, chain[i].name, chain[i].file, chain[i].line, samples) != 0)
            return -1;
    return 0;
}

double wasp_profile_cpu_at(const wasp_profile *p, uint32_t name, int32_t line)
{
    double n = 0;
    for (uint32_t i = 0; i < p->ncpu_lines; i++)
        if (p->cpu_lines[i].name == name && p->cpu_lines[i].line == line)
            n += p->cpu_lines[i].samples;
    return n;
}

bool wasp_profile_has_cpu_lines(const wasp_profile *p)
{
    return p->ncpu_lines > 0 || wasp_profile_get_counter(p, WASP_CPU_SAMPLES) > 0;
}

static void put_line(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    const wasp_cpu_line *l = &((const wasp_profile *)ctx)->cpu_lines[i];
    wasp_put_u32(b, l->name);
    wasp_put_u32(b, l->file);
    wasp_put_u32(b, (uint32_t)l->line);
    wasp_put_f64(b, l->samples);
}

void wasp_cpu_lines_encode(const wasp_profile *p, wasp_wbuf *b)
{
    if (p->ncpu_lines)
        wasp_put_table(b, WASP_SEC_CPU_LINES, p->ncpu_lines, put_line, p);
}

int wasp_cpu_lines_decode(wasp_profile *p, wasp_decoder *d)
{
    wasp_section *s = wasp_decoder_section(d, WASP_SEC_CPU_LINES);
    uint32_t n;
    if (wasp_section_count(s, 20, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t name = wasp_section_u32(s), file = wasp_section_u32(s);
        int32_t line = (int32_t)wasp_section_u32(s);
        double samples = wasp_section_f64(s);
        if (wasp_section_string(s, "cpu line", i, name, &name) != 0 ||
            wasp_section_string(s, "cpu line", i, file, &file) != 0)
            return -1;
        if (wasp_profile_add_cpu_line(p, name, file, line, samples) != 0)
            return wasp_section_out_of_memory(s);
    }
    return wasp_section_done(s);
}

int wasp_cpu_lines_merge(wasp_profile *dst, const wasp_profile *src, const wasp_id_map *m)
{
    for (uint32_t i = 0; i < src->ncpu_lines; i++) {
        const wasp_cpu_line *l = &src->cpu_lines[i];
        uint32_t name = wasp_map_string(m, l->name), file = wasp_map_string(m, l->file);
        if (name == WASP_NOID || file == WASP_NOID ||
            wasp_profile_add_cpu_line(dst, name, file, l->line, l->samples) != 0)
            return -1;
    }
    return 0;
}

void wasp_cpu_lines_free(wasp_profile *p)
{
    free(p->cpu_lines);
    wasp_hindex_free(p->cpu_line_index);
}
