/*
 * HotSpot flags through VMStructs (see vmflags.h). Not async-signal-safe.
 */
#include "agent/vmflags.h"
#include "agent/vmstructs.h"
#include "agent/zgc_heap.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The address of a boolean flag's value, NULL when it cannot be found. */
static _Bool *bool_flag(const char *name)
{
    /* The flag table's type is "JVMFlag" since JDK 14, "Flag" before. */
    static const char *const types[] = {"JVMFlag", "Flag"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        void *flags_addr = NULL, *count_addr = NULL;
        uint64_t name_off, addr_off, size;
        if (wasp_vm_field(types[i], "flags", NULL, &flags_addr) != 0 ||
            wasp_vm_field(types[i], "numFlags", NULL, &count_addr) != 0 ||
            wasp_vm_field(types[i], "_name", &name_off, NULL) != 0 ||
            wasp_vm_field(types[i], "_addr", &addr_off, NULL) != 0 ||
            wasp_vm_type_size(types[i], &size) != 0 || !flags_addr || !count_addr)
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

int wasp_vm_heap_range(uint64_t *lo, uint64_t *hi, char *why, size_t len)
{
    void *heap_addr = NULL;
    uint64_t reserved, start, words;
    if (wasp_vm_field("Universe", "_collectedHeap", NULL, &heap_addr) != 0 || !heap_addr ||
        wasp_vm_field("CollectedHeap", "_reserved", &reserved, NULL) != 0 ||
        wasp_vm_field("MemRegion", "_start", &start, NULL) != 0 ||
        wasp_vm_field("MemRegion", "_word_size", &words, NULL) != 0) {
        snprintf(why, len, "VMStructs lack CollectedHeap::_reserved");
        return -1;
    }
    const char *heap = *(char *const *)heap_addr;
    if (!heap) {
        snprintf(why, len, "no Java heap yet");
        return -1;
    }
    const char *region = heap + reserved;
    uint64_t base = *(const uint64_t *)(region + start);
    uint64_t size = *(const uint64_t *)(region + words) * 8; /* HeapWords */
    if (!base || !size) {
        /* ZGC leaves _reserved empty: its own globals say (zgc_heap.h). */
        char z[200];
        if (wasp_zgc_heap_range(lo, hi, z, sizeof z) == 0)
            return 0;
        snprintf(why, len, "CollectedHeap::_reserved is empty%s%s", strcmp(z, "not ZGC") ? ": " : "",
                 strcmp(z, "not ZGC") ? z : "");
        return -1;
    }
    *lo = base;
    *hi = base + size;
    return 0;
}
