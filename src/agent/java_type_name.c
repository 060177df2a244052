/* Java type names from JVM signatures (java_type_name.h). */
#include "agent/java_type_name.h"

#include <stdlib.h>
#include <string.h>

size_t wasp_java_name_kept(const char *name, size_t len)
{
    size_t hex = 0;
    while (hex < len && strchr("0123456789abcdefABCDEF", name[len - 1 - hex]))
        hex++;
    size_t at = len - hex; /* the hex digits start here */
    if (hex >= 6 && at >= 3 && name[at - 1] == 'x' && name[at - 2] == '0' &&
        (name[at - 3] == '/' || name[at - 3] == '.'))
        return at - 3;
    return len;
}

/* The parts of sig's name: its base (*blen chars, '/' still to turn into
 * '.') and its array dimensions. */
static const char *base_of(const char *sig, size_t *blen, size_t *dims)
{
    *dims = 0;
    while (sig[*dims] == '[')
        (*dims)++;
    const char *b = sig + *dims;
    static const char *const prim[][2] = {{"Z", "boolean"}, {"B", "byte"},  {"C", "char"},
                                          {"S", "short"},   {"I", "int"},   {"J", "long"},
                                          {"F", "float"},   {"D", "double"}};
    for (size_t i = 0; i < sizeof prim / sizeof prim[0]; i++)
        if (b[0] == prim[i][0][0] && b[1] == 0) {
            *blen = strlen(prim[i][1]);
            return prim[i][1];
        }
    const char *base = b[0] == 'L' ? b + 1 : b;
    *blen = strlen(base);
    if (b[0] == 'L' && *blen && base[*blen - 1] == ';')
        (*blen)--;
    *blen = wasp_java_name_kept(base, *blen);
    return base;
}

void wasp_java_signature_name_into(const char *sig, char *out, size_t len)
{
    size_t blen, dims, n = 0;
    const char *base = base_of(sig, &blen, &dims);
    if (!len)
        return;
    for (size_t i = 0; i < blen && n + 1 < len; i++)
        out[n++] = base[i] == '/' ? '.' : base[i];
    for (size_t i = 0; i < dims && n + 3 <= len; i++, n += 2)
        memcpy(out + n, "[]", 2);
    out[n] = 0;
}

char *wasp_java_signature_name(const char *sig)
{
    size_t blen, dims;
    base_of(sig, &blen, &dims);
    char *out = malloc(blen + 2 * dims + 1);
    if (out)
        wasp_java_signature_name_into(sig, out, blen + 2 * dims + 1);
    return out;
}
