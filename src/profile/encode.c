/* Profile -> file bytes (layout: docs/profile-format.md). */
#include "profile/codec.h"
#include "profile/format.h"

#include <stdio.h>
#include <zlib.h>

static void put_meta(wasp_wbuf *b, const wasp_profile *p)
{
    size_t s = wasp_section_begin(b, WASP_SEC_META);
    wasp_put_u32(b, p->nmeta);
    for (uint32_t i = 0; i < p->nmeta; i++) {
        wasp_put_str(b, p->meta[i].key);
        wasp_put_str(b, p->meta[i].value);
    }
    wasp_section_end(b, s);
}

static void put_strings(wasp_wbuf *b, const wasp_profile *p)
{
    size_t s = wasp_section_begin(b, WASP_SEC_STRINGS);
    wasp_put_u32(b, p->nstrings);
    for (uint32_t i = 0; i < p->nstrings; i++)
        wasp_put_str(b, p->strings[i]);
    wasp_section_end(b, s);
}

static void put_frames(wasp_wbuf *b, const wasp_profile *p)
{
    size_t s = wasp_section_begin(b, WASP_SEC_FRAMES);
    wasp_put_u32(b, p->nframes);
    for (uint32_t i = 0; i < p->nframes; i++) {
        const wasp_frame *f = &p->frames[i];
        wasp_put_u32(b, f->kind);
        wasp_put_u32(b, f->name);
        wasp_put_u32(b, f->file);
        wasp_put_u32(b, (uint32_t)f->line);
    }
    wasp_section_end(b, s);
}

static void put_contexts(wasp_wbuf *b, const wasp_profile *p)
{
    size_t s = wasp_section_begin(b, WASP_SEC_CONTEXTS);
    wasp_put_u32(b, p->ncontexts);
    for (uint32_t i = 0; i < p->ncontexts; i++) {
        const wasp_context *c = &p->contexts[i];
        wasp_put_u32(b, c->insn);
        wasp_put_u32(b, c->nframes);
        for (uint32_t j = 0; j < c->nframes; j++)
            wasp_put_u32(b, p->frame_refs[c->first + j]);
    }
    wasp_section_end(b, s);
}

static void put_pairs(wasp_wbuf *b, const wasp_profile *p)
{
    size_t s = wasp_section_begin(b, WASP_SEC_PAIRS);
    wasp_put_u32(b, p->npairs);
    for (uint32_t i = 0; i < p->npairs; i++) {
        const wasp_pair *q = &p->pairs[i];
        wasp_put_u32(b, q->analysis);
        wasp_put_u32(b, q->flags);
        wasp_put_u32(b, q->watch_ctx);
        wasp_put_u32(b, q->trap_ctx);
        wasp_put_f64(b, q->bytes);
        wasp_put_f64(b, q->count);
    }
    wasp_section_end(b, s);
}

static void put_totals(wasp_wbuf *b, const wasp_profile *p)
{
    size_t s = wasp_section_begin(b, WASP_SEC_TOTALS);
    wasp_put_u32(b, WASP_AN_COUNT);
    for (uint32_t a = 0; a < WASP_AN_COUNT; a++) {
        const wasp_totals *t = &p->totals[a];
        wasp_put_u32(b, a);
        wasp_put_f64(b, t->bytes);
        wasp_put_f64(b, t->wasted);
        wasp_put_f64(b, t->wasted_approx);
        wasp_put_f64(b, t->pairs);
    }
    wasp_section_end(b, s);
}

static void put_counters(wasp_wbuf *b, const wasp_profile *p)
{
    size_t s = wasp_section_begin(b, WASP_SEC_COUNTERS);
    wasp_put_u32(b, p->ncounters);
    for (uint32_t i = 0; i < p->ncounters; i++) {
        wasp_put_str(b, p->counters[i].name);
        wasp_put_u64(b, p->counters[i].value);
    }
    wasp_section_end(b, s);
}

/* Sites and accesses only when there are some: a profile without object data
 * stays byte for byte what wasp wrote before these sections existed. */
static void put_objects(wasp_wbuf *b, const wasp_profile *p)
{
    if (!p->nsites && !p->naccesses)
        return;
    size_t s = wasp_section_begin(b, WASP_SEC_SITES);
    wasp_put_u32(b, p->nsites);
    for (uint32_t i = 0; i < p->nsites; i++) {
        const wasp_site *q = &p->sites[i];
        wasp_put_u32(b, q->ctx);
        wasp_put_u32(b, q->class_name);
        wasp_put_f64(b, q->allocations);
        wasp_put_f64(b, q->bytes);
    }
    wasp_section_end(b, s);
    s = wasp_section_begin(b, WASP_SEC_ACCESSES);
    wasp_put_u32(b, p->naccesses);
    for (uint32_t i = 0; i < p->naccesses; i++) {
        const wasp_site_access *a = &p->accesses[i];
        wasp_put_u32(b, a->site);
        wasp_put_u32(b, a->access_ctx);
        wasp_put_f64(b, a->samples);
        wasp_put_f64(b, a->remote);
    }
    wasp_section_end(b, s);
}

