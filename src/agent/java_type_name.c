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

char *wasp_java_signature_name(const char *sig)
{
    size_t dims = 0;
    while (sig[dims] == '[')
        dims++;
    const char *b = sig + dims;
    static const char *const prim[][2] = {{"Z", "boolean"}, {"B", "byte"},  {"C", "char"},
                                          {"S", "short"},   {"I", "int"},   {"J", "long"},
                                          {"F", "float"},   {"D", "double"}};
    const char *base = NULL;
    size_t blen = 0;
    for (size_t i = 0; i < sizeof prim / sizeof prim[0]; i++)
        if (b[0] == prim[i][0][0] && b[1] == 0) {
            base = prim[i][1];
            blen = strlen(base);
        }
    if (!base && b[0] == 'L') {
        base = b + 1;
        blen = strlen(base);
        if (blen && base[blen - 1] == ';')
            blen--;
    }
    if (!base) {
        base = b;
        blen = strlen(b);
    }
    blen = wasp_java_name_kept(base, blen);
    char *out = malloc(blen + 2 * dims + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < blen; i++)
        out[i] = base[i] == '/' ? '.' : base[i];
    for (size_t i = 0; i < dims; i++)
        memcpy(out + blen + 2 * i, "[]", 2);
    out[blen + 2 * dims] = 0;
    return out;
}

