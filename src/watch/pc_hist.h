/*
 * Every CPU sample's place (issue 40): a bounded, lock-free histogram of the
 * sampled PCs in compiled Java code, each keyed by (compiled method id, pc)
 * so that a PC a later method reuses is not taken for the earlier one's. The
 * agent maps each PC to its Java frames at the dump (agent/cpu_lines_dump.c);
 * the summary's "of CPU" is a line's share of all samples.
 *
 * Fixed-size open-addressing tables, allocated before sampling starts
 * (wasp_pc_hist_init): two, one counted in while the other is drained, so
 * each dump frees every slot and a table needs to hold only the PCs of one
 * interval between dumps. A sample that finds no free slot within a few
 * probes counts in `dropped`. Samples outside the compiled methods published
 * to the code map (id 0) count in `not_compiled`, and their PCs are kept too
 * (id 0, in at most an eighth of the slots; none dropped): a method is
 * published up to 250 ms after it runs (agent/code_map_load.h), and the
 * dump finds it then. Every sample counts in `total`.
 *
 * ASYNC-SIGNAL-SAFE: wasp_pc_hist_count and _count_caller only do
 * atomic operations on memory allocated beforehand; the rest is for the
 * agent outside handlers.
 */
#ifndef WASP_PC_HIST_H
#define WASP_PC_HIST_H

#include <stdint.h>

/* Method ids at or above this are not told apart (the key holds 16 bits
 * above a 48-bit user address): their samples count as not compiled. */
#define WASP_PC_HIST_MAX_ID 0x10000u

typedef struct wasp_pc_hist_totals {
    uint64_t total, not_compiled, dropped;
    uint64_t via_caller; /* of total: counted at the compiled code that called */
} wasp_pc_hist_totals;

/* Allocates the two tables (slots each: a power of two) and empties them.
 * 0, or -1 out of memory (then nothing is counted). Not while another
 * thread drains. */
int wasp_pc_hist_init(uint32_t slots);
/* A sample at pc in compiled method id (0: not in a published one). */
void wasp_pc_hist_count(uint32_t id, uint64_t pc);
/* A sample in the runtime or native code, counted at pc within the call
 * in compiled method id that made it (watch/runtime_caller.h). */
void wasp_pc_hist_count_caller(uint32_t id, uint64_t pc);
/* A sample in the interpreter, in method (a jmethodID, 8-byte aligned, below
 * 2^47) at bytecode index bci (0..65535): not compiled, kept as the samples
 * outside compiled methods are (within their eighth of the slots). */
void wasp_pc_hist_count_interpreted(const void *method, int32_t bci);

/* Each counted (id, pc) with its count since the last drain, and the
 * totals of the same samples; the table read is emptied (samples during the
 * drain count in the other, read at the next). For the dump; one drain at
 * a time. */
typedef void (*wasp_pc_hist_visit)(void *ctx, uint32_t id, uint64_t pc, uint64_t count);
/* Each counted (method, bci) of the interpreter's samples, likewise. */
typedef void (*wasp_pc_hist_visit_interpreted)(void *ctx, const void *method, int32_t bci,
                                               uint64_t count);
void wasp_pc_hist_drain(wasp_pc_hist_visit visit, wasp_pc_hist_visit_interpreted interpreted,
                        void *ctx, wasp_pc_hist_totals *totals);

#endif
