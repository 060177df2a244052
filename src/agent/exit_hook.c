/*
 * The JVM's exits that post no VM death (see exit_hook.h): HotSpot calls
 * _exit(3) for -XX:+ExitOnOutOfMemoryError and exit() for its direct exits,
 * through libjvm's procedure linkage table. Its GOT entries for the two are
 * pointed at our functions, which write the profile first.
 *
 * libjvm is linked with BIND_NOW and RELRO, so its GOT is read-only: the page
 * is made writable for the one store and read-only again. A store that
 * mprotect refuses leaves the entry as it was (those exits then lose the
 * profile, as before: snapshots cover them). A child that HotSpot forked
 * (OnOutOfMemoryError's command) and that fails its exec calls _exit too:
 * only the process that installed the hook writes anything.
 *
 * Not async-signal-safe: runs at start-up, and on the exiting thread.
 */
#include "agent/exit_hook.h"

#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pid_t owner;
static wasp_exit_fn on_exit_fn;
static void (*real__exit)(int);
static void (*real_exit)(int);

static void hooked__exit(int status)
{
    if (getpid() == owner && on_exit_fn)
        on_exit_fn(status, 1);
    real__exit(status);
    __builtin_unreachable();
}

static void hooked_exit(int status)
{
    if (getpid() == owner && on_exit_fn)
        on_exit_fn(status, 0);
    real_exit(status);
    __builtin_unreachable();
}

typedef struct found {
    uintptr_t base;
    const ElfW(Dyn) *dyn;
} found;

static int find_jvm(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *name = info->dlpi_name;
    const char *slash = name ? strrchr(name, '/') : NULL;
    if (!slash || strcmp(slash + 1, "libjvm.so") != 0)
        return 0;
    found *f = data;
    f->base = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            f->dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    return 1;
}

/* The dynamic loader relocates some entries of a loaded object's dynamic
 * section in place and not others: an address below the base is relative. */
static uintptr_t absolute(uintptr_t base, uintptr_t v)
{
    return v < base ? base + v : v;
}

/* Point the GOT slot at *slot to fn; its old value into *old. */
static int patch(void **slot, void *fn, void (**old)(int))
{
    long pagesize = sysconf(_SC_PAGESIZE);
    uintptr_t page = (uintptr_t)slot & ~(uintptr_t)(pagesize - 1);
    size_t len = ((uintptr_t)slot + sizeof *slot > page + (uintptr_t)pagesize) ? 2 * pagesize
                                                                               : pagesize;
    if (mprotect((void *)page, len, PROT_READ | PROT_WRITE) != 0)
        return -1;
    memcpy(old, slot, sizeof *slot);
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    mprotect((void *)page, len, PROT_READ); /* RELRO again */
    return 0;
}

int wasp_exit_hook_install(wasp_exit_fn fn, char *why, size_t len)
{
    if (owner) {
        on_exit_fn = fn;
        return 0;
    }
    found f = {0};
    dl_iterate_phdr(find_jvm, &f);
    if (!f.dyn) {
        snprintf(why, len, "libjvm.so not found among the loaded objects");
        return -1;
    }
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *jmprel = NULL;
    size_t pltrelsz = 0;
    for (const ElfW(Dyn) *d = f.dyn; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)absolute(f.base, d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)absolute(f.base, d->d_un.d_ptr); break;
        case DT_JMPREL: jmprel = (const ElfW(Rela) *)absolute(f.base, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
        default: break;
        }
    }
    if (!symtab || !strtab || !jmprel) {
        snprintf(why, len, "libjvm.so has no procedure linkage table to hook");
        return -1;
    }
    void **slot__exit = NULL, **slot_exit = NULL;
    for (size_t i = 0; i < pltrelsz / sizeof *jmprel; i++) {
        const ElfW(Rela) *r = &jmprel[i];
        if (ELF64_R_TYPE(r->r_info) != R_X86_64_JUMP_SLOT)
            continue;
        const char *name = strtab + symtab[ELF64_R_SYM(r->r_info)].st_name;
        if (strcmp(name, "_exit") == 0)
            slot__exit = (void **)(f.base + r->r_offset);
        else if (strcmp(name, "exit") == 0)
            slot_exit = (void **)(f.base + r->r_offset);
    }
    if (!slot__exit) {
        snprintf(why, len, "libjvm.so does not call _exit through its linkage table");
        return -1;
    }
    on_exit_fn = fn;
    owner = getpid();
    if (patch(slot__exit, (void *)hooked__exit, &real__exit) != 0) {
        owner = 0;
        snprintf(why, len, "cannot make libjvm.so's linkage table writable");
        return -1;
    }
    if (slot_exit && patch(slot_exit, (void *)hooked_exit, &real_exit) != 0)
        snprintf(why, len, "exit() is not hooked, _exit() is");
    return 0;
}
