/*
 * A JNI library for the tests (tests/workloads/NativeStore.java): native
 * code that stores into a Java array, so that a sample in it must be named
 * by its function (ELF symbols) and followed by its Java caller.
 * Built by the Makefile with frame pointers and without inlining fill_longs.
 * Also memset over a Java array (tests/workloads/DeadStoreMemset.java): a
 * store of a string instruction, glibc's `rep stosb`.
 */
#include <jni.h>
#include <string.h>

/* The native frame the report must name. Two stores per step, the second
 * at a displacement (a[i + 1]): the sampled accesses wasp decodes backwards
 * from the PC are the forms with a displacement (Java's own accesses always
 * have one), and volatile keeps every store. */
__attribute__((noinline)) static void fill_longs(jlong *a, jsize n, jlong v, jint rounds)
{
    volatile jlong *w = a;
    for (jint r = 0; r < rounds; r++)
        for (jsize i = 0; i + 1 < n; i += 2) {
            w[i] = v + r + i;
            w[i + 1] = v - r - i;
        }
}

JNIEXPORT void JNICALL Java_NativeStore_fill(JNIEnv *env, jclass cls, jlongArray array, jlong v,
                                             jint rounds)
{
    (void)cls;
    jsize n = (*env)->GetArrayLength(env, array);
    jlong *a = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
    if (!a)
        return;
    fill_longs(a, n, v, rounds);
    (*env)->ReleasePrimitiveArrayCritical(env, array, a, 0);
}

JNIEXPORT void JNICALL Java_DeadStoreMemset_clear(JNIEnv *env, jclass cls, jlongArray array)
{
    (void)cls;
    jsize n = (*env)->GetArrayLength(env, array);
    jlong *a = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
    if (!a)
        return;
    memset(a, 0, (size_t)n * sizeof *a);
    (*env)->ReleasePrimitiveArrayCritical(env, array, a, 0);
}
