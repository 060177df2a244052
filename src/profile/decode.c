/*
 * File bytes -> profile, trusting nothing: the header and checksum first,
 * then the section table, then every section with bounds and id checks —
 * the core's, then each analysis's part's (part.h), through the section
 * reader below. Entries are re-interned into a fresh profile through remap
 * tables, so a file with duplicate names still yields a consistent profile;
 * for a file we wrote, ids come out unchanged.
 */
#include "profile/codec.h"
#include "profile/format.h"
#include "profile/cpu_lines.h"
#include "profile/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The core's sections, in the order they are read; the parts' follow. */
enum {
    S_META,
    S_META_NUMBERS,
    S_STRINGS,
    S_FRAMES,
    S_CONTEXTS,
    S_COUNTERS,
    S_MERGED,
    S_SITES,
    S_CPU_LINES,
    S_CPU_LEAVES,
    S_CORE
};
static const uint32_t core_tags[S_CORE] = {
    WASP_SEC_META,     WASP_SEC_META_NUMBERS, WASP_SEC_STRINGS, WASP_SEC_FRAMES,
    WASP_SEC_CONTEXTS, WASP_SEC_COUNTERS,     WASP_SEC_MERGED,  WASP_SEC_SITES,
    WASP_SEC_CPU_LINES, WASP_SEC_CPU_LEAVES,
};
enum { MAX_SECTIONS = S_CORE + WASP_ANALYSES * WASP_PART_SECTIONS };

struct wasp_section {
    uint32_t tag;
    char name[5]; /* the tag's letters, for messages */
    wasp_rbuf r;  /* the payload; len 0 when absent */
    bool seen;
    bool bad_number; /* a measure that is negative, NaN or infinite */
    wasp_decoder *d;
};

struct wasp_decoder {
    const unsigned char *data;
    size_t len;
    wasp_section sec[MAX_SECTIONS]; /* every known section: the core's, then the parts' */
    uint32_t nsec;
    wasp_section undeclared; /* what a part gets for a tag it did not declare */
    wasp_profile *p;
    uint32_t *str, nstr;   /* file string id -> profile string id */
    uint32_t *frame, nfr;  /* file frame id -> profile frame id */
    uint32_t *ctx, nctx;   /* file context id -> profile context id */
    uint32_t *site, nsite; /* file site id -> profile site id */
    char *scratch;         /* a NUL-terminated copy of the current string */
    size_t scratch_cap;
    char *err;
    size_t errlen;
};

