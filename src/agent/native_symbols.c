/*
 * Native code named through elfutils (see native_symbols.h). Not
 * async-signal-safe: reads /proc/self/maps and the libraries' files.
 */
#include "agent/native_symbols.h"

#include "agent/elf_functions.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct wasp_native_symbols {
    Dwfl *dwfl;
    const char *debug_root;
    /* libstdc++'s demangler: elfutils has no public one, and C++ names
     * are unreadable mangled. Debian's libjvm links libstdc++; a libjvm
     * that carries its own copy (Temurin) exports none, so the system's
     * library is loaded for it (at dump time, never in a handler). */
    char *(*demangle)(const char *, char *, size_t *, int *);
};

/* A library's functions, read on its first lookup: kept in its module's
 * user data. */
typedef struct {
    wasp_elf_functions *functions; /* NULL: no symbol table names any */
} module_functions;

/* elfutils is never asked for separate debug files: its search decompresses
 * their DWARF (elf_functions.h), which reads their symbol tables itself. */
static int no_debuginfo(Dwfl_Module *m, void **userdata, const char *modname, Dwarf_Addr base,
                        const char *file, const char *debuglink, GElf_Word crc, char **debugname)
{
    (void)m, (void)userdata, (void)modname, (void)base, (void)file, (void)debuglink, (void)crc;
    (void)debugname;
    return -1;
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = no_debuginfo,
};

wasp_native_symbols *wasp_native_symbols_open(void)
{
    return wasp_native_symbols_open_with_debug_root("/usr/lib/debug");
}

wasp_native_symbols *wasp_native_symbols_open_with_debug_root(const char *debug_root)
{
    wasp_native_symbols *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->debug_root = debug_root;
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

static int free_module_functions(Dwfl_Module *m, void **userdata, const char *name,
                                 Dwarf_Addr start, void *arg)
{
    (void)m, (void)name, (void)start, (void)arg;
    module_functions *f = *userdata;
    if (f) {
        wasp_elf_functions_free(f->functions);
        free(f);
        *userdata = NULL;
    }
    return DWARF_CB_OK;
}

void wasp_native_symbols_close(wasp_native_symbols *s)
{
    if (!s)
        return;
    if (s->dwfl) {
        dwfl_getmodules(s->dwfl, free_module_functions, NULL, 0);
        dwfl_end(s->dwfl);
    }
    free(s);
}

/* A library's file name without its directory ("libjvm.so"). */
static const char *file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const wasp_elf_functions *functions_of(const wasp_native_symbols *s, Dwfl_Module *m,
                                              Elf *elf)
{
    void **userdata = NULL;
    dwfl_module_info(m, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
    if (!userdata)
        return NULL;
    module_functions *f = *userdata;
    if (!f) {
        f = calloc(1, sizeof *f);
        if (!f)
            return NULL;
        *userdata = f;
        const unsigned char *id = NULL;
        GElf_Addr id_at = 0;
        int id_len = dwfl_module_build_id(m, &id, &id_at);
        f->functions = wasp_elf_functions_of(elf, s->debug_root, id, id_len > 0 ? (size_t)id_len : 0);
    }
    return f->functions;
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
    snprintf(lib, liblen, "%s", file_name(path));
    Elf *elf = dwfl_module_getelf(m, &bias); /* the same bias, and the file */
    const char *sname = elf ? wasp_elf_functions_name(functions_of(s, m, elf), pc - bias) : NULL;
    if (!sname) {
        /* No symbol covers it: the offset still lets addr2line name it. */
        snprintf(name, namelen, "+0x%llx", (unsigned long long)(pc - base));
        return 1;
    }
    /* Without its symbol version ("memcpy@@GLIBC_2.14"): one function,
     * one name, whichever table named it. */
    char plain[1024];
    snprintf(plain, sizeof plain, "%.*s", (int)strcspn(sname, "@"), sname);
    char *readable = NULL;
    int status = -1;
    if (s->demangle && strncmp(plain, "_Z", 2) == 0)
        readable = s->demangle(plain, NULL, NULL, &status);
    snprintf(name, namelen, "%s", readable && status == 0 ? readable : plain);
    free(readable);
    return 1;
}

typedef struct each_request {
    wasp_native_symbols *s;
    const char *lib;
    wasp_native_function_fn fn;
    void *arg;
    Dwarf_Addr bias;
    int found;
} each_request;

static void each_relocated(const char *name, uint64_t start, uint64_t size, void *arg)
{
    each_request *r = arg;
    r->fn(name, start + r->bias, size, r->arg);
}

static int each_in_module(Dwfl_Module *m, void **userdata, const char *name, Dwarf_Addr start,
                          void *arg)
{
    (void)userdata, (void)start;
    each_request *r = arg;
    if (strcmp(file_name(name), r->lib) != 0)
        return DWARF_CB_OK;
    Elf *elf = dwfl_module_getelf(m, &r->bias);
    const wasp_elf_functions *fns = elf ? functions_of(r->s, m, elf) : NULL;
    if (fns) {
        wasp_elf_functions_each(fns, each_relocated, r);
        r->found = 1;
    }
    return DWARF_CB_ABORT;
}

int wasp_native_symbols_each(wasp_native_symbols *s, const char *lib, wasp_native_function_fn fn,
                             void *arg)
{
    if (!s)
        return -1;
    each_request r = {.s = s, .lib = lib, .fn = fn, .arg = arg};
    dwfl_getmodules(s->dwfl, each_in_module, &r, 0);
    return r.found ? 0 : -1;
}
