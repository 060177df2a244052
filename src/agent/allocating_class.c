/*
 * The class an allocation bytecode creates (see allocating_class.h), read
 * from the method's bytecodes and its class's constant pool through JVMTI.
 * Not for signal handlers.
 */
#include "agent/allocating_class.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/chain_dump.h"
#include "agent/java_type_name.h"
#include "agent/jvm.h"
#include "watch/records.h"

enum {
    OP_NEW = 0xbb,
    OP_NEWARRAY = 0xbc,
    OP_ANEWARRAY = 0xbd,
    OP_MULTIANEWARRAY = 0xc5,
    CP_UTF8 = 1,
    CP_CLASS = 7,
};

static unsigned u2(const unsigned char *b)
{
    return (unsigned)b[0] << 8 | b[1];
}

/* Bytes each constant pool tag's entry takes after the tag (Utf8 aside);
 * 0 for a tag this reader does not know. */
static size_t entry_size(unsigned char tag)
{
    switch (tag) {
    case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18:
        return 4;
    case 5: case 6:
        return 8;
    case 7: case 8: case 16: case 19: case 20:
        return 2;
    case 15:
        return 3;
    default:
        return 0;
    }
}

/* The bytes of Utf8 entry `want`'s text and, for a Class entry `want`, the
 * index of its name: walks the pool once. Returns 0 when found. */
static int find_entry(const unsigned char *cp, jint len, jint count, unsigned want,
                      const unsigned char **at)
{
    size_t off = 0;
    for (jint i = 1; i < count; i++) {
        if (off >= (size_t)len)
            return -1;
        unsigned char tag = cp[off];
        if ((unsigned)i == want) {
            *at = cp + off;
            return 0;
        }
        size_t n;
        if (tag == CP_UTF8) {
            if (off + 3 > (size_t)len)
                return -1;
            n = 2 + u2(cp + off + 1);
        } else if (!(n = entry_size(tag))) {
            return -1;
        }
        off += 1 + n;
        if (tag == 5 || tag == 6)
            i++; /* longs and doubles take two slots */
    }
    return -1;
}

/* The name of Class constant `index` ("java/util/TreeMap$Entry", "[I") into
 * out. Returns 0 when found. */
static int class_constant(const unsigned char *cp, jint len, jint count, unsigned index, char *out,
                          size_t outlen)
{
    const unsigned char *c, *u;
    if (find_entry(cp, len, count, index, &c) != 0 || c[0] != CP_CLASS ||
        c + 3 > cp + len || find_entry(cp, len, count, u2(c + 1), &u) != 0 || u[0] != CP_UTF8)
        return -1;
    size_t n = u2(u + 1);
    if (u + 3 + n > cp + len || n + 1 > outlen)
        return -1;
    memcpy(out, u + 3, n);
    out[n] = 0;
    return 0;
}

/* The type signature the bytecode at code[bci] allocates into sig. */
static int allocated_signature(jvmtiEnv *jvmti, jclass klass, const unsigned char *code,
                               jint ncode, jint bci, char *sig, size_t len)
{
    static const char *const newarray_types[12] = {
        [4] = "[Z", [5] = "[C", [6] = "[F", [7] = "[D", [8] = "[B", [9] = "[S", [10] = "[I", [11] = "[J"};
    unsigned op = code[bci];
    if (op == OP_NEWARRAY) {
        unsigned t = bci + 1 < ncode ? code[bci + 1] : 0;
        if (t >= 12 || !newarray_types[t])
            return -1;
        snprintf(sig, len, "%s", newarray_types[t]);
        return 0;
    }
    if ((op != OP_NEW && op != OP_ANEWARRAY && op != OP_MULTIANEWARRAY) || bci + 2 >= ncode)
        return -1;
    jint count = 0, nbytes = 0;
    unsigned char *cp = NULL;
    if ((*jvmti)->GetConstantPool(jvmti, klass, &count, &nbytes, &cp) != JVMTI_ERROR_NONE)
        return -1;
    char name[512];
    int rc = class_constant(cp, nbytes, count, u2(code + bci + 1), name, sizeof name);
    (*jvmti)->Deallocate(jvmti, cp);
    if (rc != 0)
        return -1;
    /* A Class constant names arrays by signature, other classes bare. */
    if (op == OP_ANEWARRAY)
        snprintf(sig, len, name[0] == '[' ? "[%s" : "[L%s;", name);
    else if (op == OP_MULTIANEWARRAY || name[0] == '[')
        snprintf(sig, len, "%s", name);
    else
        snprintf(sig, len, "L%s;", name);
    return 0;
}

int wasp_allocating_class(jvmtiEnv *jvmti, jmethodID method, int bci, char *out, size_t len)
{
    static int capable = -1;
    if (capable < 0) {
        /* Both are capabilities HotSpot grants at any time. */
        jvmtiCapabilities caps;
        memset(&caps, 0, sizeof caps);
        caps.can_get_bytecodes = 1;
        caps.can_get_constant_pool = 1;
        capable = (*jvmti)->AddCapabilities(jvmti, &caps) == JVMTI_ERROR_NONE;
    }
    if (!capable || bci < 0)
        return 0;
    jclass klass = NULL;
    jint ncode = 0;
    unsigned char *code = NULL;
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &klass) != JVMTI_ERROR_NONE ||
        (*jvmti)->GetBytecodes(jvmti, method, &ncode, &code) != JVMTI_ERROR_NONE)
        return 0;
    char sig[520];
    int rc = bci < ncode ? allocated_signature(jvmti, klass, code, ncode, bci, sig, sizeof sig) : -1;
    (*jvmti)->Deallocate(jvmti, code);
    if (rc != 0)
        return 0;
    char *name = wasp_java_signature_name(sig);
    if (!name)
        return 0;
    snprintf(out, len, "%s", name);
    free(name);
    return 1;
}

int wasp_context_allocating_class(const wasp_records *rec, uint32_t id, char *out, size_t len)
{
    if (id == 0)
        return 0;
    const wasp_rcontext *c = &rec->contexts[id - 1];
    if (c->trace == 0 || c->trace == UINT32_MAX)
        return 0;
    const wasp_rtrace *tr = &rec->traces[c->trace - 1];
    const wasp_rframe *frames = &rec->frames[tr->first];
    if (wasp_chain_is_context(frames, tr->nframes))
        return 0; /* (method, depth) pairs: no bytecode index */
    for (uint32_t i = 0; i < tr->nframes; i++) {
        if (frames[i].bci == WASP_RFRAME_NATIVE || frames[i].bci == WASP_RFRAME_CALLER_AT)
            continue; /* the JVM's clearing code under the Java frame; a return address */
        return wasp_allocating_class(wasp_jvmti, (jmethodID)frames[i].method, frames[i].bci, out,
                                     len);
    }
    return 0;
}
