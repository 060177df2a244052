/*
 * File bytes -> profile, trusting nothing: the header and checksum first,
 * then the section table, then every section with bounds and id checks.
 * Entries are re-interned into a fresh profile through remap tables, so a
 * file with duplicate names still yields a consistent profile; for a file we
 * wrote, ids come out unchanged.
 */
#include "profile/codec.h"
#include "profile/format.h"
#include "profile/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum {
    S_META,
    S_STRINGS,
    S_FRAMES,
    S_CONTEXTS,
    S_PAIRS,
    S_TOTALS,
    S_COUNTERS,
    S_MERGED,
    S_SITES,
    S_ACCESSES,
    S_REPLICAS,
    S_CHECKS,
    S_N
};

static const uint32_t section_tags[S_N] = {
    WASP_SEC_META,  WASP_SEC_STRINGS, WASP_SEC_FRAMES,   WASP_SEC_CONTEXTS, WASP_SEC_PAIRS,
    WASP_SEC_TOTALS, WASP_SEC_COUNTERS, WASP_SEC_MERGED, WASP_SEC_SITES,   WASP_SEC_ACCESSES,
    WASP_SEC_REPLICAS, WASP_SEC_REPLICA_CHECKS,
};
static const char *const section_names[S_N] = {"META", "STRS", "FRMS", "CTXS", "PAIR",
                                               "TOTL", "CNTR", "MRGD", "SITE", "SACC",
                                               "REPL", "RCHK"};

struct decoder {
    const unsigned char *data;
    size_t len;
    wasp_rbuf sec[S_N]; /* payload of each known section; len 0 when absent */
    bool seen[S_N];
    wasp_profile *p;
    uint32_t *str, nstr;  /* file string id -> profile string id */
    uint32_t *frame, nfr; /* file frame id -> profile frame id */
    uint32_t *ctx, nctx;  /* file context id -> profile context id */
    uint32_t *site, nsite; /* file site id -> profile site id */
    char *scratch;        /* a NUL-terminated copy of the current string */
    size_t scratch_cap;
    char *err;
    size_t errlen;
};

static int fail(struct decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct decoder *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, d->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static uint32_t file_crc(const unsigned char *data, size_t n)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    while (n) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, data, k);
        data += k;
        n -= k;
    }
    return (uint32_t)crc;
}

/* After a checksum mismatch: does the file stop before its END section and
 * checksum (cut short), or is it complete but damaged? */
static int classify_damage(struct decoder *d)
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

static int check_header(struct decoder *d)
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
    if (file_crc(d->data, body) != wasp_load_u32(d->data + body))
        return classify_damage(d);
    return 0;
}

/* Finds the known sections; skips unknown ones (newer writers add them). */
static int index_sections(struct decoder *d)
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
        for (int s = 0; s < S_N; s++) {
            if (section_tags[s] != tag)
                continue;
            if (d->seen[s])
                return fail(d, "corrupt (two %s sections)", section_names[s]);
            d->seen[s] = true;
            d->sec[s] = (wasp_rbuf){.p = d->data + off, .len = (size_t)n};
        }
        off += (size_t)n;
    }
}

/* Reads the entry count of section s; each entry takes at least min bytes,
 * which bounds the count before anything is allocated from it. */
static int get_count(struct decoder *d, int s, size_t min, uint32_t *n)
{
    *n = d->seen[s] ? wasp_get_u32(&d->sec[s]) : 0;
    if (d->sec[s].failed || *n > wasp_rbuf_left(&d->sec[s]) / min)
        return fail(d, "corrupt (bad entry count in %s)", section_names[s]);
    return 0;
}

static int section_done(struct decoder *d, int s)
{
    if (d->sec[s].failed)
        return fail(d, "corrupt (section %s is short)", section_names[s]);
    if (wasp_rbuf_left(&d->sec[s]))
        return fail(d, "corrupt (%zu unexpected bytes at the end of section %s)",
                    wasp_rbuf_left(&d->sec[s]), section_names[s]);
    return 0;
}

