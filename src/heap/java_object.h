/*
 * The Java object at a data address, without allocation tracking (Inoue and
 * Nakatani, OOPSLA'09, Section 4.3): first the object the instruction names —
 * its base register, or its address less the displacement (a field access,
 * or a compressed reference decoded in the address) — and, when no valid
 * header is there, a bounded backward search for the nearest one (deeper for
 * the classes already met, which a large array's data rarely spells). A header is
 * valid when its class word decodes to a class whose layout helper (read
 * through HotSpot's VMStructs offsets) gives an object that covers the
 * address. The class found is only a candidate until the agent names it from
 * the JVM's own list of loaded classes.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler; every read of the heap or
 * of class metadata goes through wasp_safe_read.
 */
#ifndef WASP_HEAP_JAVA_OBJECT_H
#define WASP_HEAP_JAVA_OBJECT_H

#include <stdint.h>

#include "isa/isa.h"

typedef struct wasp_java_object {
    uint64_t start;   /* the header's address */
    uint64_t klass;   /* Klass* */
    uint64_t size;    /* bytes, header included */
    uint32_t offset;  /* of the address from start */
    uint32_t header;  /* header bytes (arrays: up to the first element) */
    uint8_t array;    /* 1 for arrays */
    uint8_t kind;     /* arrays: element size and float flag (heap/site_kind.h); 0 otherwise */
} wasp_java_object;

/* How an object was found, or why not. Counted by the analyses that ask. */
typedef enum wasp_java_find {
    WASP_JFIND_INSN = 0,   /* the instruction's base register or address - displacement */
    WASP_JFIND_SCAN,       /* the backward search */
    WASP_JFIND_RECENT,     /* an object the thread found lately (heap/recent_objects.h) */
    WASP_JFIND_NOT_HEAP,   /* the address is outside the Java heap */
    WASP_JFIND_NO_HEADER,  /* no valid header within the search's reach */
    WASP_JFIND_NO_LAYOUT,  /* HotSpot's layout is not known (yet) */
    WASP_JFIND_INITIALIZING, /* the nearest header has no class yet: an object being
                              * initialized (HotSpot's slow path clears the body, then
                              * stores the class word last) */
    WASP_JFIND_COUNT
} wasp_java_find;

struct wasp_recent_objects;

/* The object holding addr, accessed by acc (NULL: search only): by the
 * instruction, else among the thread's recent objects (NULL: none kept),
 * else by the backward search. A large object found is kept in recent. */
wasp_java_find wasp_java_object_find(uint64_t addr, const wasp_access *acc,
                                     struct wasp_recent_objects *recent, wasp_java_object *o);
/* Whether how names an object (o is filled). */
static inline int wasp_java_found(wasp_java_find how)
{
    return how == WASP_JFIND_INSN || how == WASP_JFIND_SCAN || how == WASP_JFIND_RECENT;
}

/* The object whose header starts at p, if it is one and covers addr; its
 * class's layout helper from the thread's recent classes when recent is
 * given (recent_objects.h), else read. */
int wasp_java_object_at(uint64_t p, uint64_t addr, struct wasp_recent_objects *recent,
                        wasp_java_object *o);

/* The object of class klass that starts at p and covers addr, its header
 * not written yet (an allocation's class-word store about to run): the
 * size from the class (arrays: unknown, their length is not there yet, so
 * o->size is 0 and any addr past the header is an element). */
int wasp_java_object_being_created(uint64_t p, uint64_t klass, uint64_t addr, wasp_java_object *o);

/* The object holding addr that ends exactly at end (the TLAB top just after
 * it was allocated), its header found by a backward search of up to
 * WASP_JAVA_ENDING_BYTES: 1 with o, else 0. An object's size must match to
 * the byte, so a word pair in its data that looks like a header does not. */
int wasp_java_object_ending(uint64_t addr, uint64_t end, wasp_java_object *o);

/* For wasp_isa_find_class_store: an object in the heap whose class word
 * decodes to a class with a valid layout helper; *(uint64_t *)klass_out is
 * then the Klass*. */
int wasp_java_class_store_accept(uint64_t obj, uint64_t word, void *klass_out);

/* When o is a java.lang.Class instance (a mirror) and its offset is past
 * that class's own fields, among the static fields of the class it
 * mirrors: 1 with that class's Klass* in *owner, else 0. */
int wasp_java_static_owner(const wasp_java_object *o, uint64_t *owner);

/* The Klass* a class word holds (narrow or full), 0 when it cannot be one. */
uint64_t wasp_java_klass_decode(uint64_t word);

/* A class's layout helper, read safely; 0 when unreadable or not a class
 * whose objects have a size (the neutral value). */
int32_t wasp_java_layout_helper(uint64_t klass);

/* Whether lh is a layout helper a class's objects can have: an instance's
 * size (bit 0: allocated on the slow path), or an array's tag, header and
 * element size. */
int wasp_java_lh_valid(int32_t lh);

/* Bytes of the backward search's reach (every class word), of its deeper
 * part (class words of classes already met: heap/klass_set.h), and of the
 * search by size's. */
enum {
    WASP_JAVA_SCAN_BYTES = 2048,
    WASP_JAVA_DEEP_BYTES = 1 << 16,
    WASP_JAVA_ENDING_BYTES = 1 << 16
};

#endif
