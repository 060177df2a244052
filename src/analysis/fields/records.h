/*
 * What the fields analysis keeps per thread: sampled accesses by (class,
 * offset in the object, heap area, calling context), loads and stores apart.
 * Off-heap accesses are kept with klass 0 and their area. The agent part
 * names the classes and fields when the run stops (agent.c).
 *
 * ASYNC-SIGNAL-SAFE: the table is filled by the SIGTRAP handler of its own
 * thread and read by the dump after sampling stopped.
 */
#ifndef WASP_ANALYSIS_FIELDS_RECORDS_H
#define WASP_ANALYSIS_FIELDS_RECORDS_H

#include <stdint.h>

enum {
    WASP_FIELD_SLOTS = 4096,      /* per thread; a power of two */
    WASP_FIELD_ELEMENTS = 0xffffffffu, /* offset of "an array's elements" */
};

typedef struct wasp_field_rec {
    uint64_t klass;   /* Klass*, 0 off the heap */
    uint32_t offset;  /* field offset, or WASP_FIELD_ELEMENTS */
    uint32_t ctx;     /* the thread's records' context id + 1; 0 = empty slot */
    uint8_t area;     /* wasp_heap_area */
    uint8_t pad_[3];
    uint32_t loads, stores;
} wasp_field_rec;

typedef struct wasp_field_thread {
    wasp_field_rec recs[WASP_FIELD_SLOTS];
} wasp_field_thread;

#endif
