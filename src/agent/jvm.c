/*
 * JVMTI helpers (see jvm.h). Not async-signal-safe.
 */
#include "agent/jvm.h"
#include "agent/java_type_name.h"
#include "profile/profile.h"
#include "watch/interpreter.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jvmtiEnv *wasp_jvmti;

void wasp_jvm_prepare_class(jvmtiEnv *jvmti, jclass klass)
{
    jint n = 0;
    jmethodID *methods = NULL;
    /* Creating the IDs is the point; the array is not needed. */
    if ((*jvmti)->GetClassMethods(jvmti, klass, &n, &methods) == JVMTI_ERROR_NONE)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)methods);
}

void wasp_jvm_prepare_loaded_classes(jvmtiEnv *jvmti, JNIEnv *env)
{
    jint n = 0;
    jclass *classes = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &classes) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < n; i++) {
        wasp_jvm_prepare_class(jvmti, classes[i]);
        (*env)->DeleteLocalRef(env, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
}

/* ---- generated code ------------------------------------------------------- */

typedef struct code_block {
    uint64_t start, end;
    char *name;
} code_block;

static pthread_mutex_t code_lock = PTHREAD_MUTEX_INITIALIZER;
static code_block *blocks;
static size_t nblocks, cap_blocks;

/* Whether the block [start, end) named name is known already. Each attach's
 * GenerateEvents reports every existing block again: kept each time, they
 * grew the list by 500-1,200 blocks a session (xalan, 30 attaches). Names
 * handed out stay valid: nothing is freed. */
static bool known_block(uint64_t start, uint64_t end, const char *name)
{
    for (size_t i = nblocks; i-- > 0;)
        if (blocks[i].start == start && blocks[i].end == end && strcmp(blocks[i].name, name) == 0)
            return true;
    return false;
}

void wasp_jvm_add_code(const char *name, const void *addr, jint length)
{
    uint64_t start = (uint64_t)(uintptr_t)addr, end = start + (uint64_t)length;
    if (!name)
        name = "?";
    pthread_mutex_lock(&code_lock);
    if (known_block(start, end, name)) {
        pthread_mutex_unlock(&code_lock);
        return;
    }
    if (nblocks == cap_blocks) {
        size_t cap = cap_blocks ? cap_blocks * 2 : 256;
        code_block *b = realloc(blocks, cap * sizeof *b);
        if (!b) {
            pthread_mutex_unlock(&code_lock);
            return;
        }
        blocks = b;
        cap_blocks = cap;
    }
    if (strcmp(name, "Interpreter") == 0) /* for the sampling handler */
        wasp_interpreter_publish(start, end);
    char *copy = strdup(name);
    if (copy)
        blocks[nblocks++] = (code_block){.start = start, .end = end, .name = copy};
    pthread_mutex_unlock(&code_lock);
}

const char *wasp_jvm_code_name(uint64_t pc)
{
    const char *name = NULL;
    pthread_mutex_lock(&code_lock);
    /* Newest first: code can be regenerated at an address. */
    for (size_t i = nblocks; i-- > 0;) {
        if (pc >= blocks[i].start && pc < blocks[i].end) {
            name = blocks[i].name;
            break;
        }
    }
    pthread_mutex_unlock(&code_lock);
    return name;
}

/* ---- names and lines ------------------------------------------------------ */

void wasp_jvm_class_name(jclass klass, char *out, size_t len)
{
    jvmtiEnv *j = wasp_jvmti;
    char *sig = NULL;
    if (!j || (*j)->GetClassSignature(j, klass, &sig, NULL) != JVMTI_ERROR_NONE)
        return;
    wasp_java_signature_name_into(sig, out, len);
    (*j)->Deallocate(j, (unsigned char *)sig);
}

void wasp_jvm_method_names(jmethodID m, char *name, size_t namelen, char *file, size_t filelen)
{
    jvmtiEnv *j = wasp_jvmti;
    snprintf(name, namelen, "<unknown method>");
    file[0] = 0;
    if (!j || !m)
        return;
    jclass klass = NULL;
    char *mname = NULL, *src = NULL;
    char cname[512] = "?";
    if ((*j)->GetMethodDeclaringClass(j, m, &klass) != JVMTI_ERROR_NONE)
        return; /* class unloaded since the sample */
    wasp_jvm_class_name(klass, cname, sizeof cname);
    if ((*j)->GetMethodName(j, m, &mname, NULL, NULL) == JVMTI_ERROR_NONE) {
        snprintf(name, namelen, "%s.%s", cname, mname);
        (*j)->Deallocate(j, (unsigned char *)mname);
    }
    if ((*j)->GetSourceFileName(j, klass, &src) == JVMTI_ERROR_NONE) {
        snprintf(file, filelen, "%s", src);
        (*j)->Deallocate(j, (unsigned char *)src);
    }
}

int wasp_jvm_line(jmethodID m, int bci)
{
    jvmtiEnv *j = wasp_jvmti;
    jint n = 0;
    jvmtiLineNumberEntry *table = NULL;
    /* -1 is a method's entry (HotSpot's InvocationEntryBci): a synchronized
     * method waits for its monitor there, before its first bytecode, and a
     * compiled frame's stack bang or prologue is there. The line of its first
     * bytecode names the method's place; no line left JDK and application
     * synchronized methods at "(Hashtable.java)", and split one wait between
     * that and the interpreter's bci 0. */
    if (bci == -1)
        bci = 0;
    if (!j)
        return -1;
    jvmtiError e = (*j)->GetLineNumberTable(j, m, &n, &table); /* a native method's bci is -3 */
    if (e != JVMTI_ERROR_NONE)
        return e == JVMTI_ERROR_NATIVE_METHOD ? WASP_LINE_NATIVE : -1;
    int line = -1;
    jlocation best = -1;
    for (jint i = 0; bci >= 0 && i < n; i++) {
        if (table[i].start_location <= bci && table[i].start_location > best) {
            best = table[i].start_location;
            line = table[i].line_number;
        }
    }
    (*j)->Deallocate(j, (unsigned char *)table);
    return line;
}

const char *wasp_jvm_property(const char *key, const char *def)
{
    static char buf[4][1024];
    static int next;
    char *v = NULL;
    if (!wasp_jvmti || (*wasp_jvmti)->GetSystemProperty(wasp_jvmti, key, &v) != JVMTI_ERROR_NONE)
        return def;
    char *out = buf[next++ & 3];
    snprintf(out, sizeof buf[0], "%s", v);
    (*wasp_jvmti)->Deallocate(wasp_jvmti, (unsigned char *)v);
    return out;
}

jthread wasp_jvm_new_thread(JNIEnv *env, const char *name)
{
    jclass cls = (*env)->FindClass(env, "java/lang/Thread");
    jmethodID init = cls ? (*env)->GetMethodID(env, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring jname = (*env)->NewStringUTF(env, name);
    jthread thread = init && jname ? (*env)->NewObject(env, cls, init, jname) : NULL;
    if (!thread)
        (*env)->ExceptionClear(env);
    return thread;
}
