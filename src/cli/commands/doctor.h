/*
 * `wasp doctor [--json]`: what this machine supports and what wasp would use
 * here — kernel, perf events, seccomp, perf sigtrap, each sampler and each
 * watchpoint engine proven in this process the way the agent proves them at
 * start-up (a sample or a trap that arrived), NUMA nodes and the JDKs found —
 * each missing item with what to do about it.
 *
 * The proofs run in the wasp process, not in a JVM: a JVM started from the
 * same shell (same kernel, seccomp filter and limits) gets the same answers.
 * The PMU sampler is agent-only: doctor says whether a PMU is present, the
 * agent proves it when profiling starts.
 */
#ifndef WASP_CLI_DOCTOR_H
#define WASP_CLI_DOCTOR_H

#include <stdio.h>

/* How long one `java -version` may take before doctor gives up on it. */
enum { WASP_DOCTOR_JAVA_TIMEOUT_MS = 20000 };

void wasp_doctor_usage(FILE *out);

/* The subcommand (argv[0] is "doctor"); returns the exit status: 0 when a
 * sampler and a watchpoint engine both work here, 1 otherwise, 2 on bad
 * usage. */
int wasp_cmd_doctor(int argc, char **argv);

#endif
