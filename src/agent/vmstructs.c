/*
 * Reading HotSpot's VMStructs tables (see vmstructs.h). Not async-signal-safe.
 */
#include "agent/vmstructs.h"

#include <dlfcn.h>
#include <string.h>

static uint64_t sym_u64(const char *name, int *ok)
{
    uint64_t *p = dlsym(RTLD_DEFAULT, name);
    if (!p)
        *ok = 0;
    return p ? *p : 0;
}

int wasp_vm_field(const char *type, const char *field, uint64_t *offset, void **address)
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

/* The entry named `name` of a VMStructs table of named entries (types,
 * int constants, long constants: a name pointer at the offset the symbol
 * prefix##NameOffset gives, entries stride apart, a NULL name last), and in
 * *value_off the offset of its value; NULL when absent. */
static const char *named_entry(const char *table, const char *name_off_sym, const char *value_sym,
                               const char *stride_sym, const char *name, uint64_t *value_off)
{
    int ok = 1;
    char **entries = dlsym(RTLD_DEFAULT, table);
    uint64_t name_off = sym_u64(name_off_sym, &ok);
    *value_off = sym_u64(value_sym, &ok);
    uint64_t stride = sym_u64(stride_sym, &ok);
    if (!entries || !*entries || !ok || !stride)
        return NULL;
    for (const char *e = *entries;; e += stride) {
        const char *n = *(const char *const *)(e + name_off);
        if (!n)
            return NULL;
        if (strcmp(n, name) == 0)
            return e;
    }
}

int wasp_vm_type_size(const char *type, uint64_t *size)
{
    uint64_t off;
    const char *e = named_entry("gHotSpotVMTypes", "gHotSpotVMTypeEntryTypeNameOffset",
                                "gHotSpotVMTypeEntrySizeOffset", "gHotSpotVMTypeEntryArrayStride",
                                type, &off);
    if (!e)
        return -1;
    *size = *(const uint64_t *)(e + off);
    return 0;
}

int wasp_vm_int_constant(const char *name, int32_t *value)
{
    uint64_t off;
    const char *e = named_entry("gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryNameOffset",
                                "gHotSpotVMIntConstantEntryValueOffset",
                                "gHotSpotVMIntConstantEntryArrayStride", name, &off);
    if (!e)
        return -1;
    *value = *(const int32_t *)(e + off);
    return 0;
}

int wasp_vm_long_constant(const char *name, uint64_t *value)
{
    uint64_t off;
    const char *e = named_entry("gHotSpotVMLongConstants", "gHotSpotVMLongConstantEntryNameOffset",
                                "gHotSpotVMLongConstantEntryValueOffset",
                                "gHotSpotVMLongConstantEntryArrayStride", name, &off);
    if (!e)
        return -1;
    *value = *(const uint64_t *)(e + off);
    return 0;
}
