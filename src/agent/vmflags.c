/*
 * HotSpot flags through VMStructs (see vmflags.h). Not async-signal-safe.
 */
#include "agent/vmflags.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

static uint64_t sym_u64(const char *name, int *ok)
{
    uint64_t *p = dlsym(RTLD_DEFAULT, name);
    if (!p)
        *ok = 0;
    return p ? *p : 0;
}

/* Find a field of a VMStructs type: its offset, or for a static field its
 * address. Returns 0 when found. */
static int vm_field(const char *type, const char *field, uint64_t *offset, void **address)
{
    int ok = 1;
    char **entries = dlsym(RTLD_DEFAULT, "gHotSpotVMStructs");
    uint64_t type_off = sym_u64("gHotSpotVMStructEntryTypeNameOffset", &ok);
    uint64_t field_off = sym_u64("gHotSpotVMStructEntryFieldNameOffset", &ok);
    uint64_t offset_off = sym_u64("gHotSpotVMStructEntryOffsetOffset", &ok);
    uint64_t address_off = sym_u64("gHotSpotVMStructEntryAddressOffset", &ok);
    uint64_t stride = sym_u64("gHotSpotVMStructEntryArrayStride", &ok);
    if (!entries || !*entries || !ok || !stride)
        return -1;
    for (char *e = *entries;; e += stride) {
        const char *t = *(const char **)(e + type_off);
        const char *f = *(const char **)(e + field_off);
        if (!t)
            return -1; /* end of table */
        if (f && strcmp(t, type) == 0 && strcmp(f, field) == 0) {
            if (offset)
                *offset = *(uint64_t *)(e + offset_off);
            if (address)
                *address = *(void **)(e + address_off);
            return 0;
        }
    }
}

static int vm_type_size(const char *type, uint64_t *size)
{
    int ok = 1;
    char **entries = dlsym(RTLD_DEFAULT, "gHotSpotVMTypes");
    uint64_t name_off = sym_u64("gHotSpotVMTypeEntryTypeNameOffset", &ok);
    uint64_t size_off = sym_u64("gHotSpotVMTypeEntrySizeOffset", &ok);
    uint64_t stride = sym_u64("gHotSpotVMTypeEntryArrayStride", &ok);
    if (!entries || !*entries || !ok || !stride)
        return -1;
    for (char *e = *entries;; e += stride) {
        const char *t = *(const char **)(e + name_off);
        if (!t)
            return -1;
        if (strcmp(t, type) == 0) {
            *size = *(uint64_t *)(e + size_off);
            return 0;
        }
    }
}

/* The address of a boolean flag's value, NULL when it cannot be found. */
static _Bool *bool_flag(const char *name)
{
    /* The flag table's type is "JVMFlag" since JDK 14, "Flag" before. */
    static const char *const types[] = {"JVMFlag", "Flag"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        void *flags_addr = NULL, *count_addr = NULL;
        uint64_t name_off, addr_off, size;
        if (vm_field(types[i], "flags", NULL, &flags_addr) != 0 ||
            vm_field(types[i], "numFlags", NULL, &count_addr) != 0 ||
            vm_field(types[i], "_name", &name_off, NULL) != 0 ||
            vm_field(types[i], "_addr", &addr_off, NULL) != 0 ||
            vm_type_size(types[i], &size) != 0 || !flags_addr || !count_addr)
            continue;
        char *table = *(char **)flags_addr;
        size_t count = *(size_t *)count_addr;
        for (size_t k = 0; table && k < count; k++) {
            char *flag = table + k * size;
            const char *n = *(const char **)(flag + name_off);
            if (n && strcmp(n, name) == 0)
                return *(_Bool **)(flag + addr_off);
        }
    }
    return NULL;
}

int wasp_vm_set_bool_flag(const char *name, int value)
{
    _Bool *addr = bool_flag(name);
    if (!addr)
        return -1;
    *addr = value != 0;
    return 0;
}

int wasp_vm_get_bool_flag(const char *name, int *value)
{
    _Bool *addr = bool_flag(name);
    if (!addr)
        return -1;
    *value = *addr;
    return 0;
}

int wasp_vm_heap_range(uint64_t *lo, uint64_t *hi)
{
    void *heap_addr = NULL;
    uint64_t reserved, start, words;
    if (vm_field("Universe", "_collectedHeap", NULL, &heap_addr) != 0 || !heap_addr ||
        vm_field("CollectedHeap", "_reserved", &reserved, NULL) != 0 ||
        vm_field("MemRegion", "_start", &start, NULL) != 0 ||
        vm_field("MemRegion", "_word_size", &words, NULL) != 0)
        return -1;
    const char *heap = *(char *const *)heap_addr;
    if (!heap)
        return -1;
    const char *region = heap + reserved;
    uint64_t base = *(const uint64_t *)(region + start);
    uint64_t size = *(const uint64_t *)(region + words) * 8; /* HeapWords */
    if (!base || !size)
        return -1;
    *lo = base;
    *hi = base + size;
    return 0;
}
