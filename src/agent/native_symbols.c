/*
 * Native code named through elfutils (see native_symbols.h). Not
 * async-signal-safe: reads /proc/self/maps and the libraries' files.
 */
#include "agent/native_symbols.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct wasp_native_symbols {
    Dwfl *dwfl;
    /* libstdc++'s demangler: elfutils has no public one, and C++ names
     * are unreadable mangled. Debian's libjvm links libstdc++; a libjvm
     * that carries its own copy (Temurin) exports none, so the system's
     * library is loaded for it (at dump time, never in a handler). */
    char *(*demangle)(const char *, char *, size_t *, int *);
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    /* Separate debug files only add names when .symtab was stripped. */
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

wasp_native_symbols *wasp_native_symbols_open(void)
{
    wasp_native_symbols *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->dwfl = dwfl_begin(&callbacks);
    if (!s->dwfl || dwfl_linux_proc_report(s->dwfl, getpid()) != 0 ||
        dwfl_report_end(s->dwfl, NULL, NULL) != 0) {
        wasp_native_symbols_close(s);
        return NULL;
    }
    void *d = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!d) {
        /* Kept loaded: unloading a C++ runtime from a live JVM is not worth
         * the risk for a few kilobytes. */
        void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        d = lib ? dlsym(lib, "__cxa_demangle") : NULL;
    }
    memcpy(&s->demangle, &d, sizeof d); /* object pointer to function pointer */
    return s;
}

void wasp_native_symbols_close(wasp_native_symbols *s)
{
    if (!s)
        return;
    if (s->dwfl)
        dwfl_end(s->dwfl);
    free(s);
}

int wasp_native_symbols_name(wasp_native_symbols *s, uint64_t pc, char *name, size_t namelen,
                             char *lib, size_t liblen)
{
    if (!s)
        return 0;
    Dwfl_Module *m = dwfl_addrmodule(s->dwfl, (Dwarf_Addr)pc);
    if (!m)
        return 0;
    /* A module spans its file's lowest to highest mapping, and the JVM's
     * code cache can lie between two mappings of one file (the class data
     * archive): only a PC in one of the file's sections is its code. */
    Dwarf_Addr in_section = (Dwarf_Addr)pc, bias = 0;
    if (!dwfl_module_address_section(m, &in_section, &bias))
        return 0;
    Dwarf_Addr base = 0;
    const char *path = dwfl_module_info(m, NULL, &base, NULL, NULL, NULL, NULL, NULL);
    if (!path)
        return 0;
    const char *slash = strrchr(path, '/');
    snprintf(lib, liblen, "%s", slash ? slash + 1 : path);
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *sname = dwfl_module_addrinfo(m, (GElf_Addr)pc, &off, &sym, NULL, NULL, NULL);
    if (!sname) {
        /* No symbol covers it: the offset still lets addr2line name it. */
        snprintf(name, namelen, "+0x%llx", (unsigned long long)(pc - base));
        return 1;
    }
    char *readable = NULL;
    int status = -1;
    if (s->demangle && strncmp(sname, "_Z", 2) == 0)
        readable = s->demangle(sname, NULL, NULL, &status);
    snprintf(name, namelen, "%s", readable && status == 0 ? readable : sname);
    free(readable);
    return 1;
}
