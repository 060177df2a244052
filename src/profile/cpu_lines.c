/*
 * See cpu_lines.h. Each of the two tables (lines, leaves) is an array
 * indexed by (name, file, line) through a hindex; a section's payload is
 *   u32 n, n x { u32 name, u32 file, u32 line (int32 as bits), f64 samples }
 * written only when there are rows, so that a profile without them stays
 * what older wasps wrote.
 */
#include "profile/cpu_lines.h"

#include <stdlib.h>
#include <string.h>

#include "profile/format.h"
#include "profile/hindex.h"
#include "profile/internal.h"
#include "profile/part.h"

typedef struct wasp_cpu_table table;

typedef struct key {
    const table *t;
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
    const wasp_cpu_line *l = &k->t->rows[id];
    return l->name == k->name && l->file == k->file && l->line == k->line;
}

static int add(table *t, uint32_t name, uint32_t file, int32_t line, double samples)
{
    if (!t->index && !(t->index = wasp_hindex_new()))
        return -1;
    key k = {t, name, file, line};
    uint32_t h = hash_of(name, file, line);
    uint32_t id = wasp_hindex_find(t->index, h, same, &k);
    if (id == WASP_HINDEX_NONE) {
        if (wasp_grow(&t->rows, &t->cap, t->n + 1, sizeof *t->rows) != 0 ||
            wasp_hindex_add(t->index, h, t->n) != 0)
            return -1;
        id = t->n++;
        t->rows[id] = (wasp_cpu_line){name, file, line, 0};
    }
    t->rows[id].samples += samples;
    return 0;
}

static double at(const table *t, uint32_t name, int32_t line)
{
    double n = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->rows[i].name == name && t->rows[i].line == line)
            n += t->rows[i].samples;
    return n;
}

int wasp_profile_add_cpu_line(wasp_profile *p, uint32_t name, uint32_t file, int32_t line,
                              double samples)
{
    return add(&p->cpu_lines, name, file, line, samples);
}

int wasp_profile_add_cpu_leaf(wasp_profile *p, uint32_t name, uint32_t file, int32_t line,
                              double samples)
{
    return add(&p->cpu_leaves, name, file, line, samples);
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
    return at(&p->cpu_lines, name, line);
}

double wasp_profile_cpu_named(const wasp_profile *p, const char *name, int32_t line)
{
    double n = 0;
    for (uint32_t i = 0; i < p->cpu_lines.n; i++) {
        const wasp_cpu_line *l = &p->cpu_lines.rows[i];
        const char *s = wasp_profile_string(p, l->name);
        if (l->line == line && s && strcmp(s, name) == 0)
            n += l->samples;
    }
    return n;
}

double wasp_profile_cpu_leaf_at(const wasp_profile *p, uint32_t name, int32_t line)
{
    return at(&p->cpu_leaves, name, line);
}

bool wasp_profile_has_cpu_lines(const wasp_profile *p)
{
    return p->cpu_lines.n > 0 || wasp_profile_get_counter(p, WASP_CPU_SAMPLES) > 0;
}

bool wasp_profile_has_cpu_leaves(const wasp_profile *p)
{
    return p->cpu_leaves.n > 0;
}

static void put_line(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    const wasp_cpu_line *l = &((const table *)ctx)->rows[i];
    wasp_put_u32(b, l->name);
    wasp_put_u32(b, l->file);
    wasp_put_u32(b, (uint32_t)l->line);
    wasp_put_f64(b, l->samples);
}

void wasp_cpu_lines_encode(const wasp_profile *p, wasp_wbuf *b)
{
    if (p->cpu_lines.n)
        wasp_put_table(b, WASP_SEC_CPU_LINES, p->cpu_lines.n, put_line, &p->cpu_lines);
    if (p->cpu_leaves.n)
        wasp_put_table(b, WASP_SEC_CPU_LEAVES, p->cpu_leaves.n, put_line, &p->cpu_leaves);
}

static int decode_table(table *t, wasp_decoder *d, uint32_t tag, const char *what)
{
    wasp_section *s = wasp_decoder_section(d, tag);
    uint32_t n;
    if (wasp_section_count(s, 20, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t name = wasp_section_u32(s), file = wasp_section_u32(s);
        int32_t line = (int32_t)wasp_section_u32(s);
        double samples = wasp_section_f64(s);
        if (wasp_section_string(s, what, i, name, &name) != 0 ||
            wasp_section_string(s, what, i, file, &file) != 0)
            return -1;
        if (add(t, name, file, line, samples) != 0)
            return wasp_section_out_of_memory(s);
    }
    return wasp_section_done(s);
}

int wasp_cpu_lines_decode(wasp_profile *p, wasp_decoder *d)
{
    if (decode_table(&p->cpu_lines, d, WASP_SEC_CPU_LINES, "cpu line") != 0)
        return -1;
    return decode_table(&p->cpu_leaves, d, WASP_SEC_CPU_LEAVES, "cpu leaf");
}

static int merge_table(table *dst, const table *src, const wasp_id_map *m)
{
    for (uint32_t i = 0; i < src->n; i++) {
        const wasp_cpu_line *l = &src->rows[i];
        uint32_t name = wasp_map_string(m, l->name), file = wasp_map_string(m, l->file);
        /* by method: a sample counted at two lines of one method (recursion
         * inlined) counts twice at the method; the summary caps a share at 1 */
        int32_t line = m->by_method ? -1 : l->line;
        if (name == WASP_NOID || file == WASP_NOID || add(dst, name, file, line, l->samples) != 0)
            return -1;
    }
    return 0;
}

int wasp_cpu_lines_merge(wasp_profile *dst, const wasp_profile *src, const wasp_id_map *m)
{
    if (merge_table(&dst->cpu_lines, &src->cpu_lines, m) != 0)
        return -1;
    return merge_table(&dst->cpu_leaves, &src->cpu_leaves, m);
}

void wasp_cpu_lines_free(wasp_profile *p)
{
    free(p->cpu_lines.rows);
    wasp_hindex_free(p->cpu_lines.index);
    free(p->cpu_leaves.rows);
    wasp_hindex_free(p->cpu_leaves.index);
}
