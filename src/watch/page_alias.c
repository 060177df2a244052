/*
 * ASYNC-SIGNAL-SAFE: see page_alias.h. Callers hold the page's record's lock.
 */
#include "watch/page_alias.h"

#include <string.h>
#include <sys/mman.h>

#include "heap/heap_addresses.h"

enum { PAGE = 4096 };

int wasp_page_alias_wanted(void)
{
    return wasp_heap_addresses.aliased; /* ZGC: its heap is a memfd's */
}

uint64_t wasp_page_alias_map(uint64_t page)
{
    /* Old size 0: a new mapping of the same pages, not a move (shared
     * mappings only). It has the page's protection, ours: open it. */
    void *a = mremap((void *)(uintptr_t)page, 0, PAGE, MREMAP_MAYMOVE);
    if (a == MAP_FAILED)
        return 0;
    if (mprotect(a, PAGE, PROT_READ | PROT_WRITE) != 0) {
        munmap(a, PAGE);
        return 0;
    }
    return (uint64_t)(uintptr_t)a;
}

void wasp_page_alias_unmap(uint64_t alias)
{
    if (alias)
        munmap((void *)(uintptr_t)alias, PAGE);
}

static int single_move(size_t off, size_t n)
{
    return (n == 1 || n == 2 || n == 4 || n == 8) && off % n == 0;
}

void wasp_page_alias_read(uint64_t alias, size_t off, void *buf, size_t n)
{
    volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)(alias + off);
    if (!single_move(off, n)) {
        memcpy(buf, (const void *)(uintptr_t)(alias + off), n);
        return;
    }
    uint64_t v = n == 1 ? *p
               : n == 2 ? *(volatile uint16_t *)p
               : n == 4 ? *(volatile uint32_t *)p
                        : *(volatile uint64_t *)p;
    memcpy(buf, &v, n); /* little-endian: the low n bytes */
}

void wasp_page_alias_write(uint64_t alias, size_t off, const void *buf, size_t n)
{
    volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)(alias + off);
    if (!single_move(off, n)) {
        memcpy((void *)(uintptr_t)(alias + off), buf, n);
        return;
    }
    uint64_t v = 0;
    memcpy(&v, buf, n);
    if (n == 1)
        *p = (uint8_t)v;
    else if (n == 2)
        *(volatile uint16_t *)p = (uint16_t)v;
    else if (n == 4)
        *(volatile uint32_t *)p = (uint32_t)v;
    else
        *(volatile uint64_t *)p = v;
}
