/*
 * The Java names of the running threads, by their OS thread id: the threads
 * adopted at an attach are found in /proc, whose name for a thread is its
 * Java name cut at 15 bytes ("http-nio-8080-e"), or the launcher's "java"
 * for the main thread; a profile's thread frames (threads=1) and wasp report
 * --thread want the name wasp run records, the Java one.
 *
 * JVMTI lists the Java threads with their names; java.lang.Thread's eetop
 * field is the thread's JavaThread, whose OSThread (VMStructs: JavaThread::
 * _osthread, OSThread::_thread_id) holds the id. JVM memory is read through
 * wasp_safe_read: a thread may end meanwhile.
 *
 * Not for signal handlers. Live phase.
 */
#ifndef WASP_JAVA_THREAD_NAMES_H
#define WASP_JAVA_THREAD_NAMES_H

#include <jvmti.h>
#include <sys/types.h>

/* Calls each(tid, name, arg) for every Java thread whose id could be read.
 * 0, or -1 when this JVM does not say (VMStructs lacks the fields, no eetop). */
int wasp_java_thread_names(jvmtiEnv *jvmti, JNIEnv *env,
                           void (*each)(pid_t tid, const char *name, void *arg), void *arg);

#endif
