/*
 * The program's CPU samples by source line (issue 40; docs/findings.md,
 * docs/profile-format.md, section CPUL): every sample the agent took in
 * compiled Java code, mapped at the dump to the Java frames of its PC
 * (inlined ones included), counted once at each (method, file, line) of
 * that inline chain: a line's count is inclusive of the code inlined into
 * it. The summary's "of CPU" is a line's count over all samples (the
 * counter cpu.samples; cpu.not_compiled of them fell in the interpreter,
 * stubs or native code, cpu.unmapped in compiled code the dump could not
 * place (a method whose id was taken again; code past a method's last
 * record maps, watch/pc_frames.h), cpu.dropped found the agent's table
 * full; cpu.published_late, in compiled code and counted at lines, were
 * taken before their method reached the handler's map).
 *
 * A profile without the section (an older wasp, or a run that took no
 * sample) has no lines: wasp_profile_has_cpu_lines says so.
 */
#ifndef WASP_PROFILE_CPU_LINES_H
#define WASP_PROFILE_CPU_LINES_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/bytes.h"
#include "profile/profile.h"

typedef struct wasp_cpu_line {
    uint32_t name;  /* string id: the method, as a frame names it */
    uint32_t file;  /* string id, 0 when unknown */
    int32_t line;   /* -1 when unknown */
    double samples;
} wasp_cpu_line;

/* The counters (profile counters) that go with the lines. */
#define WASP_CPU_SAMPLES "cpu.samples"
#define WASP_CPU_NOT_COMPILED "cpu.not_compiled"
#define WASP_CPU_UNMAPPED "cpu.unmapped"
#define WASP_CPU_DROPPED "cpu.dropped"
/* Of the samples in compiled code, those taken before their method was
 * published to the handler's code map (up to 250 ms after it ran). */
#define WASP_CPU_LATE "cpu.published_late"
/* Of the samples in compiled code, those in code compiled before
 * DebugNonSafepoints was on (an attach: agent/exact_code.h), counted at
 * the line of the safepoint after them. */
#define WASP_CPU_COARSE "cpu.coarse_lines"
/* Of the samples counted at lines, those taken in the JVM's runtime or a
 * native method and counted at the compiled call that led there. */
#define WASP_CPU_VIA_CALLER "cpu.via_caller"
/* Of cpu.not_compiled, those whose place was kept (most): in the
 * interpreter (code not compiled yet), the JVM's stubs, the JVM's own code
 * with no compiled caller (leaf calls, the interpreter's calls), other
 * native code. */
#define WASP_CPU_INTERPRETER "cpu.in_interpreter"
/* Of the samples counted at lines, those outside compiled code counted at
 * the Java frame a one-frame walk found: the interpreter's (at the bytecode
 * it ran, watch/interpreter.h) and the runtime's it called; not in
 * cpu.not_compiled. */
#define WASP_CPU_INTERPRETED "cpu.interpreted"
#define WASP_CPU_STUBS "cpu.in_stubs"
#define WASP_CPU_JVM "cpu.in_jvm"
#define WASP_CPU_NATIVE "cpu.in_native"

/* Adds samples to the line (name, file, line). 0, or -1 out of memory. */
int wasp_profile_add_cpu_line(wasp_profile *p, uint32_t name, uint32_t file, int32_t line,
                              double samples);
/* Adds samples once to each (method, line) of an inline chain (frames
 * 0..n, any order): recursion or a line reached twice in the chain counts
 * once. 0, or -1 out of memory. */
int wasp_profile_add_cpu_chain(wasp_profile *p, const wasp_frame *chain, int n, double samples);
/* Samples at (name, line), whatever the file: 0 when none. */
double wasp_profile_cpu_at(const wasp_profile *p, uint32_t name, int32_t line);
/* The same with the method named by its string (a place of another
 * profile, whose string ids are not p's). */
double wasp_profile_cpu_named(const wasp_profile *p, const char *name, int32_t line);

/* The leaves (section CPUI): each sample counted once more, at the
 * innermost frame of its inline chain alone (a native method's wrapper, the
 * line that called the runtime), so that leaves add up to the samples
 * mapped: the summary's estimate of a place with the code it calls
 * (docs/findings.md). Same calls as the lines'. */
int wasp_profile_add_cpu_leaf(wasp_profile *p, uint32_t name, uint32_t file, int32_t line,
                              double samples);
double wasp_profile_cpu_leaf_at(const wasp_profile *p, uint32_t name, int32_t line);
bool wasp_profile_has_cpu_leaves(const wasp_profile *p);
/* Whether p holds the section (or the cpu.samples counter): a profile
 * without it has no figure to give. */
bool wasp_profile_has_cpu_lines(const wasp_profile *p);

/* For src/profile/: the section written, read, merged (names through the
 * map), freed. */
void wasp_cpu_lines_encode(const wasp_profile *p, wasp_wbuf *b);
struct wasp_decoder;
int wasp_cpu_lines_decode(wasp_profile *p, struct wasp_decoder *d);
struct wasp_id_map;
int wasp_cpu_lines_merge(wasp_profile *dst, const wasp_profile *src, const struct wasp_id_map *m);
void wasp_cpu_lines_free(wasp_profile *p);

#endif
