/*
 * Reading and setting HotSpot boolean flags from inside the process, through the
 * VMStructs tables libjvm exports for serviceability tools. wasp uses it to
 * turn on DebugNonSafepoints, without which samples in JIT code map to the
 * line of the nearest safepoint rather than their own.
 * Not for signal handlers.
 */
#ifndef WASP_VMFLAGS_H
#define WASP_VMFLAGS_H

#include <stddef.h>
#include <stdint.h>

/* Returns 0 when the flag now has the value, -1 when it cannot be found. */
int wasp_vm_set_bool_flag(const char *name, int value);
/* Returns 0 with *value set, -1 when the flag cannot be found. */
int wasp_vm_get_bool_flag(const char *name, int *value);

/* The Java heap's reserved address range [lo, hi) (CollectedHeap::_reserved;
 * ZGC, which leaves it empty: agent/zgc_heap.h), once the heap exists (live
 * phase). Returns 0, or -1 with `why` when VMStructs do not say. */
int wasp_vm_heap_range(uint64_t *lo, uint64_t *hi, char *why, size_t len);

#endif
