/*
 * ASYNC-SIGNAL-SAFE: see page_shadow.h. Callers hold the record's lock.
 *
 * A few copies, not one per record: a busy run has ten or so pages closed
 * at once. Record rec's copy lives in slot rec % SHADOWS; two records that
 * meet there take it from each other, each reading its page again.
 *
 * Two records' faults may meet in a slot at the same moment (each holds only
 * its own record's lock), so a slot has a lock of its own, only ever tried:
 * a load that finds it taken reads the page instead, and a store that finds
 * it taken makes sure the slot does not keep a copy of its page.
 */
#include "watch/page_shadow.h"

#include <string.h>
#include <unistd.h>

#include "heap/heap_addresses.h"

enum { PAGE = 4096, SHADOWS = 64 };

static struct shadow {
    volatile uint32_t busy;  /* 1 while a thread reads, fills or writes the copy */
    volatile uint32_t owner; /* record index + 1; 0: holds nothing */
    uint8_t bytes[PAGE];
} shadows[SHADOWS];

int wasp_page_shadow_enabled(void)
{
    return !wasp_heap_addresses.aliased;
}

static struct shadow *slot_of(uint32_t rec)
{
    return &shadows[rec % SHADOWS];
}

static int slot_try(struct shadow *s)
{
    uint32_t free_ = 0;
    return __atomic_compare_exchange_n(&s->busy, &free_, 1, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

static void slot_release(struct shadow *s)
{
    __atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE);
}

/* Forget rec's copy in s, if s holds it; without the slot's lock (only
 * rec's lock holder ever makes s hold rec's copy). */
static void slot_forget(struct shadow *s, uint32_t rec)
{
    uint32_t mine = rec + 1;
    __atomic_compare_exchange_n(&s->owner, &mine, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

ssize_t wasp_page_shadow_read(uint32_t rec, uint64_t page, int memfd, uint64_t addr, void *dst,
                              size_t n)
{
    if (addr < page || addr + n > page + PAGE)
        return -1;
    struct shadow *s = slot_of(rec);
    if (!slot_try(s)) /* another record's fault is at its copy */
        return pread(memfd, dst, n, (off_t)addr) == (ssize_t)n ? (ssize_t)n : -1;
    ssize_t done = (ssize_t)n;
    if (__atomic_load_n(&s->owner, __ATOMIC_ACQUIRE) != rec + 1) {
        __atomic_store_n(&s->owner, 0, __ATOMIC_RELAXED);
        if (pread(memfd, s->bytes, PAGE, (off_t)page) == PAGE)
            __atomic_store_n(&s->owner, rec + 1, __ATOMIC_RELEASE);
        else
            done = -1;
    }
    if (done > 0)
        memcpy(dst, s->bytes + (addr - page), n);
    slot_release(s);
    return done;
}

void wasp_page_shadow_wrote(uint32_t rec, uint64_t page, uint64_t addr, const void *src, size_t n)
{
    struct shadow *s = slot_of(rec);
    if (!slot_try(s)) {
        slot_forget(s, rec); /* cannot follow: read again next time */
        return;
    }
    if (__atomic_load_n(&s->owner, __ATOMIC_ACQUIRE) == rec + 1) {
        uint64_t lo = addr > page ? addr : page;
        uint64_t hi = addr + n < page + PAGE ? addr + n : page + PAGE;
        if (lo < hi)
            memcpy(s->bytes + (lo - page), (const uint8_t *)src + (lo - addr), hi - lo);
    }
    slot_release(s);
}

void wasp_page_shadow_drop(uint32_t rec)
{
    slot_forget(slot_of(rec), rec);
}
