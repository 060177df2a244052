/*
 * Naming sampled classes and fields through JVMTI and JNI (see java_names.h).
 * Not async-signal-safe.
 */
#include "agent/java_names.h"
#include "agent/java_type_name.h"

#include <stdlib.h>
#include <string.h>

#include "agent/vmflags.h"
#include "agent/vmstructs.h"
#include "heap/klass_set.h"
#include "profile/part.h" /* wasp_grow */

/* Fields with their names owned (strdup), sorted by offset once built. */
typedef struct field_list {
    wasp_java_field *f;
    uint32_t n, cap;
} field_list;

typedef struct named_class {
    uint64_t klass;
    char *name;
    field_list fields;  /* instance fields, its superclasses' too */
    field_list statics; /* its static fields, at their offsets in its mirror */
} named_class;

static void field_list_free(field_list *l)
{
    for (uint32_t k = 0; k < l->n; k++)
        free((char *)l->f[k].name);
    free(l->f);
}

static named_class *classes;
static uint32_t nclasses;

int wasp_java_names_ready(void)
{
    return classes != NULL;
}

void wasp_java_names_free(void)
{
    for (uint32_t i = 0; i < nclasses; i++) {
        field_list_free(&classes[i].fields);
        field_list_free(&classes[i].statics);
        free(classes[i].name);
    }
    free(classes);
    classes = NULL;
    nclasses = 0;
}

typedef struct unsafe {
    jobject obj;
    jmethodID get_long, field_offset;
    jmethodID static_offset; /* NULL when this JDK's Unsafe lacks it: statics unnamed */
    jlong klass_offset;
} unsafe;

static int unsafe_init(JNIEnv *env, unsafe *u)
{
    void *addr = NULL;
    if (wasp_vm_field("java_lang_Class", "_klass_offset", NULL, &addr) != 0 || !addr)
        return -1;
    u->klass_offset = *(const int *)addr;
    /* JNI does not check module access: jdk.internal.misc.Unsafe serves
     * without --add-exports, and without sun.misc.Unsafe's warnings. */
    jclass c = (*env)->FindClass(env, "jdk/internal/misc/Unsafe");
    if (!c) {
        (*env)->ExceptionClear(env);
        return -1;
    }
    jfieldID f = (*env)->GetStaticFieldID(env, c, "theUnsafe", "Ljdk/internal/misc/Unsafe;");
    u->get_long = (*env)->GetMethodID(env, c, "getLong", "(Ljava/lang/Object;J)J");
    u->field_offset =
        (*env)->GetMethodID(env, c, "objectFieldOffset", "(Ljava/lang/Class;Ljava/lang/String;)J");
    u->static_offset =
        (*env)->GetMethodID(env, c, "staticFieldOffset", "(Ljava/lang/reflect/Field;)J");
    if (!u->static_offset)
        (*env)->ExceptionClear(env);
    u->obj = f ? (*env)->GetStaticObjectField(env, c, f) : NULL;
    if ((*env)->ExceptionCheck(env) || !u->obj || !u->get_long || !u->field_offset) {
        (*env)->ExceptionClear(env);
        return -1;
    }
    return 0;
}

static int cmp_field(const void *a, const void *b)
{
    const wasp_java_field *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void add_field(field_list *l, const char *name, jlong off, const char *sig,
                      int compressed_oops)
{
    if (off < 0 || (l->n == l->cap && wasp_grow(&l->f, &l->cap, l->n + 1, sizeof *l->f) != 0))
        return;
    wasp_java_field *f = &l->f[l->n];
    f->offset = (uint32_t)off;
    f->size = wasp_java_field_size(sig, compressed_oops, &f->is_float);
    if ((f->name = strdup(name)))
        l->n++;
}

/* A field's offset: in its objects (objectFieldOffset), or, for a static
 * one, in its class's mirror (staticFieldOffset). -1 when not known. */
static jlong field_offset(JNIEnv *env, const unsafe *u, jclass k, jfieldID id, const char *name,
                          int is_static)
{
    jlong off = -1;
    if (is_static) {
        jobject field = u->static_offset ? (*env)->ToReflectedField(env, k, id, JNI_TRUE) : NULL;
        if (field) {
            off = (*env)->CallLongMethod(env, u->obj, u->static_offset, field);
            (*env)->DeleteLocalRef(env, field);
        }
    } else {
        jstring js = (*env)->NewStringUTF(env, name);
        if (js) {
            off = (*env)->CallLongMethod(env, u->obj, u->field_offset, k, js);
            (*env)->DeleteLocalRef(env, js);
        }
    }
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        off = -1;
    }
    return off;
}

/* The instance fields of cls and its superclasses, and cls's own static
 * fields, with their offsets and widths (references: 4 bytes with
 * compressed oops). */
