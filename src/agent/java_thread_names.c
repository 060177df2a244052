/*
 * See java_thread_names.h.
 */
#include "agent/java_thread_names.h"

#include <stdint.h>

#include "agent/vmstructs.h"
#include "isa/isa.h"

int wasp_java_thread_names(jvmtiEnv *jvmti, JNIEnv *env,
                           void (*each)(pid_t tid, const char *name, void *arg), void *arg)
{
    uint64_t osthread_off, tid_off;
    /* JavaThread's in JDK 17, Thread's in JDK 25. */
    if ((wasp_vm_field("JavaThread", "_osthread", &osthread_off, NULL) != 0 &&
         wasp_vm_field("Thread", "_osthread", &osthread_off, NULL) != 0) ||
        wasp_vm_field("OSThread", "_thread_id", &tid_off, NULL) != 0)
        return -1;
    jclass thread_class = (*env)->FindClass(env, "java/lang/Thread");
    jfieldID eetop = thread_class ? (*env)->GetFieldID(env, thread_class, "eetop", "J") : NULL;
    if (!eetop) {
        (*env)->ExceptionClear(env);
        if (thread_class)
            (*env)->DeleteLocalRef(env, thread_class);
        return -1;
    }
    jint n = 0;
    jthread *threads = NULL;
    if ((*jvmti)->GetAllThreads(jvmti, &n, &threads) != JVMTI_ERROR_NONE)
        n = 0;
    for (jint i = 0; i < n; i++) {
        uint64_t java_thread = (uint64_t)(*env)->GetLongField(env, threads[i], eetop);
        uint64_t osthread = 0;
        pid_t tid = 0;
        jvmtiThreadInfo info;
        if (java_thread &&
            wasp_safe_read(java_thread + osthread_off, &osthread, sizeof osthread) ==
                sizeof osthread &&
            osthread && wasp_safe_read(osthread + tid_off, &tid, sizeof tid) == sizeof tid &&
            tid > 0 && (*jvmti)->GetThreadInfo(jvmti, threads[i], &info) == JVMTI_ERROR_NONE) {
            if (info.name) {
                each(tid, info.name, arg);
                (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
            }
            (*env)->DeleteLocalRef(env, info.thread_group);
            (*env)->DeleteLocalRef(env, info.context_class_loader);
        }
        (*env)->DeleteLocalRef(env, threads[i]);
    }
    if (threads)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)threads);
    (*env)->DeleteLocalRef(env, thread_class);
    return 0;
}
