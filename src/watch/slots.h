/*
 * A thread's watchpoint slots, on whichever engine proved itself at start-up
 * (watch/engine.h): the slots samples arm, then the engine's window slots.
 *
 * alloc/open/close/free run on ordinary threads. arm/disarm are
 * ASYNC-SIGNAL-SAFE.
 */
#ifndef WASP_SLOTS_H
#define WASP_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "watch/thread_state.h"

/* wasp_slot_arm's answer for an address the engine never watches (the page
 * engine: outside the Java heap). */
enum { WASP_ARM_NOT_WATCHABLE = -2 };

/* Room for `capacity` slots (and their reservoir entries) in t, all free,
 * with no descriptor (fd -1) and no page; 0, or -1 when out of memory.
 * wasp_slots_open calls it for the engine's needs; unit tests that drive an
 * engine directly call it first. */
int wasp_slots_alloc(wasp_thread *t, int capacity);
void wasp_slots_free(wasp_thread *t);

/* Up to n slots samples arm (at most WASP_SAMPLED_SLOTS) for the calling
 * thread (t->tid), and the engine's window slots. Returns how many slots
 * samples arm (0 with a reason in err when none could be had). */
int wasp_slots_open(wasp_thread *t, int n, char *err, size_t errlen);
void wasp_slots_close(wasp_thread *t);

/* Watch [addr, addr+len) (len 1, 2, 4 or 8, addr aligned to len) for stores, or
 * loads and stores; len 0 holds addr's page watched (engines with window
 * slots). Returns 0, -1 when the engine refused, or WASP_ARM_NOT_WATCHABLE. */
int wasp_slot_arm(wasp_thread *t, int slot, uint64_t addr, int len, int loads_too);
void wasp_slot_disarm(wasp_thread *t, int slot);

/* The chance a sample at addr is armed at all: 1, except on the page engine
 * where a watch there is expected to cost many faults (watch/page_cost.h).
 * An armed sample weighs its weight over this chance. */
double wasp_slot_arm_chance(uint64_t addr);

/* The aligned part of an access that a debug register can watch: the largest
 * 1/2/4/8-byte span starting at addr and aligned to its length, inside the
 * access. */
void wasp_watch_span(uint64_t addr, uint32_t size, uint64_t *waddr, int *wlen);

#endif
