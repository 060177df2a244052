/*
 * Names of native code (libjvm, the JDK's and JNI libraries) by function,
 * from the libraries' ELF symbol tables through elfutils' libdwfl: .symtab
 * when present, else a separate debug file's (agent/debug_symtab.h), else
 * .dynsym. dladdr sees only exported symbols, so most of libjvm read
 * "libjvm.so +0x7ef160". Not async-signal-safe: for the dump.
 */
#ifndef WASP_NATIVE_SYMBOLS_H
#define WASP_NATIVE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct wasp_native_symbols wasp_native_symbols;

/* The libraries mapped in this process now; NULL when elfutils cannot say.
 * Separate debug files are looked for under /usr/lib/debug, or under
 * debug_root. */
wasp_native_symbols *wasp_native_symbols_open(void);
wasp_native_symbols *wasp_native_symbols_open_with_debug_root(const char *debug_root);
void wasp_native_symbols_close(wasp_native_symbols *s);

/* The function containing pc into name ("JVM_ArrayCopy", C++ names
 * demangled when the process has a demangler) and the library's file name
 * into lib ("libjvm.so"). Returns 1 when pc is in a mapped library (name is
 * then "+0x<offset in the library>" if no symbol covers it), 0 when it is
 * not (JIT code, the JVM's generated stubs). */
int wasp_native_symbols_name(wasp_native_symbols *s, uint64_t pc, char *name, size_t namelen,
                             char *lib, size_t liblen);

/* Calls fn with each function of the mapped library whose file name is lib
 * ("libjvm.so"): its raw name (elf_functions.h), address in this process and
 * size. Returns 0, or -1 when no such library is mapped or it names no
 * function. */
typedef void (*wasp_native_function_fn)(const char *name, uint64_t addr, uint64_t size, void *arg);
int wasp_native_symbols_each(wasp_native_symbols *s, const char *lib, wasp_native_function_fn fn,
                             void *arg);

#endif