static int fail(wasp_decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(wasp_decoder *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, d->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* After a checksum mismatch: does the file stop before its END section and
 * checksum (cut short), or is it complete but damaged? */
static int classify_damage(wasp_decoder *d)
{
    size_t off = WASP_PROF_HEADER_LEN;
    while (d->len - off >= WASP_SEC_HEADER_LEN) {
        uint32_t tag = wasp_load_u32(d->data + off);
        uint64_t n = wasp_load_u64(d->data + off + 4);
        off += WASP_SEC_HEADER_LEN;
        if (n > d->len - off)
            return fail(d, "truncated");
        off += (size_t)n;
        if (tag == WASP_SEC_END)
            return d->len - off < WASP_PROF_CRC_LEN ? fail(d, "truncated")
                                                    : fail(d, "corrupt (checksum)");
    }
    return fail(d, "truncated");
}

static int check_header(wasp_decoder *d)
{
    size_t m = d->len < WASP_PROF_MAGIC_LEN ? d->len : WASP_PROF_MAGIC_LEN;
    if (d->len == 0)
        return fail(d, "not a wasp profile (empty file)");
    if (memcmp(d->data, WASP_PROF_MAGIC, m) != 0)
        return fail(d, "not a wasp profile (bad magic)");
    if (d->len < WASP_PROF_HEADER_LEN)
        return fail(d, "truncated");
    uint32_t version = wasp_load_u32(d->data + WASP_PROF_MAGIC_LEN);
    if (version > WASP_PROF_VERSION)
        return fail(d, "written by a newer wasp, format %u (this wasp reads format %d)", version,
                    WASP_PROF_VERSION);
    if (version == 0)
        return fail(d, "corrupt (format version 0)");
    if (d->len < WASP_PROF_HEADER_LEN + WASP_SEC_HEADER_LEN + WASP_PROF_CRC_LEN)
        return fail(d, "truncated");
    size_t body = d->len - WASP_PROF_CRC_LEN;
    if (wasp_crc32(d->data, body) != wasp_load_u32(d->data + body))
        return classify_damage(d);
    return 0;
}

static void section_init(wasp_decoder *d, wasp_section *s, uint32_t tag)
{
    *s = (wasp_section){.tag = tag, .d = d};
    for (int i = 0; i < 4; i++)
        s->name[i] = (char)(tag >> (8 * i));
}

/* The sections this wasp knows: the core's, then every part's. */
static int declare_sections(wasp_decoder *d)
{
    for (int s = 0; s < S_CORE; s++)
        section_init(d, &d->sec[d->nsec++], core_tags[s]);
    for (int id = 0; id < WASP_ANALYSES; id++)
        for (int k = 0; k < WASP_PART_SECTIONS && wasp_profile_part_of(id)->sections[k]; k++) {
            uint32_t tag = wasp_profile_part_of(id)->sections[k];
            for (uint32_t j = 0; j < d->nsec; j++)
                if (d->sec[j].tag == tag)
                    return fail(d, "internal error (section %s declared twice)", d->sec[j].name);
            section_init(d, &d->sec[d->nsec++], tag);
        }
    section_init(d, &d->undeclared, 0);
    d->undeclared.r.failed = true;
    return 0;
}

/* Finds the known sections; skips unknown ones (newer writers add them). */
static int index_sections(wasp_decoder *d)
{
    size_t off = WASP_PROF_HEADER_LEN, end = d->len - WASP_PROF_CRC_LEN;
    for (;;) {
        if (end - off < WASP_SEC_HEADER_LEN)
            return fail(d, "corrupt (no END section)");
        uint32_t tag = wasp_load_u32(d->data + off);
        uint64_t n = wasp_load_u64(d->data + off + 4);
        off += WASP_SEC_HEADER_LEN;
        if (n > end - off)
            return fail(d, "corrupt (section at offset %zu overruns the file)",
                        off - WASP_SEC_HEADER_LEN);
        if (tag == WASP_SEC_END) {
            if (off + n != end)
                return fail(d, "corrupt (%zu bytes after the END section)", (size_t)(end - off));
            return 0;
        }
        for (uint32_t s = 0; s < d->nsec; s++) {
            if (d->sec[s].tag != tag)
                continue;
            if (d->sec[s].seen)
                return fail(d, "corrupt (two %s sections)", d->sec[s].name);
            d->sec[s].seen = true;
            d->sec[s].r = (wasp_rbuf){.p = d->data + off, .len = (size_t)n};
        }
        off += (size_t)n;
    }
}

/* ---- the section reader (part.h) ---- */

wasp_section *wasp_decoder_section(wasp_decoder *d, uint32_t tag)
{
    for (uint32_t s = 0; s < d->nsec; s++)
        if (d->sec[s].tag == tag)
            return &d->sec[s];
    section_init(d, &d->undeclared, tag);
    d->undeclared.r.failed = true;
    return &d->undeclared;
}

int wasp_section_count(wasp_section *s, size_t min_bytes, uint32_t *n)
{
    if (s == &s->d->undeclared)
        return fail(s->d, "internal error (section %s read but not declared)", s->name);
    *n = s->seen ? wasp_get_u32(&s->r) : 0;
    if (s->r.failed || *n > wasp_rbuf_left(&s->r) / min_bytes)
        return fail(s->d, "corrupt (bad entry count in %s)", s->name);
    return 0;
}

uint32_t wasp_section_u32(wasp_section *s)
{
    return wasp_get_u32(&s->r);
}

double wasp_section_f64(wasp_section *s)
{
    /* Every number in a section measures something (bytes, samples, shares):
     * a negative or non-finite one can only come from damage. */
    double v = wasp_get_f64(&s->r);
    if (!(v >= 0) || isinf(v)) {
        s->bad_number = true;
        return 0;
    }
    return v;
}

int wasp_section_done(wasp_section *s)
{
    if (s->r.failed)
        return fail(s->d, "corrupt (section %s is short)", s->name);
    if (s->bad_number)
        return fail(s->d, "corrupt (a negative or non-finite number in section %s)", s->name);
    if (wasp_rbuf_left(&s->r))
        return fail(s->d, "corrupt (%zu unexpected bytes at the end of section %s)",
                    wasp_rbuf_left(&s->r), s->name);
    return 0;
}

int wasp_section_out_of_memory(wasp_section *s)
{
    return fail(s->d, "out of memory");
}

/* File id `id` of a `kind` ("site") through the remap table of n entries. */
static int map_id(wasp_section *s, const char *what, uint32_t i, const char *kind, uint32_t id,
                  const uint32_t *table, uint32_t n, uint32_t *out)
{
    if (id >= n)
        return fail(s->d, "corrupt (%s %u: %s id %u out of range, %u %ss)", what, i, kind, id, n,
                    kind);
    *out = table[id];
    return 0;
}

int wasp_section_site(wasp_section *s, const char *what, uint32_t i, uint32_t id, uint32_t *out)
{
    return map_id(s, what, i, "site", id, s->d->site, s->d->nsite, out);
}

int wasp_section_context(wasp_section *s, const char *what, uint32_t i, uint32_t id,
                         uint32_t *out)
{
    return map_id(s, what, i, "context", id, s->d->ctx, s->d->nctx, out);
}

int wasp_section_string(wasp_section *s, const char *what, uint32_t i, uint32_t id,
                        uint32_t *out)
{
    return map_id(s, what, i, "string", id, s->d->str, s->d->nstr, out);
}

/* The next string of section s, NUL-terminated in d->scratch. */
static const char *get_cstr(wasp_section *s)
{
    wasp_decoder *d = s->d;
    uint32_t n;
    const char *src = wasp_get_str(&s->r, &n);
    if (!src) {
        fail(d, "corrupt (section %s is short)", s->name);
        return NULL;
    }
    if (memchr(src, 0, n)) {
        fail(d, "corrupt (NUL inside a string in %s)", s->name);
        return NULL;
    }
    if ((size_t)n + 1 > d->scratch_cap) {
        char *b = realloc(d->scratch, (size_t)n + 1);
        if (!b) {
            fail(d, "out of memory");
            return NULL;
        }
        d->scratch = b;
        d->scratch_cap = (size_t)n + 1;
    }
    memcpy(d->scratch, src, n);
    d->scratch[n] = 0;
    return d->scratch;
}

/* A remap table for n file ids (one more, so that n == 0 allocates). */
static uint32_t *remap_table(wasp_decoder *d, uint32_t n)
{
    uint32_t *t = malloc(((size_t)n + 1) * sizeof *t);
    if (!t)
        fail(d, "out of memory");
    return t;
}

/* ---- the core's sections ---- */

static int read_strings(wasp_decoder *d)
{
    wasp_section *s = &d->sec[S_STRINGS];
    if (wasp_section_count(s, 4, &d->nstr) != 0 || !(d->str = remap_table(d, d->nstr)))
        return -1;
    for (uint32_t i = 0; i < d->nstr; i++) {
        const char *str = get_cstr(s);
        if (!str)
            return -1;
        if (i == 0 && *str)
            return fail(d, "corrupt (string 0 is not empty)");
        if ((d->str[i] = wasp_profile_intern_string(d->p, str)) == WASP_NOID)
            return fail(d, "out of memory");
    }
    if (d->nstr == 0) /* no STRS section: only the implicit empty string */
        d->str[d->nstr++] = 0;
    return wasp_section_done(s);
}

static int read_meta(wasp_decoder *d)
{
    wasp_section *s = &d->sec[S_META];
    uint32_t n;
    if (wasp_section_count(s, 8, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const char *k = get_cstr(s);
        if (!k)
            return -1;
        char *key = strdup(k); /* the value's read reuses the scratch buffer */
        if (!key)
            return fail(d, "out of memory");
        const char *v = get_cstr(s);
        int rc = v ? wasp_profile_set_meta_checked(d->p, key, v) : -1;
        free(key);
        if (!v)
            return -1;
        if (rc != 0)
            return fail(d, "out of memory");
    }
    return wasp_section_done(s);
}

static int read_frames(wasp_decoder *d)
{
    wasp_section *s = &d->sec[S_FRAMES];
    if (wasp_section_count(s, 16, &d->nfr) != 0 || !(d->frame = remap_table(d, d->nfr)))
        return -1;
    for (uint32_t i = 0; i < d->nfr; i++) {
        wasp_frame f;
        f.kind = wasp_section_u32(s);
        uint32_t name = wasp_section_u32(s), file = wasp_section_u32(s);
        f.line = (int32_t)wasp_section_u32(s);
        if (wasp_section_string(s, "frame", i, name, &f.name) != 0 ||
            wasp_section_string(s, "frame", i, file, &f.file) != 0)
            return -1;
        if ((d->frame[i] = wasp_profile_intern_frame(d->p, &f)) == WASP_NOID)
            return fail(d, "out of memory");
    }
    return wasp_section_done(s);
}

/* Context i: its instruction and frames, re-interned. refs has room for
 * the frames (the count is checked against the bytes left first). */
static int read_context(wasp_section *s, uint32_t i, uint32_t **refs)
{
    wasp_decoder *d = s->d;
    uint32_t insn = wasp_section_u32(s), n = wasp_section_u32(s);
    if (s->r.failed || n > wasp_rbuf_left(&s->r) / 4)
        return fail(d, "corrupt (context %u: bad frame count)", i);
    if (wasp_section_string(s, "context", i, insn, &insn) != 0)
        return -1;
    uint32_t *nr = realloc(*refs, ((size_t)n + 1) * sizeof **refs);
    if (!nr)
        return fail(d, "out of memory");
    *refs = nr;
    for (uint32_t j = 0; j < n; j++)
        if (map_id(s, "context", i, "frame", wasp_section_u32(s), d->frame, d->nfr, &nr[j]) != 0)
            return -1;
    if ((d->ctx[i] = wasp_profile_intern_context(d->p, nr, n, insn)) == WASP_NOID)
        return fail(d, "out of memory");
    return 0;
}

static int read_contexts(wasp_decoder *d)
{
    wasp_section *s = &d->sec[S_CONTEXTS];
    if (wasp_section_count(s, 8, &d->nctx) != 0 || !(d->ctx = remap_table(d, d->nctx)))
        return -1;
    uint32_t *refs = NULL;
    int rc = 0;
    for (uint32_t i = 0; i < d->nctx && rc == 0; i++)
        rc = read_context(s, i, &refs);
    free(refs);
    return rc == 0 ? wasp_section_done(s) : -1;
}

/* A section of n x {str name, 8-byte value}: each entry through add, which
 * returns 0, -1 out of memory, or ADD_NOT_FINITE for a value that is no
 * number. */
enum { ADD_NOT_FINITE = -2 };
static int read_named_values(wasp_decoder *d, int sec,
                             int (*add)(wasp_profile *p, const char *name, uint64_t bits))
{
    wasp_section *s = &d->sec[sec];
    uint32_t n;
    if (wasp_section_count(s, 12, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = get_cstr(s);
        if (!name)
            return -1;
        uint64_t bits = wasp_get_u64(&s->r);
        if (s->r.failed)
            return fail(d, "corrupt (section %s is short)", s->name);
        int rc = add(d->p, name, bits);
        if (rc == ADD_NOT_FINITE)
            return fail(d, "corrupt (section %s: %.80s is not a finite number)", s->name, name);
        if (rc != 0)
            return fail(d, "out of memory");
    }
    return wasp_section_done(s);
}

static int add_counter(wasp_profile *p, const char *name, uint64_t value)
{
    return wasp_profile_add_counter_checked(p, name, value);
}

/* A key of MNUM gets its number (one META lacks is added). */
static int add_meta_number(wasp_profile *p, const char *key, uint64_t bits)
{
    double v;
    memcpy(&v, &bits, sizeof v);
    if (!isfinite(v))
        return ADD_NOT_FINITE; /* NaN or infinity: no count, size or time is */
    return wasp_profile_set_meta_num_checked(p, key, v);
}

static int read_counters(wasp_decoder *d)
{
    return read_named_values(d, S_COUNTERS, add_counter);
}

/* After META: the keys whose values are numbers. */
static int read_meta_numbers(wasp_decoder *d)
{
    return read_named_values(d, S_META_NUMBERS, add_meta_number);
}

static int read_merged(wasp_decoder *d)
{
    wasp_section *s = &d->sec[S_MERGED];
    if (!s->seen)
        return 0; /* the profile's default: 1 */
    d->p->merged = wasp_section_u32(s);
    if (!s->r.failed && d->p->merged == 0)
        return fail(d, "corrupt (merged count 0)");
    return wasp_section_done(s);
}

static int read_sites(wasp_decoder *d)
{
    wasp_section *s = &d->sec[S_SITES];
    if (wasp_section_count(s, 24, &d->nsite) != 0 || !(d->site = remap_table(d, d->nsite)))
        return -1;
    for (uint32_t i = 0; i < d->nsite; i++) {
        uint32_t ctx = wasp_section_u32(s), cls = wasp_section_u32(s);
        double allocations = wasp_section_f64(s), bytes = wasp_section_f64(s);
        if (wasp_section_context(s, "site", i, ctx, &ctx) != 0 ||
            wasp_section_string(s, "site", i, cls, &cls) != 0)
            return -1;
        d->site[i] = wasp_profile_intern_site(d->p, ctx, cls);
        if (d->site[i] == WASP_NOID ||
            wasp_profile_add_site_allocs_checked(d->p, d->site[i], allocations, bytes) != 0)
            return fail(d, "out of memory");
    }
    return wasp_section_done(s);
}

/* Dependency order, whatever order the sections came in; the parts last. */
static int read_all(wasp_decoder *d)
{
    static int (*const core[])(wasp_decoder *) = {
        read_strings,  read_meta,   read_meta_numbers, read_frames,
        read_contexts, read_counters, read_merged,     read_sites,
    };
    for (size_t i = 0; i < sizeof core / sizeof *core; i++)
        if (core[i](d) != 0)
            return -1;
    if (wasp_cpu_lines_decode(d->p, d) != 0)
        return -1;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_profile_part *part = wasp_profile_part_of(id);
        if (part->decode && part->decode(d->p, d) != 0)
            return -1;
    }
    return 0;
}

wasp_profile *wasp_profile_decode(const unsigned char *data, size_t len, char *err, size_t errlen)
{
    wasp_decoder *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    *d = (wasp_decoder){.data = data, .len = len, .err = err, .errlen = errlen};
    int rc = check_header(d);
    if (rc == 0)
        rc = declare_sections(d);
    if (rc == 0)
        rc = index_sections(d);
    if (rc == 0 && !(d->p = wasp_profile_new()))
        rc = fail(d, "out of memory");
    if (rc == 0)
        rc = read_all(d);
    wasp_profile *p = d->p;
    free(d->str);
    free(d->frame);
    free(d->ctx);
    free(d->site);
    free(d->scratch);
    free(d);
    if (rc != 0) {
        wasp_profile_free(p);
        return NULL;
    }
    return p;
}
