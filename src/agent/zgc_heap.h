/*
 * ZGC's heap address range. ZGC leaves CollectedHeap::_reserved empty, so
 * the range comes from its own VMStructs globals (ZGlobalsForVMStructs; on
 * JDK 21-22 the single-generation collector's are XGlobalsForVMStructs):
 *
 * - single-generation ZGC (JDK 17-22; "X" in 21-22) maps its heap three
 *   times, at the "colours" marked0, marked1 and remapped, each a bit just
 *   above the heap offset bits (_ZAddressMetadataMask without its
 *   finalizable bit; JIT code accesses objects through any of them): the
 *   range runs from the lowest view to the end of the highest one;
 * - generational ZGC (JDK 21+) keeps uncoloured addresses, heap base plus
 *   offset, the base being the bit above the offset bits on x86-64
 *   (ZAddressHeapBase = 1 << ZAddressOffsetBits; not in VMStructs).
 *
 * The result is checked against the memfd "java_heap" mappings in
 * /proc/self/maps: each must lie inside it (a layout this code does not
 * know fails here instead of being believed). Not for signal handlers.
 */
#ifndef WASP_AGENT_ZGC_HEAP_H
#define WASP_AGENT_ZGC_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* [lo, hi): every address through which Java code reaches ZGC's heap. 0, or
 * -1 with `why` when this JVM does not run ZGC or its layout is not one
 * described above. */
int wasp_zgc_heap_range(uint64_t *lo, uint64_t *hi, char *why, size_t len);

/* Whether this JVM's ZGC is the generational one (uncoloured addresses,
 * zpointers in the VM's oop slots): 1, 0 for single-generation ZGC, -1 when
 * not ZGC. From VMStructs' field names and the ZGenerational flag, so it
 * holds in the agent's OnLoad phase too. */
int wasp_zgc_generational(void);

#endif
