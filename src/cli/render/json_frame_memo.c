/* Frames formatted once (json_frame_memo.h). */
#include "cli/render/json_frame_memo.h"
#include "cli/render/render.h"

#include <stdlib.h>

struct wasp_json_memo {
    const wasp_profile *p; /* the frames' profile: another one is not memoised */
    FILE *text;            /* every frame written so far, back to back */
    char *buf;             /* text's bytes (valid after a flush) */
    size_t len;
    uint64_t *at;          /* per frame: offset << 24 | length; 0: not yet written */
};

enum { LEN_BITS = 24 };

struct wasp_json_memo *wasp_json_memo_new(const wasp_profile *p)
{
    struct wasp_json_memo *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->p = p;
    m->at = calloc(p->nframes ? p->nframes : 1, sizeof *m->at);
    m->text = m->at ? open_memstream(&m->buf, &m->len) : NULL;
    if (!m->text) {
        wasp_json_memo_free(m);
        return NULL;
    }
    return m;
}

void wasp_json_memo_free(struct wasp_json_memo *m)
{
    if (!m)
        return;
    if (m->text)
        fclose(m->text);
    free(m->buf);
    free(m->at);
    free(m);
}

/* The frame as the writer writes it, into j (at its current place). */
static void write_frame(wasp_json *j, const wasp_profile *p, const wasp_frame *f)
{
    wasp_json_begin_object(j, NULL, true);
    wasp_json_string(j, "kind", wasp_frame_kind_name(f->kind));
    wasp_json_string(j, "method", wasp_profile_string(p, f->name));
    wasp_json_string(j, "file", f->file ? wasp_profile_string(p, f->file) : NULL);
    wasp_json_i64(j, "line", f->line < 0 ? -1 : f->line); /* a native method's too */
    wasp_json_end_object(j);
}

/* Writes frame f into the memo's text; false when it cannot be kept. A
 * writer one level deep in a compact array writes exactly the object's text
 * (no separator before the first member, no newline after). */
static bool memoise(struct wasp_json_memo *m, uint32_t f)
{
    long start = ftell(m->text);
    wasp_json w;
    wasp_json_init(&w, m->text);
    w.depth = 1;
    w.first[1] = w.compact[1] = true;
    write_frame(&w, m->p, &m->p->frames[f]);
    long end = ftell(m->text);
    if (start < 0 || end <= start || fflush(m->text) != 0 || end - start >= (1L << LEN_BITS) ||
        (uint64_t)start >= (UINT64_MAX >> LEN_BITS))
        return false;
    m->at[f] = (uint64_t)start << LEN_BITS | (uint64_t)(end - start);
    return true;
}

void wasp_json_frame(wasp_json *j, const wasp_profile *p, uint32_t f)
{
    struct wasp_json_memo *m = j->frame_memo;
    if (!m || m->p != p || f >= p->nframes || (!m->at[f] && !memoise(m, f))) {
        write_frame(j, p, &p->frames[f]);
        return;
    }
    uint64_t at = m->at[f];
    wasp_json_raw(j, NULL, m->buf + (at >> LEN_BITS), (size_t)(at & ((1u << LEN_BITS) - 1)));
}
