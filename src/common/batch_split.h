/*
 * A batch call that fails whole when one of its items fails: JVMTI's
 * RetransformClasses changes no class if any one of them fails (a class
 * another agent's transformer cannot handle, say). The batch is halved until
 * each failing item stands alone, and those are left out; the rest go
 * through. A failure that is no item's fault (the error says so) ends it.
 */
#ifndef WASP_BATCH_SPLIT_H
#define WASP_BATCH_SPLIT_H

#include <stddef.h>

/* Does the work on items[0..n): 0, or an error code. */
typedef int (*wasp_batch_call)(void *ctx, void *items, size_t n);
/* Whether an error is one item's fault, so that halving can find it. */
typedef int (*wasp_batch_item_error)(int error);

typedef struct wasp_batch_result {
    size_t done;     /* items the call went through for */
    size_t left_out; /* items left out: failing alone, or not tried */
    int calls;       /* calls made */
    int first_error; /* the first error a call gave, 0 if none */
    int stopped;     /* 1: an error no item's fault, or max_calls reached */
} wasp_batch_result;

/* Calls call on items (n of size bytes each), halving a failing batch,
 * at most max_calls times in all. */
wasp_batch_result wasp_batch_split(void *items, size_t n, size_t size, int max_calls,
                                   wasp_batch_call call, wasp_batch_item_error item_error,
                                   void *ctx);

#endif
