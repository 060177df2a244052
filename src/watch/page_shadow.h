/*
 * Copies of closed pages' bytes, so that the page engine's emulated loads
 * need no system call. While a page is PROT_NONE every access to it faults
 * into the engine, which does it under the page's own lock: its bytes
 * change only through the engine's own emulated stores, written through to
 * the page and to the copy. So one read of the whole page (a pread of /proc/self/mem, as
 * much as one of eight bytes) serves every later load until the page's
 * protection changes, when the copy is dropped.
 *
 * Not where the heap is mapped at several addresses (single-generation
 * ZGC's views; wasp_heap_addresses.aliased): a store through another view
 * would change the page without a fault. wasp_page_shadow_enabled says.
 *
 * ASYNC-SIGNAL-SAFE: fixed arrays, memcpy and one pread; callers hold the
 * lock of record rec (page.c), and the copies' slots have try-only locks of
 * their own (page_shadow.c).
 */
#ifndef WASP_WATCH_PAGE_SHADOW_H
#define WASP_WATCH_PAGE_SHADOW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Whether copies may be used in this process (the heap is mapped once). */
int wasp_page_shadow_enabled(void);

/* n bytes at addr, all on `page`, the page of record `rec`, which is
 * closed to every thread: from the copy, read first when there is none
 * (through memfd, /proc/self/mem). Returns n, or -1 when the page could not
 * be read. */
ssize_t wasp_page_shadow_read(uint32_t rec, uint64_t page, int memfd, uint64_t addr, void *dst,
                              size_t n);

/* [addr, addr+n) was written on `page`, record rec's: the copy follows. */
void wasp_page_shadow_wrote(uint32_t rec, uint64_t page, uint64_t addr, const void *src, size_t n);

/* Record rec's page changed protection (or the record a page): its copy,
 * if any, no longer holds. */
void wasp_page_shadow_drop(uint32_t rec);

#endif