/* Replica records and checks likewise, each only when there are some. */
static void put_replicas(wasp_wbuf *b, const wasp_profile *p)
{
    if (p->nreplicas) {
        size_t s = wasp_section_begin(b, WASP_SEC_REPLICAS);
        wasp_put_u32(b, p->nreplicas);
        for (uint32_t i = 0; i < p->nreplicas; i++) {
            const wasp_replica *r = &p->replicas[i];
            wasp_put_u32(b, r->site);
            wasp_put_u32(b, r->access_ctx);
            wasp_put_f64(b, r->same);
            wasp_put_f64(b, r->different);
        }
        wasp_section_end(b, s);
    }
    if (p->nreplica_checks) {
        size_t s = wasp_section_begin(b, WASP_SEC_REPLICA_CHECKS);
        wasp_put_u32(b, p->nreplica_checks);
        for (uint32_t i = 0; i < p->nreplica_checks; i++) {
            const wasp_replica_check *c = &p->replica_checks[i];
            wasp_put_u32(b, c->site);
            wasp_put_f64(b, c->pairs);
            wasp_put_f64(b, c->identical);
            wasp_put_f64(b, c->alpha);
            wasp_put_f64(b, c->false_positive);
        }
        wasp_section_end(b, s);
    }
}

/* The writer checks what the reader will reject, so that a bad id becomes an
 * error now rather than an unreadable file later. */
static int check_ids(const wasp_profile *p, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < p->nframes; i++)
        if (p->frames[i].name >= p->nstrings || p->frames[i].file >= p->nstrings) {
            snprintf(err, errlen, "frame %u refers to a missing string", i);
            return -1;
        }
    for (uint32_t i = 0; i < p->ncontexts; i++) {
        const wasp_context *c = &p->contexts[i];
        if (c->insn >= p->nstrings || c->first > p->nframe_refs ||
            c->nframes > p->nframe_refs - c->first) {
            snprintf(err, errlen, "context %u is out of range", i);
            return -1;
        }
        for (uint32_t j = 0; j < c->nframes; j++)
            if (p->frame_refs[c->first + j] >= p->nframes) {
                snprintf(err, errlen, "context %u refers to a missing frame", i);
                return -1;
            }
    }
    for (uint32_t i = 0; i < p->npairs; i++)
        if (p->pairs[i].watch_ctx >= p->ncontexts || p->pairs[i].trap_ctx >= p->ncontexts) {
            snprintf(err, errlen, "pair %u refers to a missing context", i);
            return -1;
        }
    for (uint32_t i = 0; i < p->nsites; i++)
        if (p->sites[i].ctx >= p->ncontexts || p->sites[i].class_name >= p->nstrings) {
            snprintf(err, errlen, "site %u refers to a missing context or string", i);
            return -1;
        }
    for (uint32_t i = 0; i < p->naccesses; i++)
        if (p->accesses[i].site >= p->nsites || p->accesses[i].access_ctx >= p->ncontexts) {
            snprintf(err, errlen, "site access %u refers to a missing site or context", i);
            return -1;
        }
    for (uint32_t i = 0; i < p->nreplicas; i++)
        if (p->replicas[i].site >= p->nsites || p->replicas[i].access_ctx >= p->ncontexts) {
            snprintf(err, errlen, "replica record %u refers to a missing site or context", i);
            return -1;
        }
    for (uint32_t i = 0; i < p->nreplica_checks; i++)
        if (p->replica_checks[i].site >= p->nsites) {
            snprintf(err, errlen, "replica check %u refers to a missing site", i);
            return -1;
        }
    return 0;
}

int wasp_profile_encode(const wasp_profile *p, wasp_wbuf *b, char *err, size_t errlen)
{
    if (check_ids(p, err, errlen) != 0)
        return -1;
    size_t start = b->len;
    wasp_put_bytes(b, WASP_PROF_MAGIC, WASP_PROF_MAGIC_LEN);
    wasp_put_u32(b, WASP_PROF_VERSION);
    put_meta(b, p);
    put_strings(b, p);
    put_frames(b, p);
    put_contexts(b, p);
    put_pairs(b, p);
    put_totals(b, p);
    put_counters(b, p);
    put_objects(b, p);
    put_replicas(b, p);
    size_t s = wasp_section_begin(b, WASP_SEC_MERGED);
    wasp_put_u32(b, p->merged);
    wasp_section_end(b, s);
    wasp_section_end(b, wasp_section_begin(b, WASP_SEC_END));
    if (b->failed) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* zlib's crc32 takes a uInt length: feed it in chunks. */
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t off = start; off < b->len;) {
        size_t n = b->len - off > (1u << 30) ? (1u << 30) : b->len - off;
        crc = crc32(crc, b->data + off, (uInt)n);
        off += n;
    }
    wasp_put_u32(b, (uint32_t)crc);
    if (b->failed) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}