static void name_fields(jvmtiEnv *jvmti, JNIEnv *env, const unsafe *u, jclass cls,
                        named_class *nc, int compressed_oops)
{
    jclass k = cls;
    while (k) {
        jint n = 0;
        jfieldID *ids = NULL;
        if ((*jvmti)->GetClassFields(jvmti, k, &n, &ids) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < n; i++) {
                jint mods = 0;
                char *name = NULL, *sig = NULL;
                if ((*jvmti)->GetFieldModifiers(jvmti, k, ids[i], &mods) != JVMTI_ERROR_NONE ||
                    (*jvmti)->GetFieldName(jvmti, k, ids[i], &name, &sig, NULL) != JVMTI_ERROR_NONE)
                    continue;
                int is_static = (mods & 0x0008) != 0;
                /* A superclass's statics live in its own mirror. */
                if (!is_static || k == cls)
                    add_field(is_static ? &nc->statics : &nc->fields, name,
                              field_offset(env, u, k, ids[i], name, is_static), sig,
                              compressed_oops);
                (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
                (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
            }
            (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
        }
        jclass super = (*env)->GetSuperclass(env, k);
        if (k != cls)
            (*env)->DeleteLocalRef(env, k);
        k = super;
    }
    qsort(nc->fields.f, nc->fields.n, sizeof *nc->fields.f, cmp_field);
    qsort(nc->statics.f, nc->statics.n, sizeof *nc->statics.f, cmp_field);
}

static int cmp_class(const void *a, const void *b)
{
    const named_class *x = a, *y = b;
    return x->klass < y->klass ? -1 : x->klass > y->klass;
}

int wasp_java_names_build(jvmtiEnv *jvmti, JNIEnv *env)
{
    wasp_java_names_free();
    unsafe u;
    jint n = 0;
    jclass *all = NULL;
    if (!jvmti || !env || unsafe_init(env, &u) != 0 ||
        (*jvmti)->GetLoadedClasses(jvmti, &n, &all) != JVMTI_ERROR_NONE)
        return -1;
    int compressed_oops = 0;
    if (wasp_vm_get_bool_flag("UseCompressedOops", &compressed_oops) != 0)
        compressed_oops = 1; /* the default of heaps under 32 GiB */
    classes = calloc(n ? (size_t)n : 1, sizeof *classes);
    for (jint i = 0; i < n; i++) {
        jlong klass = classes ? (*env)->CallLongMethod(env, u.obj, u.get_long, all[i], u.klass_offset) : 0;
        if ((*env)->ExceptionCheck(env)) {
            (*env)->ExceptionClear(env);
            klass = 0;
        }
        char *sig = NULL;
        if (klass && wasp_klass_set_has((uint64_t)klass) &&
            (*jvmti)->GetClassSignature(jvmti, all[i], &sig, NULL) == JVMTI_ERROR_NONE) {
            named_class *nc = &classes[nclasses];
            nc->klass = (uint64_t)klass;
            nc->name = wasp_java_signature_name(sig);
            (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
            if (nc->name) {
                if (nc->name[strlen(nc->name) - 1] != ']')
                    name_fields(jvmti, env, &u, all[i], nc, compressed_oops);
                nclasses++;
            }
        }
        (*env)->DeleteLocalRef(env, all[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    (*env)->DeleteLocalRef(env, u.obj);
    if (classes)
        qsort(classes, nclasses, sizeof *classes, cmp_class);
    return classes ? 0 : -1;
}

static const named_class *find(uint64_t klass)
{
    named_class key = {.klass = klass};
    return classes ? bsearch(&key, classes, nclasses, sizeof *classes, cmp_class) : NULL;
}

const char *wasp_java_class_name(uint64_t klass)
{
    const named_class *c = find(klass);
    return c ? c->name : NULL;
}

const wasp_java_field *wasp_java_fields(uint64_t klass, uint32_t *n)
{
    const named_class *c = find(klass);
    *n = c ? c->fields.n : 0;
    return c ? c->fields.f : NULL;
}

const wasp_java_field *wasp_java_static_fields(uint64_t klass, uint32_t *n)
{
    const named_class *c = find(klass);
    *n = c ? c->statics.n : 0;
    return c ? c->statics.f : NULL;
}

size_t wasp_java_class_klasses(JNIEnv *env, const char *const *names, size_t n, uint64_t *klass)
{
    for (size_t i = 0; i < n; i++)
        klass[i] = 0;
    unsafe u;
    if (!env || unsafe_init(env, &u) != 0)
        return 0;
    size_t found = 0;
    for (size_t i = 0; i < n; i++) {
        jclass c = (*env)->FindClass(env, names[i]);
        jlong k = c ? (*env)->CallLongMethod(env, u.obj, u.get_long, c, u.klass_offset) : 0;
        if ((*env)->ExceptionCheck(env)) {
            (*env)->ExceptionClear(env);
            k = 0;
        }
        if (c)
            (*env)->DeleteLocalRef(env, c);
        if (k && !(k & 7)) {
            klass[i] = (uint64_t)k;
            found++;
        }
    }
    (*env)->DeleteLocalRef(env, u.obj);
    return found;
}

int wasp_java_array_headers(JNIEnv *env, uint32_t header[4])
{
    static const char *const arrays[4] = {"[B", "[S", "[I", "[J"};
    uint64_t lh_offset;
    int32_t shift, mask;
    for (int i = 0; i < 4; i++)
        header[i] = 0;
    if (!env || wasp_vm_field("Klass", "_layout_helper", &lh_offset, NULL) != 0 ||
        wasp_vm_int_constant("Klass::_lh_header_size_shift", &shift) != 0 ||
        wasp_vm_int_constant("Klass::_lh_header_size_mask", &mask) != 0)
        return -1;
    uint64_t klass[4];
    wasp_java_class_klasses(env, arrays, 4, klass);
    int found = 0;
    for (int i = 0; i < 4; i++) {
        if (!klass[i])
            continue;
        /* The JVM's own metadata, in this process: the array class's layout
         * helper holds the bytes before its first element. */
        int32_t lh = *(const int32_t *)(uintptr_t)(klass[i] + lh_offset);
        uint32_t h = ((uint32_t)lh >> shift) & (uint32_t)mask;
        if (lh < 0 && h >= 8 && h <= 32) {
            header[i] = h;
            found++;
        }
    }
    return found == 4 ? 0 : -1;
}
