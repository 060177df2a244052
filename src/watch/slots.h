/*
 * Debug-register slots of one thread, as perf_event breakpoints opened once per
 * thread and re-targeted in place (PERF_EVENT_IOC_MODIFY_ATTRIBUTES), with a
 * synchronous SIGTRAP per hit (attr.sigtrap) carrying the slot in sig_data.
 *
 * open/close run on ordinary threads. arm/disarm are ASYNC-SIGNAL-SAFE (one
 * ioctl each).
 */
#ifndef WASP_SLOTS_H
#define WASP_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "watch/thread_state.h"

/* wasp_slot_arm's answer for an address the engine never watches (the page
 * engine: outside the Java heap). */
enum { WASP_ARM_NOT_WATCHABLE = -2 };

/* Open up to n breakpoint events for the calling thread (t->tid). Returns how
 * many slots opened (0 with a reason in err when none could be). */
int wasp_slots_open(wasp_thread *t, int n, char *err, size_t errlen);
void wasp_slots_close(wasp_thread *t);

/* Watch [addr, addr+len) (len 1, 2, 4 or 8, addr aligned to len) for stores, or
 * loads and stores. Returns 0, -1 when the engine refused, or
 * WASP_ARM_NOT_WATCHABLE. */
int wasp_slot_arm(wasp_thread *t, int slot, uint64_t addr, int len, int loads_too);
void wasp_slot_disarm(wasp_thread *t, int slot);

/* The aligned part of an access that a debug register can watch: the largest
 * 1/2/4/8-byte span starting at addr and aligned to its length, inside the
 * access. */
void wasp_watch_span(uint64_t addr, uint32_t size, uint64_t *waddr, int *wlen);

#endif
