/*
 * Matching the entries of two profiles (diff.h). Each analysis's diff part
 * (diff_part.h) gives every entry of each side a key spelled from its
 * strings, never its ids: both sides' keys are sorted together, and equal
 * neighbours are the same entry.
 */
#include "cli/commands/diff.h"
#include "cli/diff/diff_part.h"
#include "cli/render/render.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wasp_diff_builder {
    wasp_diff *d;
    uint32_t cap;
    bool with_insn;
};

static void put(wasp_diff_key *k, const char *s, size_t n)
{
    if (!k->ok)
        return;
    if (k->len + n + 1 > k->cap) {
        size_t cap = (k->cap ? k->cap * 2 : 128) + n;
        char *g = realloc(k->s, cap);
        if (!g) {
            k->ok = false;
            return;
        }
        k->s = g;
        k->cap = cap;
    }
    memcpy(k->s + k->len, s, n);
    k->len += n;
    k->s[k->len] = '\0';
}

static void puts_(wasp_diff_key *k, const char *s)
{
    put(k, s ? s : "", strlen(s ? s : ""));
}

/* The hex digits at s: how many. */
static size_t hex_run(const char *s)
{
    size_t n = 0;
    while (isxdigit((unsigned char)s[n]))
        n++;
    return n;
}

/* A class's or frame's name as two runs can match it. A hidden class's name
 * carries the address the run loaded it at (a lambda's
 * "Main$$Lambda$35.0x00007f92600a8de8", "Main$$Lambda/0x0000020001003200"
 * on newer JDKs, "java.lang.invoke.LambdaForm$MH.0x0000000800c0c400"), and a
 * lambda's number the order its run spun lambdas in: both are left out
 * ("Main$$Lambda.run"), or every stack through a lambda, a stream or a
 * method handle would vanish from one run and appear in the other. The
 * frame after a lambda's (lambda$main$0) still tells two lambdas apart. */
static void put_name(wasp_diff_key *k, const char *s)
{
    static const char lambda[] = "$$Lambda";
    const size_t ll = sizeof lambda - 1;
    if (!s)
        return;
    while (*s) {
        if (strncmp(s, lambda, ll) == 0) {
            put(k, s, ll);
            s += ll;
            if (s[0] == '$' && s[1] >= '0' && s[1] <= '9')
                for (s++; *s >= '0' && *s <= '9'; s++)
                    ;
        } else if ((s[0] == '.' || s[0] == '/') && s[1] == '0' && s[2] == 'x' &&
                   hex_run(s + 3) >= 6) {
            s += 3 + hex_run(s + 3);
        } else {
            put(k, s++, 1);
        }
    }
}

/* Control characters separate the parts: no Java name or file holds them. */
void wasp_diff_key_begin(wasp_diff_key *k, int id)
{
    *k = (wasp_diff_key){.ok = true};
    char head[16];
    snprintf(head, sizeof head, "A%d\x1c", id);
    puts_(k, head);
}

void wasp_diff_key_string(wasp_diff_key *k, const char *s)
{
    put_name(k, s);
    put(k, "\x1c", 1);
}

void wasp_diff_key_number(wasp_diff_key *k, double v)
{
    char num[40];
    snprintf(num, sizeof num, "%.17g\x1c", v);
    puts_(k, num);
}

void wasp_diff_key_context(wasp_diff_key *k, const wasp_profile *p, uint32_t ctx, bool with_insn)
{
    const wasp_context *c = &p->contexts[ctx];
    char num[32];
    for (uint32_t i = 0; i < c->nframes; i++) {
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + i]];
        snprintf(num, sizeof num, "%u\x1f", (unsigned)f->kind);
        puts_(k, num);
        put_name(k, wasp_profile_string(p, f->name));
        put(k, "\x1f", 1);
        puts_(k, wasp_profile_string(p, f->file));
        /* a native method's line (profiles since 2026-12-01) as any line unknown */
        snprintf(num, sizeof num, "\x1f%d\x1e", f->line < 0 ? -1 : (int)f->line);
        puts_(k, num);
    }
    if (with_insn) {
        put(k, "\x1d", 1);
        puts_(k, wasp_profile_string(p, c->insn));
    }
    put(k, "\x1c", 1);
}

bool wasp_diff_with_insn(const wasp_diff_builder *b)
{
    return b->with_insn;
}

void wasp_diff_set_total(wasp_diff_builder *b, int id, int side, double total, double fraction)
{
    b->d->an[id].total[side] = total;
    b->d->an[id].fraction[side] = fraction;
}

void wasp_diff_set_samples(wasp_diff_builder *b, int id, int side, double samples,
                           double observations)
{
    b->d->an[id].samples[side] = samples;
    b->d->an[id].observations[side] = observations;
}

