/*
 * The member of an object a fields record names (see docs/fields.md, "Which
 * member"): a header word, an array's elements, or the instance field the
 * access fits — by its offset, width and kind (heap/java_field.h). The agent
 * names its records with it when the run stops (agent.c).
 */
#ifndef WASP_ANALYSIS_FIELDS_NAMING_H
#define WASP_ANALYSIS_FIELDS_NAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap/java_field.h"

/* Where the header's words end, as this JVM lays objects out. */
typedef struct wasp_field_header {
    uint32_t klass_end;     /* end of the class word: 12 with compressed class pointers, else 16 */
    uint32_t length_offset; /* an array's length (4 bytes), up to its first element */
} wasp_field_header;

/* The member of class cls (a Java name: "int[]" is an array) at offset
 * (WASP_FIELD_ELEMENTS: the array's elements) accessed `width` bytes wide
 * (float_size: 4 or 8 for a float or double value, else 0), written to buf:
 * "(mark word)", "(class word)", "length", "[]", the field's name,
 * "(several fields from NAME)" for a vector move over the fields from NAME,
 * or "" (no field known there, or a mismatch). Returns the fit: MISMATCH
 * when the access cannot be to the field there (the record is then not the
 * object's). */
wasp_field_fit wasp_field_member(const char *cls, const wasp_java_field *fields, uint32_t n,
                                 const wasp_field_header *h, uint32_t offset, uint32_t width,
                                 uint8_t float_size, char *buf, size_t len);

/* The static field of a class at offset in its mirror, as above: the
 * field's name followed by " (static)", or "" and the fit. */
wasp_field_fit wasp_field_static_member(const wasp_java_field *statics, uint32_t n, uint32_t offset,
                                        uint32_t width, uint8_t float_size, char *buf, size_t len);

/* Whether cls is one of the JVM's fillers (JDK 19+): the objects HotSpot
 * writes over heap space it leaves unused, as the tail of a retired TLAB.
 * JDK 17 and older fill with int[], which cannot be told apart. */
bool wasp_field_is_filler(const char *cls);

#endif
