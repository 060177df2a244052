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

int wasp_vm_type_size(const char *type, uint64_t *size)
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

int wasp_vm_int_constant(const char *name, int32_t *value)
{
    int ok = 1;
    char **entries = dlsym(RTLD_DEFAULT, "gHotSpotVMIntConstants");
    uint64_t name_off = sym_u64("gHotSpotVMIntConstantEntryNameOffset", &ok);
    uint64_t value_off = sym_u64("gHotSpotVMIntConstantEntryValueOffset", &ok);
    uint64_t stride = sym_u64("gHotSpotVMIntConstantEntryArrayStride", &ok);
    if (!entries || !*entries || !ok || !stride)
        return -1;
    for (char *e = *entries;; e += stride) {
        const char *n = *(const char **)(e + name_off);
        if (!n)
            return -1;
        if (strcmp(n, name) == 0) {
            *value = *(int32_t *)(e + value_off);
            return 0;
        }
    }
}

int wasp_vm_long_constant(const char *name, uint64_t *value)
{
    int ok = 1;
    char **entries = dlsym(RTLD_DEFAULT, "gHotSpotVMLongConstants");
    uint64_t name_off = sym_u64("gHotSpotVMLongConstantEntryNameOffset", &ok);
    uint64_t value_off = sym_u64("gHotSpotVMLongConstantEntryValueOffset", &ok);
    uint64_t stride = sym_u64("gHotSpotVMLongConstantEntryArrayStride", &ok);
    if (!entries || !*entries || !ok || !stride)
        return -1;
    for (char *e = *entries;; e += stride) {
        const char *n = *(const char **)(e + name_off);
        if (!n)
            return -1;
        if (strcmp(n, name) == 0) {
            *value = *(uint64_t *)(e + value_off);
            return 0;
        }
    }
}
