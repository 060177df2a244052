/*
 * A library whose only content is 1 KiB of initial-exec thread-local
 * storage: loaded first, it takes all but a chosen number of bytes of the
 * static TLS that glibc keeps for libraries loaded after start-up, as other
 * agents and JNI libraries in a real JVM do (tests/integration/static_tls.py).
 */
__thread char wasp_test_filler_tls[1024] __attribute__((tls_model("initial-exec"), aligned(16)));

char *wasp_test_filler_touch(void);
char *wasp_test_filler_touch(void)
{
    return wasp_test_filler_tls;
}
