/*
 * HotSpot's VMStructs: the tables libjvm exports for serviceability tools
 * (gHotSpotVMStructs, gHotSpotVMTypes, gHotSpotVMIntConstants), read from
 * inside the process. Names differ between JDK releases (HeapRegion became
 * G1HeapRegion in JDK 22, ...): callers try each spelling they know.
 * Not for signal handlers.
 */
#ifndef WASP_VMSTRUCTS_H
#define WASP_VMSTRUCTS_H

#include <stdint.h>

/* A field of a VMStructs type: its offset, or for a static field its address.
 * Returns 0 when found, -1 when the table or the entry is missing. */
int wasp_vm_field(const char *type, const char *field, uint64_t *offset, void **address);
/* The size of a VMStructs type. Returns 0 when found. */
int wasp_vm_type_size(const char *type, uint64_t *size);
/* An integer constant (gHotSpotVMIntConstants). Returns 0 when found. */
int wasp_vm_int_constant(const char *name, int32_t *value);
/* A long constant (gHotSpotVMLongConstants). Returns 0 when found. */
int wasp_vm_long_constant(const char *name, uint64_t *value);

#endif
