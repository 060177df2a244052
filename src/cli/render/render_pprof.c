/*
 * --format pprof: the stacks (report_part.h) as a gzipped profile.proto for
 * `go tool pprof` (docs/formats.md). Each (analysis, side) series has sample
 * types of its own ("deadstore_bytes_watched", "deadstore_samples_watched",
 * "objects_samples_access", ...), zero in every other series' samples, so
 * that a type's total is that series' true total: pprof adds all samples of
 * the type it shows, and a pair's two sides weigh the same bytes twice. The
 * default type is the first series' first (docs/formats.md says why). One
 * sample per (analysis, side, context) with string labels "analysis" and
 * "side" (-tagfocus), its stack rooted at a frame naming the analysis and a
 * "[side]" frame. Functions and locations are shared between samples: a
 * function per (name, file), a location per frame with its line.
 */
#include "cli/pprof/profile.pb-c.h" /* generated into build/gen/ (Makefile) */
#include "cli/render/render.h"
#include "cli/render/report_part.h"
#include "cli/render/stack_series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Open addressing, key -> index; keys are nonzero (0 marks a free slot). */
struct map {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n;
};

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    return k ^ (k >> 33);
}

/* The slot of key: its own, or the free one it would take. */
static size_t map_slot(const struct map *m, uint64_t key)
{
    size_t i = mix(key) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int map_put(struct map *m, uint64_t key, uint32_t val)
{
    if (2 * (m->n + 1) > m->cap) {
        struct map g = {calloc(m->cap ? 2 * m->cap : 64, sizeof *g.keys),
                        calloc(m->cap ? 2 * m->cap : 64, sizeof *g.vals),
                        m->cap ? 2 * m->cap : 64, m->n};
        if (!g.keys || !g.vals) {
            free(g.keys);
            free(g.vals);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                size_t s = map_slot(&g, m->keys[i]);
                g.keys[s] = m->keys[i];
                g.vals[s] = m->vals[i];
            }
        free(m->keys);
        free(m->vals);
        *m = g;
    }
    size_t s = map_slot(m, key);
    m->n += !m->keys[s];
    m->keys[s] = key;
    m->vals[s] = val;
    return 0;
}

/* 0 when absent (ids and non-empty string indices are never 0). */
static uint32_t map_get(const struct map *m, uint64_t key)
{
    if (!m->cap)
        return 0;
    size_t s = map_slot(m, key);
    return m->keys[s] ? m->vals[s] : 0;
}

static void map_free(struct map *m)
{
    free(m->keys);
    free(m->vals);
}

/* Grows *a (of *cap elements of size) to hold n + 1. */
static int grow(void *a, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 64;
    void *g = realloc(*(void **)a, c * size);
    if (!g)
        return -1;
    *(void **)a = g;
    *cap = c;
    return 0;
}

struct loc {
    Wasp__Pprof__Location loc;
    Wasp__Pprof__Line line, *linep;
};

/* A series (stack_series.h), one (analysis, side), has 1 + by_bytes sample
 * types from column `first` on (bytes first). Values are rounded on the
 * running sum, so that a type's total is its rounded true total, not a sum
 * of rounded parts. */
struct sample {
    Wasp__Pprof__Sample s;
    Wasp__Pprof__Label labels[2], *labelp[2];
    uint32_t series;
    int64_t bytes, samples; /* this sample's share of the rounded totals */
};

struct pprof {
    wasp_stack_sink sink;
    char **strings;
    size_t nstrings, cap_strings;
    struct map string_ids; /* hash of the text -> index (string_id) */
    Wasp__Pprof__Function *functions;
    size_t nfunctions, cap_functions;
    struct map function_ids; /* (name, file) -> id */
    struct loc *locs;
    size_t nlocs, cap_locs;
    struct map loc_ids; /* frame id + 1, or function id | 1 << 63 -> id */
    struct sample *samples;
    size_t nsamples, cap_samples;
    wasp_series_set series;
    size_t ntypes; /* number_types */
};

static uint64_t fnv(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h ? h : 1;
}

/* The index of s in the string table, added when new; -1 when out of memory.
 * Hash collisions are told apart by probing on with the next key. */
static int64_t string_id(struct pprof *x, const char *s)
{
    if (!*s)
        return 0;
    uint64_t key = fnv(s);
    uint32_t id;
    while ((id = map_get(&x->string_ids, key)) && strcmp(x->strings[id], s) != 0)
        key = mix(key) | 1;
    if (id)
        return id;
    char *copy = strdup(s);
    if (!copy || grow(&x->strings, &x->cap_strings, x->nstrings, sizeof *x->strings) != 0 ||
        map_put(&x->string_ids, key, (uint32_t)x->nstrings) != 0) {
        free(copy);
        return -1;
    }
    x->strings[x->nstrings] = copy;
    return (int64_t)x->nstrings++;
}

/* The id of the function (name, file), added when new; 0 when out of memory. */
static uint64_t function_id(struct pprof *x, const char *name, const char *file)
{
    int64_t n = string_id(x, name), f = string_id(x, file ? file : "");
    if (n < 0 || f < 0)
        return 0;
    uint64_t key = (uint64_t)n << 32 | (uint64_t)f;
    uint32_t id = map_get(&x->function_ids, key);
    if (id)
        return id;
    if (grow(&x->functions, &x->cap_functions, x->nfunctions, sizeof *x->functions) != 0)
        return 0;
    id = (uint32_t)++x->nfunctions;
    Wasp__Pprof__Function fn = WASP__PPROF__FUNCTION__INIT;
    fn.id = id;
    fn.name = fn.system_name = n;
    fn.filename = f;
    x->functions[id - 1] = fn;
    return map_put(&x->function_ids, key, id) == 0 ? id : 0;
}

/* The id of the location with key (frame or marker), made of function fn at
 * line when new; 0 when out of memory. */
static uint64_t location_id(struct pprof *x, uint64_t key, uint64_t fn, int64_t line)
{
    uint32_t id = map_get(&x->loc_ids, key);
    if (id || !fn)
        return id;
    if (grow(&x->locs, &x->cap_locs, x->nlocs, sizeof *x->locs) != 0)
        return 0;
    id = (uint32_t)++x->nlocs;
    struct loc *l = &x->locs[id - 1];
    *l = (struct loc){.loc = WASP__PPROF__LOCATION__INIT, .line = WASP__PPROF__LINE__INIT};
    l->loc.id = id;
    l->line.function_id = fn;
    l->line.line = line > 0 ? line : 0;
    return map_put(&x->loc_ids, key, id) == 0 ? id : 0;
}

/* A frame of the profile: Java frames by method name, file and line; the
 * others by their report label. */
static uint64_t frame_location(struct pprof *x, const wasp_profile *p, uint32_t fid)
{
    uint64_t key = (uint64_t)fid + 1;
    uint32_t id = map_get(&x->loc_ids, key);
    if (id)
        return id;
    const wasp_frame *f = &p->frames[fid];
    const char *file = f->file ? wasp_profile_string(p, f->file) : NULL;
    char label[WASP_FRAME_LABEL_MAX];
    const char *name = wasp_profile_string(p, f->name);
    if (f->kind != WASP_FRAME_JAVA || !name || !*name) {
        wasp_frame_label(p, f, label, sizeof label);
        name = label;
    }
    return location_id(x, key, function_id(x, name, file), f->line);
}

/* A frame wasp adds (the analysis, "[side]", the object's class). */
static uint64_t marker_location(struct pprof *x, const char *name)
{
    uint64_t fn = function_id(x, name, NULL);
    return fn ? location_id(x, fn | 1ULL << 63, fn, 0) : 0;
}

static int emit(wasp_stack_sink *sink, const wasp_profile *p, const wasp_stack *st)
{
    struct pprof *x = (struct pprof *)sink;
    wasp_series *r = wasp_series_of(&x->series, st);
    if (!r)
        return -1;
    const wasp_context *ctx = &p->contexts[st->ctx];
    size_t n = ctx->nframes + 2 + (st->leaf ? 1 : 0), k = 0;
    uint64_t *ids = malloc(n * sizeof *ids);
    if (!ids || grow(&x->samples, &x->cap_samples, x->nsamples, sizeof *x->samples) != 0) {
        free(ids);
        return -1;
    }
    char side[64];
    snprintf(side, sizeof side, "[%s]", st->side);
    if (st->leaf)
        ids[k++] = marker_location(x, st->leaf);
    for (uint32_t i = ctx->nframes; i-- > 0;) /* leaf first */
        ids[k++] = frame_location(x, p, p->frame_refs[ctx->first + i]);
    ids[k++] = marker_location(x, side);
    ids[k++] = marker_location(x, st->analysis);
    struct sample *s = &x->samples[x->nsamples];
    *s = (struct sample){.s = WASP__PPROF__SAMPLE__INIT};
    s->s.location_id = ids;
    s->s.n_location_id = n;
    int64_t keys[2] = {string_id(x, "analysis"), string_id(x, "side")};
    int64_t values[2] = {string_id(x, st->analysis), string_id(x, st->side)};
    for (int i = 0; i < 2; i++) {
        s->labels[i] = (Wasp__Pprof__Label)WASP__PPROF__LABEL__INIT;
        s->labels[i].key = keys[i];
        s->labels[i].str = values[i];
    }
    s->series = (uint32_t)(r - x->series.s);
    s->bytes = r->by_bytes ? wasp_series_part(r, 0, st->bytes) : 0;
    s->samples = wasp_series_part(r, 1, st->samples);
    x->nsamples++; /* freed with the others from here on */
    for (k = 0; k < n; k++)
        if (!ids[k])
            return -1;
    return keys[0] < 0 || keys[1] < 0 || values[0] < 0 || values[1] < 0 ? -1 : 0;
}

/* gzip of buf[0..n) to out. */
static int write_gzip(const uint8_t *buf, size_t n, FILE *out)
{
    z_stream z = {0};
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        return -1;
    z.next_in = (Bytef *)buf;
    z.avail_in = (uInt)n;
    uint8_t chunk[16384];
    int zrc;
    do {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        zrc = deflate(&z, Z_FINISH);
        fwrite(chunk, 1, sizeof chunk - z.avail_out, out);
    } while (zrc == Z_OK || zrc == Z_BUF_ERROR);
    deflateEnd(&z);
    return zrc == Z_STREAM_END ? 0 : -1;
}

/* The name of a sample type: "deadstore_bytes_watched"; a pair's sides are
 * named as --format collapsed's --side names them. */
static void type_name(const wasp_series *r, int k, char *buf, size_t n)
{
    const char *side = strcmp(r->side, "watch") == 0  ? "watched"
                       : strcmp(r->side, "trap") == 0 ? "trapped"
                                                      : r->side;
    snprintf(buf, n, "%s_%s_%s", r->analysis, k == 0 ? "bytes" : "samples", side);
}

/* Numbers the sample types: each series's from `first` on, in series
 * order (the stacks' order); their count. */
static size_t number_types(struct pprof *x)
{
    size_t n = 0;
    for (size_t i = 0; i < x->series.n; i++) {
        x->series.s[i].first = n;
        n += x->series.s[i].by_bytes ? 2 : 1;
    }
    return n;
}

/* The sample types; types[i] the type's string. 0, or -1. */
static int sample_types(struct pprof *x, Wasp__Pprof__ValueType *vt, int64_t *types)
{
    int64_t units[2] = {string_id(x, "bytes"), string_id(x, "count")};
    if (units[0] < 0 || units[1] < 0)
        return -1;
    for (size_t i = 0; i < x->series.n; i++) {
        const wasp_series *r = &x->series.s[i];
        for (int k = r->by_bytes ? 0 : 1, c = 0; k < 2; k++, c++) {
            char name[256];
            type_name(r, k, name, sizeof name);
            size_t t = r->first + (size_t)c;
            vt[t] = (Wasp__Pprof__ValueType)WASP__PPROF__VALUE_TYPE__INIT;
            types[t] = string_id(x, name);
            vt[t].type = types[t];
            vt[t].unit = units[k];
            if (types[t] < 0)
                return -1;
        }
    }
    return 0;
}

/* Points the profile at x's tables (no reallocation after this) and writes it. */
static int write_profile(struct pprof *x, const wasp_profile *p, FILE *out)
{
    const char *cmd = wasp_profile_get_meta(p, "java_command");
    char comment[1024];
    snprintf(comment, sizeof comment, "wasp profile of %s", cmd && *cmd ? cmd : "(unknown)");
    int64_t note = string_id(x, comment);
    x->ntypes = number_types(x);
    size_t nt = x->ntypes ? x->ntypes : 1;
    Wasp__Pprof__ValueType *vt = calloc(nt, sizeof *vt);
    Wasp__Pprof__ValueType **vtp = calloc(nt, sizeof *vtp);
    int64_t *types = calloc(nt, sizeof *types);
    int64_t *values = calloc(x->nsamples * nt + 1, sizeof *values);
    Wasp__Pprof__Sample **samples = malloc((x->nsamples + 1) * sizeof *samples);
    Wasp__Pprof__Location **locs = malloc((x->nlocs + 1) * sizeof *locs);
    Wasp__Pprof__Function **fns = malloc((x->nfunctions + 1) * sizeof *fns);
    int rc = -1;
    if (!vt || !vtp || !types || !values || !samples || !locs || !fns || note < 0 ||
        sample_types(x, vt, types) != 0)
        goto out;
    for (size_t i = 0; i < x->ntypes; i++)
        vtp[i] = &vt[i];
    for (size_t i = 0; i < x->nsamples; i++) {
        struct sample *s = &x->samples[i];
        const wasp_series *r = &x->series.s[s->series];
        int64_t *v = &values[i * x->ntypes];
        if (r->by_bytes)
            v[r->first] = s->bytes;
        v[r->first + (r->by_bytes ? 1 : 0)] = s->samples;
        s->labelp[0] = &s->labels[0];
        s->labelp[1] = &s->labels[1];
        s->s.label = s->labelp;
        s->s.n_label = 2;
        s->s.value = v;
        s->s.n_value = x->ntypes;
        samples[i] = &s->s;
    }
    for (size_t i = 0; i < x->nlocs; i++) {
        x->locs[i].linep = &x->locs[i].line;
        x->locs[i].loc.line = &x->locs[i].linep;
        x->locs[i].loc.n_line = 1;
        locs[i] = &x->locs[i].loc;
    }
    for (size_t i = 0; i < x->nfunctions; i++)
        fns[i] = &x->functions[i];
    Wasp__Pprof__Profile pr = WASP__PPROF__PROFILE__INIT;
    pr.sample_type = vtp;
    pr.n_sample_type = x->ntypes;
    pr.sample = samples;
    pr.n_sample = x->nsamples;
    pr.location = locs;
    pr.n_location = x->nlocs;
    pr.function = fns;
    pr.n_function = x->nfunctions;
    pr.string_table = x->strings;
    pr.n_string_table = x->nstrings;
    pr.comment = &note;
    pr.n_comment = 1;
    /* The first series' first type: the first analysis in registry order,
     * its first side (a pair's watched side): a true total whichever it is. */
    pr.default_sample_type = x->ntypes ? types[0] : 0;
    size_t len = wasp__pprof__profile__get_packed_size(&pr);
    uint8_t *buf = malloc(len ? len : 1);
    if (buf) {
        wasp__pprof__profile__pack(&pr, buf);
        rc = write_gzip(buf, len, out);
    }
    free(buf);
out:
    free(vt);
    free(vtp);
    free(types);
    free(values);
    free(samples);
    free(locs);
    free(fns);
    return rc;
}

int wasp_render_pprof(const wasp_profile *p, int top, FILE *out)
{
    (void)top;
    struct pprof x = {.sink = {emit}};
    /* Entry 0 of the string table must be "" (string_id never adds it). */
    int rc = grow(&x.strings, &x.cap_strings, 0, sizeof *x.strings);
    if (rc == 0 && (x.strings[0] = strdup("")))
        x.nstrings = 1;
    else
        rc = -1;
    if (rc == 0)
        rc = wasp_report_stacks(p, &x.sink);
    if (rc == 0)
        rc = write_profile(&x, p, out);
    for (size_t i = 0; i < x.nstrings; i++)
        free(x.strings[i]);
    free(x.strings);
    for (size_t i = 0; i < x.nsamples; i++)
        free(x.samples[i].s.location_id);
    free(x.samples);
    free(x.functions);
    free(x.locs);
    map_free(&x.string_ids);
    map_free(&x.function_ids);
    map_free(&x.loc_ids);
    return rc;
}
