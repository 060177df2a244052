/*
 * How HotSpot lays out Java objects and its heap in this process, as its
 * VMStructs tables describe them: the heap's range, the object header (where
 * the class word and the array length sit, how a compressed class pointer
 * decodes), a class's layout helper (instance size, or array header and
 * element size), and the collector's spaces or regions (young, old, ...).
 * Filled once by the agent in the live phase (agent/java_layout_load.c) and
 * published with `ready`; read by the signal handler (heap/java_object.c,
 * heap/heap_area.c), which never follows a pointer it has not read safely.
 *
 * ASYNC-SIGNAL-SAFE: plain reads of fields settled before `ready` is set.
 */
#ifndef WASP_HEAP_JAVA_LAYOUT_H
#define WASP_HEAP_JAVA_LAYOUT_H

#include <stdint.h>

/* The collectors whose young and old parts wasp can name. */
typedef enum wasp_gc_kind {
    WASP_GC_OTHER = 0, /* ZGC, Shenandoah, Epsilon: the heap, unnamed parts */
    WASP_GC_G1,
    WASP_GC_SERIAL,
    WASP_GC_PARALLEL,
} wasp_gc_kind;

/* A space of a generational collector: the address of HotSpot's space
 * object; its bounds are read when asked (spaces resize). */
typedef struct wasp_java_space {
    uint64_t space;             /* Space* / MutableSpace*, 0 = none */
    uint32_t bottom_off, end_off;
} wasp_java_space;

typedef struct wasp_java_layout {
    volatile int ready;
    uint64_t heap_lo, heap_hi;   /* the reserved Java heap */
    /* Header: mark word at 0, class word at klass_offset (4 bytes when
     * compressed, decoding to klass_base + (narrow << klass_shift)), array
     * length at length_offset. */
    int compressed_klass;
    uint64_t klass_base;
    uint32_t klass_shift;
    uint32_t klass_offset, length_offset;
    /* Klass::_layout_helper: > 0 instance size in bytes (bit 0: slow path);
     * < 0 array: tag in the top bits, header bytes and log2 element size. */
    uint32_t lh_offset;
    uint32_t lh_header_shift, lh_header_mask, lh_log2_mask;
    uint32_t lh_type_shift, lh_type_mask; /* an array's element BasicType */
    int32_t t_float, t_double;            /* the BasicTypes of float and double */
    /* java.lang.Class instances (mirrors) hold their class's static fields
     * after their own, so each has its own size: mirror_klass is their
     * Klass* (0: unknown), their size in words is the int at
     * mirror_size_offset, and the mirrored class's Klass* is at
     * mirror_klass_offset (java_lang_Class::_oop_size_offset, _klass_offset). */
    uint64_t mirror_klass;
    uint32_t mirror_size_offset, mirror_klass_offset;
    uint32_t mirror_statics; /* where the static fields begin: after java.lang.Class's own */
    uint64_t code_lo, code_hi;   /* the code cache */
    wasp_gc_kind gc;
    /* G1: region of addr = *(biased_base + (addr >> shift) * 8); its type tag
     * at region + type_offset (a 32-bit value). */
    uint64_t g1_biased_base;
    uint32_t g1_shift, g1_type_offset;
    int32_t g1_eden, g1_survivor, g1_humongous_mask, g1_old_mask;
    /* Serial and Parallel: eden, from, to, old. */
    wasp_java_space spaces[4];
} wasp_java_layout;

enum { WASP_SPACE_EDEN, WASP_SPACE_FROM, WASP_SPACE_TO, WASP_SPACE_OLD };

extern wasp_java_layout wasp_java;

#endif
