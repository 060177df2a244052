/*
 * What the fields analysis keeps per thread: sampled accesses by (class,
 * offset in the object, access width and kind, heap area, calling context),
 * loads and stores apart. The width and kind let the agent check, when it
 * names the field at the offset, that the access fits the field's type.
 * Off-heap accesses are kept with klass 0 and their area. The agent part
 * names the classes and fields when the run stops (agent.c).
 *
 * ASYNC-SIGNAL-SAFE: the table is filled by the SIGTRAP handler of its own
 * thread and read by the dump after sampling stopped.
 */
#ifndef WASP_ANALYSIS_FIELDS_RECORDS_H
#define WASP_ANALYSIS_FIELDS_RECORDS_H

#include <stdint.h>

#include "isa/isa.h"

enum {
    WASP_FIELD_SLOTS = 4096,      /* per thread; a power of two */
    WASP_FIELD_ELEMENTS = 0xffffffffu, /* offset of "an array's elements" */
    WASP_FIELD_PENDING = 8,       /* heap samples with no header yet, looked at again later */
};

typedef struct wasp_field_rec {
    uint64_t klass;   /* Klass*, 0 off the heap */
    uint32_t offset;  /* field offset, or WASP_FIELD_ELEMENTS */
    uint32_t ctx;     /* the thread's records' context id + 1; 0 = empty slot */
    uint8_t area;     /* wasp_heap_area */
    uint8_t width;    /* bytes accessed (1..64); 0 when not kept (off the heap,
                       * array elements: the handler checked them) */
    uint8_t float_size; /* 4 or 8 for a float/double access, else 0 */
    uint8_t allocating; /* 1: the object had no header yet at the sample (named later) */
    uint8_t is_static;  /* 1: klass's static field at offset in its mirror */
    uint32_t loads, stores;
} wasp_field_rec;

/* A heap sample that found no header (or a header without its class): an
 * object the JVM was still allocating, most often. Its header is written
 * a few instructions later, so the thread's next sample looks again, in the
 * same GC epoch (the object has not moved). */
typedef struct wasp_field_pending {
    wasp_access acc;
    uint32_t ctx;   /* context id + 1; 0 = empty */
    uint32_t epoch; /* the GC epoch at the sample (watch/run_state.h) */
    uint8_t area;
    uint8_t why;    /* the handler's counter if it stays unnamed */
} wasp_field_pending;

typedef struct wasp_field_thread {
    wasp_field_rec recs[WASP_FIELD_SLOTS];
    wasp_field_pending pending[WASP_FIELD_PENDING];
} wasp_field_thread;

/* The handler's counters, in order (fields/handler.c names them). */
enum {
    WASP_FIELD_C_BY_INSN,
    WASP_FIELD_C_BY_SCAN,
    WASP_FIELD_C_OFF_HEAP,
    WASP_FIELD_C_NO_HEADER,
    WASP_FIELD_C_NO_LAYOUT,
    WASP_FIELD_C_TABLE_FULL,
    WASP_FIELD_C_CLASS_SET_FULL,
    WASP_FIELD_C_INITIALIZING,
    WASP_FIELD_C_BY_CLASS_STORE,
    WASP_FIELD_C_BY_LATER_LOOK,
    WASP_FIELD_C_BY_RECENT
};

#endif
