/*
 * How much of a thread's allocation its alloc chain covered between two of
 * its samples (a window), and the weight that makes up for the rest
 * (docs/alloc.md, step 5).
 *
 * A chain covers the TLAB bytes from where it starts (the top at a sample)
 * to where it ends: the TLAB's end, or the top at the sample that closes the
 * window. Each page boundary it covers is picked with the chance p; what the
 * thread allocates while no chain runs is not sampled. A phase that
 * allocates fast outruns the chain (it ends at every TLAB's end, several a
 * window) where a slow one is covered whole, so without a correction the
 * slow phase's classes are over-counted. Each catch of a window therefore
 * weighs also by the window's allocated TLAB bytes over its covered bytes,
 * known when the window closes. A window no chain covered at all (the
 * watchpoint budget refused one, say) has no catch to weigh: its bytes go to
 * the next window that has.
 *
 * ASYNC-SIGNAL-SAFE: arithmetic on the thread's own state and reads of its
 * own JavaThread (heap/tlab.h), in its signal handler.
 */
#ifndef WASP_ANALYSIS_ALLOC_COVERAGE_H
#define WASP_ANALYSIS_ALLOC_COVERAGE_H

#include <stdint.h>

/* Catches of one window whose weights wait for its close; more in a window
 * keep their weight (the burst limit makes a dozen rare, byte_sampling.h). */
enum { WASP_ALLOC_WINDOW_CATCHES = 32 };

/* The largest correction: a window whose chain covered a sliver of what
 * the thread allocated (a sample just before a TLAB's end) gets few
 * catches, but one of them would otherwise outweigh hundreds. */
#define WASP_ALLOC_COVER_MAX 32.0

typedef struct wasp_alloc_coverage {
    uint64_t from, end; /* the open stretch: from `from` in the TLAB ending at `end`; 0 none */
    uint64_t covered;   /* bytes of the window's stretches already ended */
    uint64_t uncovered; /* bytes of earlier windows no chain covered at all */
    uint64_t used_mark, size_mark; /* the TLAB's used bytes and size when the window opened */
    uint64_t allocated_mark;       /* the thread's allocated bytes then (heap/tlab.h) */
    uint64_t outside_mark;         /* its bytes allocated outside TLABs then (estimated) */
    uint32_t refills_mark, epoch_mark;
    int open; /* the marks are set */
    uint32_t ncaught;
    uint32_t rec[WASP_ALLOC_WINDOW_CATCHES]; /* the records of the window's catches */
    double weight[WASP_ALLOC_WINDOW_CATCHES]; /* and the weight each added */
    double bytes[WASP_ALLOC_WINDOW_CATCHES];  /* and the bytes (weight times its size) */
} wasp_alloc_coverage;

/* TLAB bytes a thread allocated from a window's opening (its TLAB then:
 * used_mark of size_mark bytes used, refills_mark taken since the last GC)
 * to now (used_now bytes of its current TLAB, refills_now taken), the TLABs
 * taken in between counted at the size the JVM asks for (`desired`).
 * Returns 0 when the counts do not fit together (a GC zeroed them). */
uint64_t wasp_alloc_window_bytes(uint64_t used_mark, uint64_t size_mark, uint32_t refills_mark,
                                 uint64_t used_now, uint32_t refills_now, uint64_t desired);
/* The factor a window's catches weigh by: allocated over covered bytes,
 * within [1, WASP_ALLOC_COVER_MAX]; 1 when either is unknown (0). */
double wasp_alloc_cover_factor(uint64_t allocated, uint64_t covered);

/* The chain covers from `top` in the TLAB ending at `end` (a chain
 * started): a stretch open in another TLAB ran to its end. */
void wasp_alloc_cover_from(wasp_alloc_coverage *c, uint64_t top, uint64_t end);
/* The chain stopped at `top` before its TLAB's end (no watch to go on). */
void wasp_alloc_cover_stop(wasp_alloc_coverage *c, uint64_t top);
/* A catch of this window added `weight` creations, `bytes` estimated
 * bytes (weight times the object's size; 0 when not known) to record `rec`. */
void wasp_alloc_cover_caught(wasp_alloc_coverage *c, uint32_t rec, double weight, double bytes);
/* The thread's sample (or end) closes the window: add(arg, rec, weight,
 * bytes, factor) for each of its catches, which added weight and bytes to
 * rec and now weighs factor (> 1) times that; then the next window opens.
 * `env` is the thread's JNIEnv,
 * `epoch` the GC epoch now, `outside` the bytes the thread allocated outside
 * TLABs so far as its allocation samples estimate them (thread_state.h; 0
 * when not sampled). *allocated and *covered get the window's TLAB bytes
 * (0 and 0 when not known). */
void wasp_alloc_cover_close(wasp_alloc_coverage *c, void *env, uint32_t epoch, uint64_t outside,
                            void (*add)(void *arg, uint32_t rec, double weight, double bytes,
                                        double factor),
                            void *arg,
                            uint64_t *allocated, uint64_t *covered);

#endif
