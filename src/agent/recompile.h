/*
 * `wasp attach --recompile`: the code the JIT compiled before the attach,
 * compiled again with exact lines.
 *
 * A JVM started without -XX:+DebugNonSafepoints has debug records at its
 * safepoints only in the code compiled before wasp turned the flag on
 * (agent/exact_code.h): a sample there counts at the next safepoint's line,
 * sometimes in a method the next call inlined. A class redefinition
 * deoptimizes the compiled code that uses the class's methods (JDK 17, at a
 * JVM's first redefinition: all compiled code). Retransforming, unchanged,
 * the classes whose methods have such code (the code map knows them) makes
 * the JIT compile them again, now with the flag on; the program runs them
 * interpreted for a moment. Classes that cannot be retransformed (hidden
 * classes: lambdas) keep their coarse code.
 *
 * Not for signal handlers. Live phase, after DebugNonSafepoints is on and
 * the code map has the compiled methods (agent/code_map_load.h).
 */
#ifndef WASP_RECOMPILE_H
#define WASP_RECOMPILE_H

#include <jvmti.h>
#include <stddef.h>

/* 0 with how[] saying what was done (classes, time), or -1 with why in how[]. */
int wasp_recompile_all(jvmtiEnv *jvmti, JNIEnv *env, char *how, size_t len);

#endif