/* The next string of section s, NUL-terminated in d->scratch. */
static const char *get_cstr(struct decoder *d, int s)
{
    uint32_t n;
    const char *src = wasp_get_str(&d->sec[s], &n);
    if (!src) {
        fail(d, "corrupt (section %s is short)", section_names[s]);
        return NULL;
    }
    if (memchr(src, 0, n)) {
        fail(d, "corrupt (NUL inside a string in %s)", section_names[s]);
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

static int read_strings(struct decoder *d)
{
    if (get_count(d, S_STRINGS, 4, &d->nstr) != 0)
        return -1;
    d->str = malloc(((size_t)d->nstr + 1) * sizeof *d->str);
    if (!d->str)
        return fail(d, "out of memory");
    for (uint32_t i = 0; i < d->nstr; i++) {
        const char *s = get_cstr(d, S_STRINGS);
        if (!s)
            return -1;
        if (i == 0 && *s)
            return fail(d, "corrupt (string 0 is not empty)");
        if ((d->str[i] = wasp_profile_intern_string(d->p, s)) == WASP_NOID)
            return fail(d, "out of memory");
    }
    if (d->nstr == 0) /* no STRS section: only the implicit empty string */
        d->str[d->nstr++] = 0;
    return section_done(d, S_STRINGS);
}

static int read_meta(struct decoder *d)
{
    uint32_t n;
    if (get_count(d, S_META, 8, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const char *k = get_cstr(d, S_META);
        if (!k)
            return -1;
        char *key = strdup(k); /* the value's read reuses the scratch buffer */
        if (!key)
            return fail(d, "out of memory");
        const char *v = get_cstr(d, S_META);
        int rc = v ? wasp_profile_set_meta_checked(d->p, key, v) : -1;
        free(key);
        if (!v)
            return -1;
        if (rc != 0)
            return fail(d, "out of memory");
    }
    return section_done(d, S_META);
}

static int read_frames(struct decoder *d)
{
    wasp_rbuf *r = &d->sec[S_FRAMES];
    if (get_count(d, S_FRAMES, 16, &d->nfr) != 0)
        return -1;
    d->frame = malloc(((size_t)d->nfr + 1) * sizeof *d->frame);
    if (!d->frame)
        return fail(d, "out of memory");
    for (uint32_t i = 0; i < d->nfr; i++) {
        wasp_frame f;
        f.kind = wasp_get_u32(r);
        uint32_t name = wasp_get_u32(r), file = wasp_get_u32(r);
        f.line = (int32_t)wasp_get_u32(r);
        if (name >= d->nstr || file >= d->nstr)
            return fail(d, "corrupt (frame %u: string id %u out of range, %u strings)", i,
                        name >= d->nstr ? name : file, d->nstr);
        f.name = d->str[name];
        f.file = d->str[file];
        if ((d->frame[i] = wasp_profile_intern_frame(d->p, &f)) == WASP_NOID)
            return fail(d, "out of memory");
    }
    return section_done(d, S_FRAMES);
}

static int read_contexts(struct decoder *d)
{
    wasp_rbuf *r = &d->sec[S_CONTEXTS];
    if (get_count(d, S_CONTEXTS, 8, &d->nctx) != 0)
        return -1;
    d->ctx = malloc(((size_t)d->nctx + 1) * sizeof *d->ctx);
    uint32_t *refs = NULL;
    if (!d->ctx)
        return fail(d, "out of memory");
    int rc = 0;
    for (uint32_t i = 0; i < d->nctx && rc == 0; i++) {
        uint32_t insn = wasp_get_u32(r), n = wasp_get_u32(r);
        if (r->failed || n > wasp_rbuf_left(r) / 4) {
            rc = fail(d, "corrupt (context %u: bad frame count)", i);
            break;
        }
        if (insn >= d->nstr) {
            rc = fail(d, "corrupt (context %u: string id %u out of range, %u strings)", i, insn,
                      d->nstr);
            break;
        }
        uint32_t *nr = realloc(refs, ((size_t)n + 1) * sizeof *refs);
        if (!nr) {
            rc = fail(d, "out of memory");
            break;
        }
        refs = nr;
        for (uint32_t j = 0; j < n && rc == 0; j++) {
            uint32_t f = wasp_get_u32(r);
            if (f >= d->nfr)
                rc = fail(d, "corrupt (context %u: frame id %u out of range, %u frames)", i, f,
                          d->nfr);
            else
                refs[j] = d->frame[f];
        }
        if (rc == 0 &&
            (d->ctx[i] = wasp_profile_intern_context(d->p, refs, n, d->str[insn])) == WASP_NOID)
            rc = fail(d, "out of memory");
    }
    free(refs);
    return rc == 0 ? section_done(d, S_CONTEXTS) : -1;
}

static int read_pairs(struct decoder *d)
{
    wasp_rbuf *r = &d->sec[S_PAIRS];
    uint32_t n;
    if (get_count(d, S_PAIRS, 32, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = wasp_get_u32(r), flags = wasp_get_u32(r);
        uint32_t w = wasp_get_u32(r), t = wasp_get_u32(r);
        double bytes = wasp_get_f64(r), count = wasp_get_f64(r);
        if (w >= d->nctx || t >= d->nctx)
            return fail(d, "corrupt (pair %u: context id %u out of range, %u contexts)", i,
                        w >= d->nctx ? w : t, d->nctx);
        if (a >= WASP_AN_COUNT)
            continue; /* an analysis this wasp does not know: skipped */
        if (wasp_profile_add_pair_checked(d->p, (wasp_analysis)a, flags, d->ctx[w], d->ctx[t],
                                          bytes, count) != 0)
            return fail(d, "out of memory");
    }
    return section_done(d, S_PAIRS);
}

static int read_totals(struct decoder *d)
{
    wasp_rbuf *r = &d->sec[S_TOTALS];
    uint32_t n;
    if (get_count(d, S_TOTALS, 36, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = wasp_get_u32(r);
        wasp_totals t;
        t.bytes = wasp_get_f64(r);
        t.wasted = wasp_get_f64(r);
        t.wasted_approx = wasp_get_f64(r);
        t.pairs = wasp_get_f64(r);
        if (a < WASP_AN_COUNT)
            wasp_profile_add_totals(d->p, (wasp_analysis)a, &t);
    }
    return section_done(d, S_TOTALS);
}

static int read_counters(struct decoder *d)
{
    wasp_rbuf *r = &d->sec[S_COUNTERS];
    uint32_t n;
    if (get_count(d, S_COUNTERS, 12, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = get_cstr(d, S_COUNTERS);
        if (!name)
            return -1;
        uint64_t v = wasp_get_u64(r);
        if (r->failed)
            return fail(d, "corrupt (section CNTR is short)");
        if (wasp_profile_add_counter_checked(d->p, name, v) != 0)
            return fail(d, "out of memory");
    }
    return section_done(d, S_COUNTERS);
}

static int read_sites(struct decoder *d)
{
    wasp_rbuf *r = &d->sec[S_SITES];
    if (get_count(d, S_SITES, 24, &d->nsite) != 0)
        return -1;
    d->site = malloc(((size_t)d->nsite + 1) * sizeof *d->site);
    if (!d->site)
        return fail(d, "out of memory");
    for (uint32_t i = 0; i < d->nsite; i++) {
        uint32_t ctx = wasp_get_u32(r), cls = wasp_get_u32(r);
        double allocations = wasp_get_f64(r), bytes = wasp_get_f64(r);
        if (ctx >= d->nctx)
            return fail(d, "corrupt (site %u: context id %u out of range, %u contexts)", i, ctx,
                        d->nctx);
        if (cls >= d->nstr)
            return fail(d, "corrupt (site %u: string id %u out of range, %u strings)", i, cls,
                        d->nstr);
        d->site[i] = wasp_profile_intern_site(d->p, d->ctx[ctx], d->str[cls]);
        if (d->site[i] == WASP_NOID ||
            wasp_profile_add_site_allocs_checked(d->p, d->site[i], allocations, bytes) != 0)
            return fail(d, "out of memory");
    }
    return section_done(d, S_SITES);
}

static int read_accesses(struct decoder *d)
{
    wasp_rbuf *r = &d->sec[S_ACCESSES];
    uint32_t n;
    if (get_count(d, S_ACCESSES, 24, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t site = wasp_get_u32(r), ctx = wasp_get_u32(r);
        double samples = wasp_get_f64(r), remote = wasp_get_f64(r);
        if (site >= d->nsite)
            return fail(d, "corrupt (site access %u: site id %u out of range, %u sites)", i, site,
                        d->nsite);
        if (ctx >= d->nctx)
            return fail(d, "corrupt (site access %u: context id %u out of range, %u contexts)", i,
                        ctx, d->nctx);
        if (wasp_profile_add_site_access_checked(d->p, d->site[site], d->ctx[ctx], samples,
                                                 remote) != 0)
            return fail(d, "out of memory");
    }
    return section_done(d, S_ACCESSES);
}

static int read_replicas(struct decoder *d)
{
    wasp_rbuf *r = &d->sec[S_REPLICAS];
    uint32_t n;
    if (get_count(d, S_REPLICAS, 24, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t site = wasp_get_u32(r), ctx = wasp_get_u32(r);
        double same = wasp_get_f64(r), different = wasp_get_f64(r);
        if (site >= d->nsite)
            return fail(d, "corrupt (replica record %u: site id %u out of range, %u sites)", i,
                        site, d->nsite);
        if (ctx >= d->nctx)
            return fail(d, "corrupt (replica record %u: context id %u out of range, %u contexts)",
                        i, ctx, d->nctx);
        if (wasp_profile_add_replica_checked(d->p, d->site[site], d->ctx[ctx], same, different) !=
            0)
            return fail(d, "out of memory");
    }
    return section_done(d, S_REPLICAS);
}

/* Checks of sites that collapsed into one (duplicates) are merged. */
static int read_checks(struct decoder *d)
{
    wasp_rbuf *r = &d->sec[S_CHECKS];
    uint32_t n;
    if (get_count(d, S_CHECKS, 36, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        wasp_replica_check c;
        uint32_t site = wasp_get_u32(r);
        c.pairs = wasp_get_f64(r);
        c.identical = wasp_get_f64(r);
        c.alpha = wasp_get_f64(r);
        c.false_positive = wasp_get_f64(r);
        if (site >= d->nsite)
            return fail(d, "corrupt (replica check %u: site id %u out of range, %u sites)", i,
                        site, d->nsite);
        c.site = d->site[site];
        if (wasp_profile_merge_replica_check_checked(d->p, &c) != 0)
            return fail(d, "out of memory");
    }
    return section_done(d, S_CHECKS);
}

static int read_merged(struct decoder *d)
{
    if (!d->seen[S_MERGED])
        return 0; /* the profile's default: 1 */
    d->p->merged = wasp_get_u32(&d->sec[S_MERGED]);
    if (!d->sec[S_MERGED].failed && d->p->merged == 0)
        return fail(d, "corrupt (merged count 0)");
    return section_done(d, S_MERGED);
}

wasp_profile *wasp_profile_decode(const unsigned char *data, size_t len, char *err, size_t errlen)
{
    struct decoder d = {.data = data, .len = len, .err = err, .errlen = errlen};
    int rc = check_header(&d);
    if (rc == 0)
        rc = index_sections(&d);
    if (rc == 0 && !(d.p = wasp_profile_new()))
        rc = fail(&d, "out of memory");
    /* Dependency order, whatever order the sections came in. */
    if (rc == 0)
        rc = read_strings(&d);
    if (rc == 0)
        rc = read_meta(&d);
    if (rc == 0)
        rc = read_frames(&d);
    if (rc == 0)
        rc = read_contexts(&d);
    if (rc == 0)
        rc = read_pairs(&d);
    if (rc == 0)
        rc = read_totals(&d);
    if (rc == 0)
        rc = read_counters(&d);
    if (rc == 0)
        rc = read_merged(&d);
    if (rc == 0)
        rc = read_sites(&d);
    if (rc == 0)
        rc = read_accesses(&d);
    if (rc == 0)
        rc = read_replicas(&d);
    if (rc == 0)
        rc = read_checks(&d);
    free(d.str);
    free(d.frame);
    free(d.ctx);
    free(d.site);
    free(d.scratch);
    if (rc != 0) {
        wasp_profile_free(d.p);
        return NULL;
    }
    return d.p;
}
