/*
 * The code map of CallerChaining contexts (watch/code_map.h), kept from the
 * JVM's CompiledMethodLoad and CompiledMethodUnload events, and what the
 * dump needs of every compiled method the run has seen (its jmethodID and
 * the inlined Java frames at each PC with debug information), kept while a
 * sample may name it: until the profile is written with CallerChaining
 * contexts, until the next dump otherwise (code_map_load.c).
 *
 * Not async-signal-safe: JVMTI callbacks and the dump.
 */
#ifndef WASP_CODE_MAP_LOAD_H
#define WASP_CODE_MAP_LOAD_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "watch/records.h"

void JNICALL wasp_code_map_on_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
                                   const void *code_addr, jint map_length,
                                   const jvmtiAddrLocationMap *map, const void *compile_info);
void JNICALL wasp_code_map_on_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr);

/* Empties the published map (a new session: the methods are reported
 * again); the methods seen so far stay known to the dump. */
void wasp_code_map_reset(void);

/* With walked contexts, loads and unloads are published in batches: this
 * publishes those waiting (the agent's background thread calls it every
 * tick; wasp_code_map_drain_begin too). */
void wasp_code_map_flush(void);

/* Around the drain of the CPU samples by place (agent/cpu_lines_dump.c):
 * with walked contexts, the methods unloaded before begin are freed by end
 * and their ids taken again (no sample can name them any more). */
void wasp_code_map_drain_begin(void);
void wasp_code_map_drain_end(void);

/* Between drain_begin and drain_end: the id of the compiled method known
 * (loaded, not freed) whose code holds pc, for a sample taken before it was
 * published; 0 when none, or more than one (the address reused). */
uint32_t wasp_code_map_late_id(uint64_t pc);

/* The compiled method id's root method, or NULL when unknown. */
jmethodID wasp_code_map_method(uint32_t id);
/* The Java frames (leaf first; inlined ones before their caller) of compiled
 * method id at the first PC with debug information after `after`; past the
 * last one, C2's out-of-line stubs, as where they jump back to, else the
 * root method at bci -1, as all of a method without records
 * (watch/pc_frames.h). At most cap into out. Returns their count, 0 for an
 * unknown id or a pc outside the method. *coarse (unless NULL): whether the
 * method's lines are coarse, its records at safepoints only (a method
 * compiled before an attach; wasp_code_map_lines_turned_on). */
int wasp_code_map_frames(uint32_t id, uint64_t after, wasp_rframe *out, int cap, bool *coarse);

/* The Java frames (leaf first) of the call whose return address into
 * method root's compiled code is ret: the first debug record after the call
 * with a position (wasp_pc_frames_placed), among the compiled methods known
 * (unloaded ones until a dump frees them) whose root is root and whose code
 * holds the call. At most cap into out; 0 when none. */
int wasp_code_map_caller_frames(jmethodID root, uint64_t ret, wasp_rframe *out, int cap);

/* Whether this session turned DebugNonSafepoints on (an attach to a JVM
 * started without it): then the methods compiled while it is on are
 * remembered as exact (agent/exact_code.h), and around GenerateEvents'
 * reports of the methods compiled already (on the thread that asks for
 * them) those not remembered so are coarse. */
void wasp_code_map_lines_turned_on(bool on);
void wasp_code_map_existing_begin(void);
void wasp_code_map_existing_end(void);

/* Counts for the profile: compiled methods known, those whose prologue had
 * no known shape, and the bytes their copies hold. */
void wasp_code_map_stats(uint64_t *methods, uint64_t *unknown_shape, uint64_t *bytes);
/* The methods of the live compiled code whose lines are coarse (compiled
 * before this attach turned DebugNonSafepoints on), at most cap of them into
 * out: their number (agent/recompile.h). */
uint32_t wasp_code_map_coarse_methods(jmethodID *out, uint32_t cap);

#endif
