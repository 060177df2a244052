/*
 * Naming the member a fields record points into (see naming.h).
 */
#include "analysis/fields/naming.h"

#include <stdio.h>
#include <string.h>

#include "analysis/fields/records.h"

/* The field(s) an access of `width` at offset fits among fields[0..n),
 * written to buf ("NAME", "(several fields from NAME)", with " static" or
 * " (static)" for a class's statics), or "" when none: the fit. */
static wasp_field_fit name_fit(const wasp_java_field *fields, uint32_t n, uint32_t offset,
                               uint32_t width, uint8_t float_size, int statics, char *buf,
                               size_t len)
{
    const wasp_java_field *f = NULL;
    wasp_field_fit fit = wasp_java_field_fit(fields, n, offset, width, float_size, &f);
    if (fit == WASP_FIT_FIELD)
        snprintf(buf, len, "%s%s", f->name, statics ? " (static)" : "");
    else if (fit == WASP_FIT_SEVERAL)
        snprintf(buf, len, "(several%s fields from %s)", statics ? " static" : "", f->name);
    else if (len)
        buf[0] = 0;
    return fit;
}

wasp_field_fit wasp_field_member(const char *cls, const wasp_java_field *fields, uint32_t n,
                                 const wasp_field_header *h, uint32_t offset, uint32_t width,
                                 uint8_t float_size, char *buf, size_t len)
{
    size_t c = cls ? strlen(cls) : 0;
    int array = c >= 2 && cls[c - 1] == ']';
    const char *fixed = NULL;
    if (offset == WASP_FIELD_ELEMENTS)
        fixed = "[]";
    else if (offset < 8)
        fixed = "(mark word)";
    else if (array && offset >= h->length_offset)
        fixed = "length"; /* and any gap up to the first element */
    else if (offset < h->klass_end)
        fixed = "(class word)";
    if (fixed) {
        snprintf(buf, len, "%s", fixed);
        return WASP_FIT_FIELD;
    }
    return name_fit(fields, n, offset, width, float_size, 0, buf, len);
}

wasp_field_fit wasp_field_static_member(const wasp_java_field *statics, uint32_t n, uint32_t offset,
                                        uint32_t width, uint8_t float_size, char *buf, size_t len)
{
    return name_fit(statics, n, offset, width, float_size, 1, buf, len);
}

bool wasp_field_is_filler(const char *cls)
{
    return cls && (!strcmp(cls, "jdk.internal.vm.FillerObject") ||
                   !strcmp(cls, "jdk.internal.vm.FillerElement[]"));
}
