/*
 * See pc_frames.h.
 */
#include "watch/pc_frames.h"

#include <stdlib.h>

#include "isa/insn.h"

/* The index of the first record whose pc is above `after` (npcs: none). */
static uint32_t first_above(const wasp_pc_frames *d, uint64_t after)
{
    uint32_t lo = 0, hi = d->npcs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (d->pcs[mid] <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Record i's frames, at most cap into out. */
static int record_frames(const wasp_pc_frames *d, uint32_t i, wasp_rframe *out, int cap)
{
    int n = 0;
    for (uint32_t j = 0; j < d->nframes[i] && n < cap; j++)
        out[n++] = d->frames[d->first[i] + j];
    return n;
}

int wasp_pc_frames_at(const wasp_pc_frames *d, uint64_t after, wasp_rframe *out, int cap)
{
    uint32_t lo = first_above(d, after);
    if (!d->npcs && d->root && cap > 0) { /* no records (a native method's wrapper) */
        out[0] = (wasp_rframe){.bci = -1, .method = d->root};
        return 1;
    }
    if (lo == d->npcs && d->npcs) { /* in the tail */
        uint32_t t = 0;
        while (t < d->ntail && d->tail_end[t] <= after)
            t++;
        uint64_t to = t < d->ntail ? d->tail_to[t] : 0;
        if (to && to <= d->pcs[d->npcs - 1]) /* always, as built: the lookup ends */
            lo = first_above(d, to - 1);
        else if (d->root && cap > 0) {
            out[0] = (wasp_rframe){.bci = -1, .method = d->root};
            return 1;
        }
    }
    return lo < d->npcs ? record_frames(d, lo, out, cap) : 0;
}

int wasp_pc_frames_placed(const wasp_pc_frames *d, uint64_t after, wasp_rframe *out, int cap)
{
    for (uint32_t i = first_above(d, after); i < d->npcs; i++)
        if (d->nframes[i] && d->frames[d->first[i]].bci >= 0)
            return record_frames(d, i, out, cap);
    return 0;
}

/* A jump's target (1), a ret (2), or neither (0), for the len bytes at pc. */
static int branch(const uint8_t *b, int len, uint64_t pc, uint64_t *target)
{
    int32_t rel;
    if (len == 5 && b[0] == 0xe9) /* jmp rel32 */
        rel = (int32_t)((uint32_t)b[1] | (uint32_t)b[2] << 8 | (uint32_t)b[3] << 16 |
                        (uint32_t)b[4] << 24);
    else if (len == 6 && b[0] == 0x0f && (b[1] & 0xf0) == 0x80) /* jcc rel32 */
        rel = (int32_t)((uint32_t)b[2] | (uint32_t)b[3] << 8 | (uint32_t)b[4] << 16 |
                        (uint32_t)b[5] << 24);
    else if (len == 2 && (b[0] == 0xeb || (b[0] & 0xf0) == 0x70)) /* jmp, jcc rel8 */
        rel = (int8_t)b[1];
    else
        return len == 1 && b[0] == 0xc3 ? 2 : 0;
    *target = pc + (uint64_t)len + (uint64_t)(int64_t)rel;
    return 1;
}

uint32_t wasp_pc_frames_tail(const uint8_t *code, uint64_t base, uint64_t end, uint64_t from,
                             uint64_t *tail_end, uint64_t *tail_to, uint32_t cap)
{
    uint32_t k = 0;
    uint64_t pc = from;
    while (pc < end && k < cap) {
        const uint8_t *b = code + (pc - base);
        int len = wasp_insn_length(b, end - pc < 15 ? (size_t)(end - pc) : 15);
        if (len <= 0)
            break;
        uint64_t target = 0;
        int kind = branch(b, len, pc, &target);
        pc += (uint64_t)len;
        if (kind == 1 && target >= base && target <= from) { /* back to the body */
            tail_end[k] = pc;
            tail_to[k++] = target;
        } else if (kind == 2 || (kind == 1 && b[0] != 0x0f && (b[0] & 0xf0) != 0x70 &&
                                 (target < base || target >= end))) {
            tail_end[k] = pc; /* a ret, or an unconditional jump out of the method */
            tail_to[k++] = 0;
        }
    }
    return k;
}

static int by_start(const void *a, const void *b)
{
    const wasp_code_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

void wasp_code_ranges_sort(wasp_code_range *r, uint64_t *reach, uint32_t n)
{
    qsort(r, n, sizeof *r, by_start);
    for (uint32_t i = 0; i < n; i++)
        reach[i] = i && reach[i - 1] > r[i].end ? reach[i - 1] : r[i].end;
}

uint32_t wasp_code_ranges_holder(const wasp_code_range *r, const uint64_t *reach, uint32_t n,
                                 uint64_t pc)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) { /* the first start above pc */
        uint32_t mid = lo + (hi - lo) / 2;
        if (r[mid].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t id = 0, found = 0;
    for (uint32_t i = lo; i > 0 && reach[i - 1] > pc; i--)
        if (r[i - 1].end > pc) {
            id = r[i - 1].id;
            found++;
        }
    return found == 1 ? id : 0;
}
