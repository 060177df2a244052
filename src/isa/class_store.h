/*
 * The store of an object's class word near a sampled PC: how an allocation
 * shows in machine code (Inoue and Nakatani, OOPSLA'09, Section 5.1). An
 * allocation's fast path stores the mark word, then the class word at a fixed
 * displacement from the new object (4 bytes when class pointers are
 * compressed), then the array length and the zeroing. Nothing else stores a
 * class word: a sample next to such a store is a sampled object creation.
 *
 * Pure decoding: what counts as a class and as the heap is the caller's
 * (`accept`), so this file knows nothing of HotSpot.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler; it reads only the bytes and
 * registers it is given (the caller copied them with wasp_read_code).
 */
#ifndef WASP_ISA_CLASS_STORE_H
#define WASP_ISA_CLASS_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "isa/isa.h"

typedef struct wasp_class_store {
    uint64_t at;   /* the store instruction's address */
    uint64_t obj;  /* the object it initializes: the address less the displacement */
    uint64_t word; /* the class word it stores (narrow when compressed) */
    uint8_t len;   /* the store's length in bytes */
    uint8_t ahead; /* 1: found by the forward scan (not run yet); 0: it ended at pc */
} wasp_class_store;

/* Whether the object at obj with class word `word` is one (the caller's
 * checks: the heap, a class with a valid layout helper). */
typedef int (*wasp_class_store_accept)(uint64_t obj, uint64_t word, void *arg);

typedef enum wasp_class_store_found {
    WASP_CSTORE_NONE = 0,     /* no store of the class word's shape within reach */
    WASP_CSTORE_FOUND = 1,    /* *out filled, accepted */
    WASP_CSTORE_LOST = 2,     /* one, but the value it stores is no longer in the registers */
    WASP_CSTORE_REJECTED = 3, /* one (or more), whose object or class `accept` refused */
    WASP_CSTORE_UNDECODABLE = 4 /* the code at pc does not decode */
} wasp_class_store_found;

/* A plain store (a `mov` from a general register or an immediate) of `width`
 * bytes at displacement `disp` from a base register, no index: first the
 * instruction ending at pc (`before`: the nb <= WASP_MAX_INSN bytes ending
 * there, regs the state now; nb 0 skips it), then the instructions from pc
 * (`code`: n bytes at pc, regs the state before the one at pc) over at most
 * max_insns straight-line instructions, while its base and source registers
 * hold what they will hold when it runs. */
wasp_class_store_found wasp_isa_find_class_store(const uint8_t *before, size_t nb,
                                                 const uint8_t *code, size_t n, uint64_t pc,
                                                 const wasp_regs *regs, uint32_t disp,
                                                 uint32_t width, int max_insns,
                                                 wasp_class_store_accept accept, void *arg,
                                                 wasp_class_store *out);

#endif
