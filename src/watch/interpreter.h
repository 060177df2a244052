/*
 * HotSpot's template interpreter, for the sampling handler: where its code
 * lies (the code blob the JVM reports as "Interpreter"), and where a
 * method's bytecodes begin (Method::_constMethod, the code after the
 * ConstMethod), both published by the agent. A sample there is in a method
 * not compiled yet; a one-frame walk names the method, but the bytecode
 * index it gives is the frame's saved one, stale until the interpreter next
 * calls out (every sample of a loop at its method's first line), so the
 * live one is taken from the bytecode pointer x86-64's interpreter keeps in
 * r13 (issue 40: a short run's samples were a fifth in the interpreter, at
 * no line).
 *
 * ASYNC-SIGNAL-SAFE: wasp_interpreter_holds reads two words;
 * wasp_interpreter_bci reads the method the interrupted thread is running
 * (alive while it runs) through its jmethodID.
 */
#ifndef WASP_INTERPRETER_H
#define WASP_INTERPRETER_H

#include <stdint.h>

/* Adds [lo, hi) to the interpreter's range (for the agent). */
void wasp_interpreter_publish(uint64_t lo, uint64_t hi);
/* Whether pc is in the interpreter. */
int wasp_interpreter_holds(uint64_t pc);

/* Where a Method's ConstMethod is, where its code size is in it, and the
 * ConstMethod's size (the code follows it), from VMStructs (for the agent). */
void wasp_interpreter_set_layout(uint64_t const_method, uint64_t code_size,
                                 uint64_t const_method_size);
/* The bytecode index of bcp in the method whose jmethodID is method, when
 * the layout is known and bcp lies in its code; else fallback. */
int32_t wasp_interpreter_bci(const void *method, uint64_t bcp, int32_t fallback);

#endif
