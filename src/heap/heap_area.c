/*
 * The area of an address (see heap_area.h).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler; HotSpot's region table and
 * space objects are read with wasp_safe_read only.
 */
#include "heap/heap_area.h"

#include "heap/java_layout.h"
#include "isa/isa.h"

wasp_java_layout wasp_java;

static uint64_t read_u64(uint64_t addr, int *ok)
{
    uint64_t v = 0;
    *ok = wasp_safe_read(addr, &v, sizeof v) == sizeof v;
    return v;
}

static wasp_heap_area g1_area(const wasp_java_layout *l, uint64_t addr)
{
    int ok;
    uint64_t region = read_u64(l->g1_biased_base + (addr >> l->g1_shift) * 8, &ok);
    if (!ok || !region)
        return WASP_AREA_HEAP;
    int32_t tag = 0;
    if (wasp_safe_read(region + l->g1_type_offset, &tag, sizeof tag) != sizeof tag)
        return WASP_AREA_HEAP;
    if (tag == l->g1_eden)
        return WASP_AREA_EDEN;
    if (tag == l->g1_survivor)
        return WASP_AREA_SURVIVOR;
    if (tag & l->g1_humongous_mask)
        return WASP_AREA_HUMONGOUS;
    if (tag & l->g1_old_mask)
        return WASP_AREA_OLD;
    return WASP_AREA_HEAP; /* free or archive regions */
}

static const wasp_heap_area space_areas[WASP_HEAP_SPACES] = {
    [WASP_SPACE_EDEN] = WASP_AREA_EDEN, [WASP_SPACE_FROM] = WASP_AREA_SURVIVOR,
    [WASP_SPACE_TO] = WASP_AREA_SURVIVOR, [WASP_SPACE_OLD] = WASP_AREA_OLD};

int wasp_heap_space(int i, uint64_t *lo, uint64_t *hi, wasp_heap_area *area)
{
    const wasp_java_space *s = &wasp_java.spaces[i];
    int ok1, ok2;
    if (i < 0 || i >= WASP_HEAP_SPACES || !s->space)
        return 0;
    *lo = read_u64(s->space + s->bottom_off, &ok1);
    *hi = read_u64(s->space + s->end_off, &ok2);
    *area = space_areas[i];
    return ok1 && ok2 && *lo < *hi;
}

static wasp_heap_area space_area(uint64_t addr)
{
    for (int i = 0; i < WASP_HEAP_SPACES; i++) {
        uint64_t lo, hi;
        wasp_heap_area a;
        if (wasp_heap_space(i, &lo, &hi, &a) && addr >= lo && addr < hi)
            return a;
    }
    return WASP_AREA_HEAP;
}

wasp_heap_area wasp_heap_area_of(uint64_t addr, uint64_t sp)
{
    const wasp_java_layout *l = &wasp_java;
    if (!__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE))
        return WASP_AREA_UNKNOWN;
    if (addr >= l->heap_lo && addr < l->heap_hi) {
        switch (l->gc) {
        case WASP_GC_G1:
            return g1_area(l, addr);
        case WASP_GC_SERIAL:
        case WASP_GC_PARALLEL:
            return space_area(addr);
        default:
            return WASP_AREA_HEAP;
        }
    }
    if (addr >= l->code_lo && addr < l->code_hi)
        return WASP_AREA_CODE;
    /* The narrow class encoding range: CDS archive and class space. */
    if (l->compressed_klass && addr >= l->klass_base &&
        addr - l->klass_base < (1ull << (32 + l->klass_shift)))
        return WASP_AREA_CLASS_META;
    /* Threads' stacks are at most a few MiB; the sampled thread's own. */
    if (addr <= sp + (8u << 20) && addr + (64u << 10) >= sp)
        return WASP_AREA_STACK;
    return WASP_AREA_NATIVE;
}

int wasp_heap_area_off_heap(uint64_t addr, uint64_t sp)
{
    const wasp_java_layout *l = &wasp_java;
    if (!__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE) || (addr >= l->heap_lo && addr < l->heap_hi))
        return 0;
    if (wasp_heap_area_of(addr, sp) != WASP_AREA_NATIVE)
        return 1; /* code, class metadata, stack: no region table read outside the heap */
    /* Other memory: ZGC and Shenandoah map the heap in more than the
     * reserved range, so there it may still be heap. */
    return l->gc == WASP_GC_G1 || l->gc == WASP_GC_SERIAL || l->gc == WASP_GC_PARALLEL;
}
