/*
 * The CPU samples by line at the dump (profile/cpu_lines.h): the handler's
 * PC histogram (watch/pc_hist.h) drained, each PC of compiled code turned
 * into its Java frames through the compiled method's debug information
 * (agent/code_map_load.h, kept after the method's unloading), and counted
 * once at each (method, line) of its inline chain. A PC the handler found
 * in no published method is looked up among the methods known at the dump
 * (one published after the sample: cpu.published_late).
 *
 * Not async-signal-safe: the dump, threads quiet or not (a sample during
 * the drain counts in the next one).
 */
#ifndef WASP_CPU_LINES_DUMP_H
#define WASP_CPU_LINES_DUMP_H

#include "agent/dump.h"
#include "profile/profile.h"
#include "watch/records.h"

/* Slots of the PC histogram: a power of two (16 bytes each). */
enum { WASP_CPU_PC_SLOTS = 1u << 16 };

/* Adds the samples since the last dump to d's profile. */
void wasp_cpu_lines_dump(wasp_dump *d);

/* A Java frame (method, bci) as the profile's frame (dump.c). */
void wasp_dump_java_frame(wasp_dump *d, const wasp_rframe *rf, wasp_frame *out);

#endif
