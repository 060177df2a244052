/*
 * ASYNC-SIGNAL-SAFE: see page_shadow.h. Callers hold the page engine's lock.
 *
 * A few copies, not one per record: a busy run has ten or so pages closed
 * at once. Record rec's copy lives in slot rec % SHADOWS; two records that
 * meet there take it from each other, each reading its page again.
 */
#include "watch/page_shadow.h"

#include <string.h>
#include <unistd.h>

#include "heap/heap_addresses.h"

enum { PAGE = 4096, SHADOWS = 64 };

static struct shadow {
    uint32_t owner; /* record index + 1; 0: holds nothing */
    uint8_t bytes[PAGE];
} shadows[SHADOWS];

int wasp_page_shadow_enabled(void)
{
    return !wasp_heap_addresses.aliased;
}

static struct shadow *held(uint32_t rec)
{
    struct shadow *s = &shadows[rec % SHADOWS];
    return s->owner == rec + 1 ? s : NULL;
}

ssize_t wasp_page_shadow_read(uint32_t rec, uint64_t page, int memfd, uint64_t addr, void *dst,
                              size_t n)
{
    if (addr < page || addr + n > page + PAGE)
        return -1;
    struct shadow *s = held(rec);
    if (!s) {
        s = &shadows[rec % SHADOWS];
        s->owner = 0;
        if (pread(memfd, s->bytes, PAGE, (off_t)page) != PAGE)
            return -1;
        s->owner = rec + 1;
    }
    memcpy(dst, s->bytes + (addr - page), n);
    return (ssize_t)n;
}

void wasp_page_shadow_wrote(uint32_t rec, uint64_t page, uint64_t addr, const void *src, size_t n)
{
    struct shadow *s = held(rec);
    if (!s)
        return;
    uint64_t lo = addr > page ? addr : page, hi = addr + n < page + PAGE ? addr + n : page + PAGE;
    if (lo < hi)
        memcpy(s->bytes + (lo - page), (const uint8_t *)src + (lo - addr), hi - lo);
}

void wasp_page_shadow_drop(uint32_t rec)
{
    struct shadow *s = held(rec);
    if (s)
        s->owner = 0;
}
