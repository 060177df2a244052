/*
 * ZGC's heap range from its VMStructs globals, checked against
 * /proc/self/maps (see zgc_heap.h). Not async-signal-safe.
 */
#include "agent/zgc_heap.h"

#include <stdio.h>
#include <string.h>

#include "agent/vmflags.h"
#include "agent/vmstructs.h"
#include "heap/zgc_range.h"

/* The value a ZGlobalsForVMStructs field points to: the struct holds
 * pointers to the collector's globals. 0 when missing. */
static uint64_t global(const char *type, const char *field)
{
    void *inst_p = NULL;
    uint64_t off;
    if (wasp_vm_field(type, "_instance_p", NULL, &inst_p) != 0 || !inst_p ||
        wasp_vm_field(type, field, &off, NULL) != 0)
        return 0;
    const char *inst = *(char *const *)inst_p;
    if (!inst)
        return 0;
    const uint64_t *value = *(const uint64_t *const *)(inst + off);
    return value ? *value : 0;
}

/* Every java_heap mapping inside [lo, hi)? 1 yes (or none found), 0 no. */
static int maps_fit(uint64_t lo, uint64_t hi, char *why, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 1;
    char line[512];
    uint64_t a, b;
    int fit = 1;
    while (fit && fgets(line, sizeof line, f))
        if (wasp_zgc_maps_line(line, &a, &b) && (a < lo || b > hi)) {
            snprintf(why, len,
                     "ZGC's heap is mapped at [0x%llx, 0x%llx), outside [0x%llx, 0x%llx) that its "
                     "VMStructs globals give",
                     (unsigned long long)a, (unsigned long long)b, (unsigned long long)lo,
                     (unsigned long long)hi);
            fit = 0;
        }
    fclose(f);
    return fit;
}

int wasp_zgc_generational(void)
{
    int zgc = 0, flag = 0;
    if (wasp_vm_get_bool_flag("UseZGC", &zgc) != 0 || !zgc)
        return -1;
    /* JDK 17-20: single generation only; JDK 21-22: both, ZGenerational
     * says which runs (the single-generation one's VMStructs are then
     * XGlobalsForVMStructs); JDK 23+: generational only (the flag is gone
     * from JDK 24). The generational globals have a zpointer load shift. */
    if (wasp_vm_field("ZGlobalsForVMStructs", "_ZPointerLoadShift", NULL, NULL) != 0)
        return 0;
    return wasp_vm_get_bool_flag("ZGenerational", &flag) != 0 || flag;
}

int wasp_zgc_heap_range(uint64_t *lo, uint64_t *hi, char *why, size_t len)
{
    int generational = wasp_zgc_generational();
    if (generational < 0) {
        snprintf(why, len, "not ZGC");
        return -1;
    }
    const char *type = "ZGlobalsForVMStructs", *p = "_Z";
    if (!generational &&
        wasp_vm_field("XGlobalsForVMStructs", "_XAddressOffsetMask", NULL, NULL) == 0) {
        type = "XGlobalsForVMStructs";
        p = "_X";
    }
    char f_offset[48], f_meta[48], f_final[48];
    snprintf(f_offset, sizeof f_offset, "%sAddressOffsetMask", p);
    snprintf(f_meta, sizeof f_meta, "%sAddressMetadataMask", p);
    snprintf(f_final, sizeof f_final, "%sAddressMetadataFinalizable", p);
    uint64_t mask = global(type, f_offset);
    int coloured = wasp_vm_field(type, f_meta, NULL, NULL) == 0;
    uint64_t meta = coloured ? global(type, f_meta) : 0;
    uint64_t fin = coloured ? global(type, f_final) : 0;
    if (!mask || (coloured && !meta)) {
        snprintf(why, len, "VMStructs lack %s::%s%s", type, f_offset,
                 coloured ? " or its metadata masks" : "");
        return -1;
    }
    if (wasp_zgc_range_of(mask, meta, fin, lo, hi) != 0) {
        snprintf(why, len,
                 "ZGC's address masks are not of a known layout (offset 0x%llx, colours 0x%llx)",
                 (unsigned long long)mask, (unsigned long long)meta);
        return -1;
    }
    return maps_fit(*lo, *hi, why, len) ? 0 : -1;
}
