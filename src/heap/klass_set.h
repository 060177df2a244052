/*
 * The classes (Klass*) the handler found in sampled objects, process-wide
 * (and the common array classes, added when the layout is read: the deep
 * header search trusts only classes in this set, heap/java_object.h):
 * the agent names only these when the run stops (naming every loaded class
 * costs more than the profile needs). A fixed open-addressing table filled
 * with compare-and-swap; a full table drops the newcomer, whose samples then
 * count as an unnamed class.
 *
 * ASYNC-SIGNAL-SAFE: wasp_klass_set_add runs in the SIGTRAP handler; the
 * rest is for the agent, after sampling stopped.
 */
#ifndef WASP_HEAP_KLASS_SET_H
#define WASP_HEAP_KLASS_SET_H

#include <stdint.h>

enum { WASP_KLASS_SET_SLOTS = 1 << 14 };

/* 1 when klass is in the set (now or before), 0 when the set is full. */
int wasp_klass_set_add(uint64_t klass);
/* The same, returning klass's slot (stable for the session), -1 when full. */
int32_t wasp_klass_set_slot(uint64_t klass);
/* The class in a slot, 0 when empty or out of range. */
uint64_t wasp_klass_set_at(uint32_t slot);
int wasp_klass_set_has(uint64_t klass);
/* Empties the set (a new session). Not while sampling. */
void wasp_klass_set_clear(void);

#endif
