/*
 * Java instance fields and the accesses that fit them (see java_field.h).
 */
#include "heap/java_field.h"

#include <stddef.h>

uint8_t wasp_java_field_size(const char *sig, int compressed_oops, uint8_t *is_float)
{
    *is_float = 0;
    if (!sig)
        return 0;
    switch (sig[0]) {
    case 'Z':
    case 'B':
        return 1;
    case 'C':
    case 'S':
        return 2;
    case 'F':
        *is_float = 1;
        return 4;
    case 'I':
        return 4;
    case 'D':
        *is_float = 1;
        return 8;
    case 'J':
        return 8;
    case 'L':
    case '[':
        return compressed_oops ? 4 : 8;
    default:
        return 0;
    }
}

wasp_field_fit wasp_java_field_fit(const wasp_java_field *fields, uint32_t n, uint32_t offset,
                                   uint32_t width, uint8_t float_size,
                                   const wasp_java_field **field)
{
    /* The last field starting at or before offset (fields are few: a
     * binary search would not pay). */
    const wasp_java_field *f = NULL;
    for (uint32_t i = 0; i < n && fields[i].offset <= offset; i++)
        f = &fields[i];
    if (field)
        *field = NULL;
    if (!f || offset >= f->offset + (f->size ? f->size : 1u))
        return WASP_FIT_NO_FIELD;
    if (offset != f->offset || !f->size)
        return f->size ? WASP_FIT_MISMATCH : WASP_FIT_NO_FIELD; /* inside the field */
    /* A float access needs a float field of the access's element width;
     * integer moves may carry any field (copies, raw bits). */
    wasp_field_fit fit = WASP_FIT_FIELD;
    if (!width || width == f->size)
        fit = float_size && (!f->is_float || float_size != f->size) ? WASP_FIT_MISMATCH
                                                                    : WASP_FIT_FIELD;
    else if (width < f->size || (float_size && (!f->is_float || float_size != f->size)))
        fit = WASP_FIT_MISMATCH;
    else {
        /* Wider moves write or copy several adjacent fields at once: C2
         * zeroes and initializes a new object 8 bytes at a time, clone and
         * arraycopy copy with 8-byte and vector moves. Such a move ends where
         * a field starts or ends (or past the fields), never inside one. */
        uint32_t end = offset + width;
        fit = WASP_FIT_SEVERAL;
        for (uint32_t i = 0; i < n; i++)
            if (fields[i].offset < end && end < fields[i].offset + fields[i].size)
                fit = WASP_FIT_MISMATCH;
    }
    if (field && fit != WASP_FIT_MISMATCH)
        *field = f;
    return fit;
}
