/*
 * A library's functions by address, from an ELF symbol table, sorted once
 * and searched by bisection. elfutils' own lookup (dwfl_module_addrinfo)
 * scans every symbol per call, ~1 ms in libjvm's 57,000, paid by the
 * program wasp profiles for each native frame it names.
 *
 * The table comes from the library's .symtab, else from its separate debug
 * file found by build ID under a debug root (Debian: /usr/lib/debug, where
 * packages such as libc6-dbg put .build-id/ab/cdef....debug), else from its
 * .dynsym. The debug file is read with libelf alone: elfutils' own search
 * also decompresses its DWARF, ~40 ms for libc, where only names are
 * wanted. Not async-signal-safe: for the dump.
 */
#ifndef WASP_ELF_FUNCTIONS_H
#define WASP_ELF_FUNCTIONS_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

typedef struct wasp_elf_functions wasp_elf_functions;

/* The functions of the library open as elf (which must outlive the table),
 * whose build ID is build_id (id_len bytes, 0 when unknown); NULL when no
 * table names any function. */
wasp_elf_functions *wasp_elf_functions_of(Elf *elf, const char *debug_root,
                                          const unsigned char *build_id, size_t id_len);
void wasp_elf_functions_free(wasp_elf_functions *t);

/* The function whose [start, start + size) holds file_addr (an address as
 * the library's ELF file numbers it, i.e. without the load bias); NULL
 * when no function covers it. */
const char *wasp_elf_functions_name(const wasp_elf_functions *t, uint64_t file_addr);

/* Calls fn with each function: its name as the table has it (mangled, with
 * any symbol version), start and size (file addresses), by start. */
typedef void (*wasp_elf_function_fn)(const char *name, uint64_t start, uint64_t size, void *arg);
void wasp_elf_functions_each(const wasp_elf_functions *t, wasp_elf_function_fn fn, void *arg);

#endif