int wasp_diff_add(wasp_diff_builder *b, int id, int side, wasp_diff_key *k, uint32_t index,
                  uint32_t rank, double value, double samples)
{
    wasp_diff *d = b->d;
    if (!k->ok || (d->n == b->cap && b->cap > UINT32_MAX / 2)) {
        free(k->s);
        *k = (wasp_diff_key){0};
        return -1;
    }
    if (d->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 64;
        wasp_diff_entry *g = realloc(d->entries, cap * sizeof *g);
        if (!g) {
            free(k->s);
            *k = (wasp_diff_key){0};
            return -1;
        }
        d->entries = g;
        b->cap = cap;
    }
    wasp_diff_entry *e = &d->entries[d->n++];
    memset(e, 0, sizeof *e);
    e->analysis = id % WASP_ANALYSES;
    e->section = id;
    e->key = k->s;
    *k = (wasp_diff_key){0};
    e->index[0] = e->index[1] = UINT32_MAX;
    e->index[side] = index;
    e->rank[side] = rank;
    e->value[side] = value;
    e->samples[side] = samples;
    double total = d->an[id].total[side];
    e->share[side] = total > 0 ? value / total : 0;
    return 0;
}

static int collect(wasp_diff_builder *b, int side)
{
    const wasp_profile *p = b->d->side[side];
    uint32_t shown = wasp_report_shown_analyses(p);
    for (int s = 0; s < WASP_DIFF_SECTIONS; s++) {
        /* The sections a diff compares: those with a diff part (docs/diff.md)
         * of an analysis shown, which show themselves. */
        const wasp_diff_part *part = wasp_diff_part_of(s);
        if (!(shown & (1u << (s % WASP_ANALYSES))) || !part || !part->collect ||
            (part->shown && !part->shown(p, s)))
            continue;
        wasp_diff_analysis *a = &b->d->an[s];
        a->shown[side] = true;
        a->samples[side] = -1;
        if (part->collect(b, p, s, side) != 0)
            return -1;
        if (a->samples[side] < 0) /* the total is a count of samples */
            a->samples[side] = a->total[side];
    }
    return 0;
}

/* Key order, before's entry ahead of after's. */
static int by_key(const void *x, const void *y)
{
    const wasp_diff_entry *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    if (c)
        return c;
    return (a->index[0] == UINT32_MAX) - (b->index[0] == UINT32_MAX);
}

static double share_change(const wasp_diff_entry *e)
{
    return fabs(e->share[1] - e->share[0]);
}

/* By analysis and section (its view's rows, then its sub's), significant
 * changes first, then the largest change of share first; ties by key. */
static int by_change(const void *x, const void *y)
{
    const wasp_diff_entry *a = x, *b = y;
    if (a->analysis != b->analysis)
        return a->analysis < b->analysis ? -1 : 1;
    if (a->section != b->section)
        return a->section < b->section ? -1 : 1;
    if (a->significant != b->significant)
        return a->significant ? -1 : 1;
    double ca = share_change(a), cb = share_change(b);
    if (ca != cb)
        return ca > cb ? -1 : 1;
    return strcmp(a->key, b->key);
}

/* Folds each run of equal keys into its first entry. */
static void fold(wasp_diff *d)
{
    uint32_t out = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        wasp_diff_entry *e = &d->entries[i];
        if (out > 0 && strcmp(d->entries[out - 1].key, e->key) == 0) {
            wasp_diff_entry *m = &d->entries[out - 1];
            for (int s = 0; s < 2; s++) {
                if (e->index[s] == UINT32_MAX)
                    continue;
                if (m->index[s] == UINT32_MAX) {
                    m->index[s] = e->index[s];
                    m->rank[s] = e->rank[s];
                }
                m->value[s] += e->value[s];
                m->share[s] += e->share[s];
                m->samples[s] += e->samples[s];
            }
            free(e->key);
            continue;
        }
        d->entries[out++] = *e;
    }
    d->n = out;
}

int wasp_diff_build(const wasp_profile *before, const wasp_profile *after, bool with_insn,
                    wasp_diff *d)
{
    memset(d, 0, sizeof *d);
    d->side[0] = before;
    d->side[1] = after;
    char err[128];
    if (wasp_profile_check(before, err, sizeof err) != 0 ||
        wasp_profile_check(after, err, sizeof err) != 0)
        return -1;
    wasp_diff_builder b = {.d = d, .with_insn = with_insn};
    if (collect(&b, 0) != 0 || collect(&b, 1) != 0) {
        wasp_diff_free(d);
        return -1;
    }
    if (d->n) {
        qsort(d->entries, d->n, sizeof *d->entries, by_key);
        fold(d);
        if (wasp_diff_test_noise(d) != 0) {
            wasp_diff_free(d);
            return -1;
        }
        qsort(d->entries, d->n, sizeof *d->entries, by_change);
    }
    return 0;
}

void wasp_diff_free(wasp_diff *d)
{
    for (uint32_t i = 0; i < d->n; i++)
        free(d->entries[i].key);
    free(d->entries);
    d->entries = NULL;
    d->n = 0;
}

wasp_diff_change wasp_diff_change_of(const wasp_diff_entry *e)
{
    bool was = e->value[0] > 0, is = e->value[1] > 0;
    if (was && !is)
        return WASP_DIFF_VANISHED;
    if (!was && is)
        return WASP_DIFF_APPEARED;
    if (e->share[1] < e->share[0])
        return WASP_DIFF_SHRANK;
    if (e->share[1] > e->share[0])
        return WASP_DIFF_GREW;
    return WASP_DIFF_UNCHANGED;
}

const char *wasp_diff_change_name(wasp_diff_change c)
{
    static const char *const names[] = {"vanished", "appeared", "shrank", "grew", "unchanged"};
    return (unsigned)c < sizeof names / sizeof *names ? names[c] : "unchanged";
}
