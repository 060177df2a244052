/*
 * A second, writable mapping of one closed page of a heap mapped from a
 * memfd (ZGC's), through which the page engine completes an emulated
 * access without opening the page. The kernel refuses /proc/self/mem writes
 * to a shared mapping the process cannot write (EIO: FOLL_FORCE only
 * breaks copy-on-write), so without it every store to such a page was
 * stepped: two mprotect calls, each a TLB shootdown across the process's
 * CPUs, and a second trap (ZGC on JDK 17: 7,000 of 9,000 faults a run).
 *
 * mremap(page, 0, ...) maps the same file page again at a new address;
 * stores there are the page's stores. The caller keeps the alias only while
 * it keeps the page closed: once open, ZGC may map other memory there.
 *
 * ASYNC-SIGNAL-SAFE: system calls and single moves; callers hold the lock of
 * the page's record (page.c).
 */
#ifndef WASP_WATCH_PAGE_ALIAS_H
#define WASP_WATCH_PAGE_ALIAS_H

#include <stddef.h>
#include <stdint.h>

/* Whether this process's heap may be a shared mapping worth aliasing. */
int wasp_page_alias_wanted(void);

/* A writable mapping of the page-sized, page-aligned `page`, or 0 when the
 * kernel gives none (a private mapping: /proc/self/mem writes it). */
uint64_t wasp_page_alias_map(uint64_t page);

void wasp_page_alias_unmap(uint64_t alias);

/* n bytes at alias + off, from or to buf: an aligned 1, 2, 4 or 8 bytes in
 * one move, as the instruction would have made it (a reader through another
 * view never sees it half done). */
void wasp_page_alias_read(uint64_t alias, size_t off, void *buf, size_t n);
void wasp_page_alias_write(uint64_t alias, size_t off, const void *buf, size_t n);

#endif
