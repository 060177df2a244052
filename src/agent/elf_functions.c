/*
 * A library's functions by address (see elf_functions.h). Not
 * async-signal-safe: allocates and reads files.
 */
#include "agent/elf_functions.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    uint64_t start, size;
    uint32_t name;  /* offset in the string table */
    uint8_t global; /* of aliases at one address, the exported name reads best */
} function;

struct wasp_elf_functions {
    int debug_fd;    /* the separate debug file, when the table is its (else -1) */
    Elf *debug_elf;
    Elf *names_elf;  /* the file whose string table holds the names */
    size_t strtab;   /* its section index */
    function *fns;   /* by start, then local before global */
    size_t n;
};

static int by_start(const void *a, const void *b)
{
    const function *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (int)x->global - (int)y->global;
}

/* A section as stored, inflated when the file compresses it. */
static Elf_Data *section_data(Elf_Scn *scn, const GElf_Shdr *sh)
{
    if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
        return NULL;
    return elf_getdata(scn, NULL);
}

static Elf_Scn *section_of_type(Elf *elf, GElf_Word type, GElf_Shdr *sh)
{
    for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn));)
        if (gelf_getshdr(scn, sh) && sh->sh_type == type)
            return scn;
    return NULL;
}

/* Assembly functions often carry no size (libjvm's SpinPause: `pause; mov;
 * ret`): each such one is taken to run to the next function's start, at
 * most SIZELESS_MAX bytes, as a debugger would name an address past it. */
enum { SIZELESS_MAX = 4096 };
static void size_sizeless(function *fns, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (fns[i].size)
            continue;
        size_t next = i + 1;
        while (next < n && fns[next].start == fns[i].start)
            next++;
        uint64_t room = next < n ? fns[next].start - fns[i].start : SIZELESS_MAX;
        fns[i].size = room < SIZELESS_MAX ? room : SIZELESS_MAX;
    }
}

/* The functions of one symbol table of elf into t; 0 when any. */
static int read_functions(wasp_elf_functions *t, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
    Elf_Data *data = section_data(scn, sh);
    Elf_Scn *names = elf_getscn(elf, sh->sh_link);
    GElf_Shdr names_sh;
    if (!data || sh->sh_entsize == 0 || !names || !gelf_getshdr(names, &names_sh) ||
        !section_data(names, &names_sh))
        return -1;
    size_t count = sh->sh_size / sh->sh_entsize;
    function *fns = calloc(count ? count : 1, sizeof *fns);
    if (!fns)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym))
            break;
        int type = GELF_ST_TYPE(sym.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
            continue;
        fns[n++] = (function){.start = sym.st_value, .size = sym.st_size, .name = sym.st_name,
                              .global = GELF_ST_BIND(sym.st_info) != STB_LOCAL};
    }
    if (n == 0) {
        free(fns);
        return -1;
    }
    qsort(fns, n, sizeof *fns, by_start);
    size_sizeless(fns, n);
    t->fns = fns;
    t->n = n;
    t->names_elf = elf;
    t->strtab = sh->sh_link;
    return 0;
}

/* The separate debug file's symbol table: root/.build-id/ab/cdef....debug,
 * the first byte of the ID naming the directory. */
static int read_debug_file(wasp_elf_functions *t, const char *root, const unsigned char *id,
                           size_t id_len)
{
    if (!root || !id || id_len < 2)
        return -1;
    char path[4096];
    int k = snprintf(path, sizeof path, "%s/.build-id/%02x/", root, id[0]);
    for (size_t i = 1; i < id_len && k > 0 && (size_t)k < sizeof path; i++)
        k += snprintf(path + k, sizeof path - (size_t)k, "%02x", id[i]);
    if (k <= 0 || (size_t)k + sizeof ".debug" > sizeof path)
        return -1;
    snprintf(path + k, sizeof path - (size_t)k, ".debug");
    t->debug_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (t->debug_fd < 0)
        return -1;
    t->debug_elf = elf_begin(t->debug_fd, ELF_C_READ_MMAP, NULL);
    GElf_Shdr sh;
    Elf_Scn *scn = section_of_type(t->debug_elf, SHT_SYMTAB, &sh);
    return scn ? read_functions(t, t->debug_elf, scn, &sh) : -1;
}

wasp_elf_functions *wasp_elf_functions_of(Elf *elf, const char *debug_root,
                                          const unsigned char *build_id, size_t id_len)
{
    if (!elf || elf_version(EV_CURRENT) == EV_NONE)
        return NULL;
    wasp_elf_functions *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->debug_fd = -1;
    GElf_Shdr sh;
    Elf_Scn *symtab = section_of_type(elf, SHT_SYMTAB, &sh);
    int read = symtab ? read_functions(t, elf, symtab, &sh) : -1;
    if (!symtab)
        read = read_debug_file(t, debug_root, build_id, id_len);
    Elf_Scn *dynsym = read != 0 ? section_of_type(elf, SHT_DYNSYM, &sh) : NULL;
    if (dynsym)
        read = read_functions(t, elf, dynsym, &sh);
    if (read != 0) {
        wasp_elf_functions_free(t);
        return NULL;
    }
    return t;
}

void wasp_elf_functions_free(wasp_elf_functions *t)
{
    if (!t)
        return;
    if (t->debug_elf)
        elf_end(t->debug_elf);
    if (t->debug_fd >= 0)
        close(t->debug_fd);
    free(t->fns);
    free(t);
}

const char *wasp_elf_functions_name(const wasp_elf_functions *t, uint64_t file_addr)
{
    if (!t)
        return NULL;
    /* The last function starting at or before file_addr ... */
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->fns[mid].start <= file_addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* ... or, when that one ends before it, one a little earlier that
     * encloses it (a function can sit inside another's range). */
    for (size_t i = lo, tries = 0; i > 0 && tries < 8; i--, tries++) {
        const function *f = &t->fns[i - 1];
        if (file_addr - f->start < f->size)
            return elf_strptr(t->names_elf, t->strtab, f->name);
    }
    return NULL;
}

void wasp_elf_functions_each(const wasp_elf_functions *t, wasp_elf_function_fn fn, void *arg)
{
    for (size_t i = 0; t && i < t->n; i++) {
        const char *name = elf_strptr(t->names_elf, t->strtab, t->fns[i].name);
        if (name)
            fn(name, t->fns[i].start, t->fns[i].size, arg);
    }
}
