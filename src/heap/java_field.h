/*
 * A Java instance field as an access can be checked against it: its offset
 * in the object, its width (the size of its type: boolean/byte 1, char/short
 * 2, int/float 4, long/double 8, a reference 4 with compressed oops, else 8)
 * and whether it holds a float or double. Built by the agent from the JVM's
 * field signatures when the run stops (agent/java_names.c); the fit rule
 * decides whether a sampled access is to the field at its offset.
 */
#ifndef WASP_HEAP_JAVA_FIELD_H
#define WASP_HEAP_JAVA_FIELD_H

#include <stdint.h>

typedef struct wasp_java_field {
    const char *name;
    uint32_t offset;
    uint8_t size;     /* bytes */
    uint8_t is_float; /* 1 for float and double */
} wasp_java_field;

/* The width of a field of JVM type signature sig ("I", "J", "Ljava/lang/String;",
 * "[I"), 0 for a signature that is none; *is_float set for "F" and "D". */
uint8_t wasp_java_field_size(const char *sig, int compressed_oops, uint8_t *is_float);

/* What an access does to the fields of an object. */
typedef enum wasp_field_fit {
    WASP_FIT_NO_FIELD = 0, /* no field starts at or covers the offset (padding, a
                            * field the JVM does not list) */
    WASP_FIT_FIELD,        /* the field starting there, by an access of its width and kind */
    WASP_FIT_SEVERAL,      /* a move wider than the field starting there, over it and the
                            * fields after it, ending at no field's middle: an object's
                            * initialization or copy, several fields at once */
    WASP_FIT_MISMATCH,     /* the access cannot be to the field there: narrower than it,
                            * wider and ending inside a later field, starting inside it,
                            * or a float access to a field that holds no float of the
                            * access's width */
} wasp_field_fit;

/* Whether an access of `width` bytes (float_size 4 or 8 when its value is a
 * float/double, else 0) at `offset` fits fields[0..n) (sorted by offset);
 * *field (when not NULL) is the field it names, for FIELD and SEVERAL.
 * width 0 (not known) fits any field starting at offset. */
wasp_field_fit wasp_java_field_fit(const wasp_java_field *fields, uint32_t n, uint32_t offset,
                                   uint32_t width, uint8_t float_size,
                                   const wasp_java_field **field);

#endif
