/*
 * See code_map.h.
 *
 * ASYNC-SIGNAL-SAFE: wasp_code_map_enter, _leave, _find and the nmethod
 * lookups run in the sampling handler (atomics and reads of an immutable
 * array); wasp_code_map_publish runs in the agent, outside handlers.
 */
#include "watch/code_map.h"

#include <stdlib.h>

static wasp_code_map *current;
static volatile uint32_t inside; /* handlers between enter and leave */

/* Arrays replaced while handlers were inside, freed at a later publish. */
enum { RETIRED_MAX = 64 };
static wasp_code_map *retired[RETIRED_MAX];
static int nretired;

wasp_code_map *wasp_code_map_alloc(uint32_t n)
{
    size_t starts = (size_t)n * sizeof(uint64_t);
    wasp_code_map *map = malloc(sizeof *map + starts + (size_t)n * sizeof(wasp_nmethod));
    if (map) {
        map->n = 0;
        map->m = (wasp_nmethod *)((char *)map->starts + starts);
    }
    return map;
}

const wasp_code_map *wasp_code_map_enter(void)
{
    /* Counted before the pointer is read (both sequentially consistent): a
     * publisher that sees no handler inside after its swap knows that none
     * holds an older array. */
    __atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&current, __ATOMIC_SEQ_CST);
}

void wasp_code_map_leave(void)
{
    __atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
}

const wasp_nmethod *wasp_code_map_find(const wasp_code_map *map, uint64_t pc)
{
    if (!map)
        return NULL;
    uint32_t lo = 0, hi = map->n;
    while (lo < hi) { /* the first start above pc */
        uint32_t mid = lo + (hi - lo) / 2;
        if (map->starts[mid] <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && pc < map->m[lo - 1].end ? &map->m[lo - 1] : NULL;
}

int wasp_nmethod_rsp_known(const wasp_nmethod *nm, uint32_t off)
{
    if (!nm->shape.frame_size)
        return 0;
    uint32_t lo = 0, hi = nm->nunsafe;
    while (lo < hi) { /* the first range ending after off */
        uint32_t mid = lo + (hi - lo) / 2;
        if (nm->unsafe[2 * mid + 1] <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == nm->nunsafe || off < nm->unsafe[2 * lo];
}

int wasp_nmethod_holds(const wasp_nmethod *nm, uint64_t pc, const uint8_t *insn, uint8_t len)
{
    if (!len || pc < nm->start || pc + len > nm->end)
        return 0;
    const uint8_t *own = nm->code + (pc - nm->start);
    for (uint8_t i = 0; i < len; i++)
        if (own[i] != insn[i])
            return 0;
    return 1;
}

int wasp_nmethod_is_call_site(const wasp_nmethod *nm, uint64_t pc)
{
    uint32_t lo = 0, hi = nm->ncalls;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (nm->calls[mid] < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nm->ncalls && nm->calls[lo] == pc;
}

void wasp_code_map_publish(wasp_code_map *map)
{
    wasp_code_map *old = __atomic_exchange_n(&current, map, __ATOMIC_SEQ_CST);
    /* With the retire list full (64 publishes, a handler inside at each),
     * the old array is left allocated: freeing it could pull it from under
     * a handler. */
    if (old && nretired < RETIRED_MAX)
        retired[nretired++] = old;
    if (__atomic_load_n(&inside, __ATOMIC_SEQ_CST) == 0) {
        for (int i = 0; i < nretired; i++)
            free(retired[i]);
        nretired = 0;
    }
}

const wasp_code_map *wasp_code_map_current(void)
{
    return __atomic_load_n(&current, __ATOMIC_ACQUIRE);
}
