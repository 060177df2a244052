/*
 * Profile -> file bytes (layout: docs/profile-format.md): the core's
 * sections, then each analysis's part's (part.h), then MRGD and END.
 */
#include "profile/codec.h"
#include "profile/format.h"
#include "profile/cpu_lines.h"
#include "profile/internal.h"

#include <stdio.h>

/* One entry of each core table; ctx is the profile. */

static void put_meta(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    const wasp_kv *kv = &((const wasp_profile *)ctx)->meta[i];
    wasp_put_str(b, kv->key);
    wasp_put_str(b, kv->value);
}

/* The numeric metadata: their keys and numbers (META has their text too). */
static void put_meta_numbers(wasp_wbuf *b, const wasp_profile *p)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->nmeta; i++)
        n += p->meta[i].numeric;
    if (!n)
        return;
    size_t s = wasp_section_begin(b, WASP_SEC_META_NUMBERS);
    wasp_put_u32(b, n);
    for (uint32_t i = 0; i < p->nmeta; i++)
        if (p->meta[i].numeric) {
            wasp_put_str(b, p->meta[i].key);
            wasp_put_f64(b, p->meta[i].number);
        }
    wasp_section_end(b, s);
}

static void put_string(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    wasp_put_str(b, ((const wasp_profile *)ctx)->strings[i]);
}

static void put_frame(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    const wasp_frame *f = &((const wasp_profile *)ctx)->frames[i];
    wasp_put_u32(b, f->kind);
    wasp_put_u32(b, f->name);
    wasp_put_u32(b, f->file);
    wasp_put_u32(b, (uint32_t)f->line);
}

static void put_context(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    const wasp_profile *p = ctx;
    const wasp_context *c = &p->contexts[i];
    wasp_put_u32(b, c->insn);
    wasp_put_u32(b, c->nframes);
    for (uint32_t j = 0; j < c->nframes; j++)
        wasp_put_u32(b, p->frame_refs[c->first + j]);
}

static void put_counter(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    const wasp_counter *c = &((const wasp_profile *)ctx)->counters[i];
    wasp_put_str(b, c->name);
    wasp_put_u64(b, c->value);
}

static void put_site(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    const wasp_site *s = &((const wasp_profile *)ctx)->sites[i];
    wasp_put_u32(b, s->ctx);
    wasp_put_u32(b, s->class_name);
    wasp_put_f64(b, s->allocations);
    wasp_put_f64(b, s->bytes);
}

static void put_core(wasp_wbuf *b, const wasp_profile *p)
{
    wasp_put_table(b, WASP_SEC_META, p->nmeta, put_meta, p);
    put_meta_numbers(b, p);
    wasp_put_table(b, WASP_SEC_STRINGS, p->nstrings, put_string, p);
    wasp_put_table(b, WASP_SEC_FRAMES, p->nframes, put_frame, p);
    wasp_put_table(b, WASP_SEC_CONTEXTS, p->ncontexts, put_context, p);
    wasp_put_table(b, WASP_SEC_COUNTERS, p->ncounters, put_counter, p);
    /* Sites only when there are some: a profile without them stays byte for
     * byte what wasp wrote before the section existed. */
    if (p->nsites)
        wasp_put_table(b, WASP_SEC_SITES, p->nsites, put_site, p);
    wasp_cpu_lines_encode(p, b);
}

int wasp_profile_encode(const wasp_profile *p, wasp_wbuf *b, char *err, size_t errlen)
{
    if (wasp_profile_check(p, err, errlen) != 0)
        return -1;
    size_t start = b->len;
    wasp_put_bytes(b, WASP_PROF_MAGIC, WASP_PROF_MAGIC_LEN);
    wasp_put_u32(b, WASP_PROF_VERSION);
    put_core(b, p);
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_profile_part *part = wasp_profile_part_of(id);
        if (part->encode)
            part->encode(p, b);
    }
    size_t s = wasp_section_begin(b, WASP_SEC_MERGED);
    wasp_put_u32(b, p->merged);
    wasp_section_end(b, s);
    wasp_section_end(b, wasp_section_begin(b, WASP_SEC_END));
    if (b->failed) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    wasp_put_u32(b, wasp_crc32(b->data + start, b->len - start));
    if (b->failed) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}
