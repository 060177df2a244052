/*
 * ASYNC-SIGNAL-SAFE: see self_tid.h.
 *
 * The cache is initial-exec TLS, reached from %fs without __tls_get_addr,
 * which may allocate on a thread's first touch. With it the library's whole
 * TLS block comes out of the static TLS surplus glibc keeps for dlopen'ed
 * libraries (512 bytes by default, shared by every such library): it is
 * this one word, and must stay small (an agent that cannot get it fails to
 * load; `make check` asserts its size). A forked child's thread has a new
 * id: the child handler forgets the parent's.
 */
#include "common/self_tid.h"

#include <pthread.h>
#include <unistd.h>

static __thread pid_t cached_tid __attribute__((tls_model("initial-exec")));

static void forget_tid(void)
{
    cached_tid = 0;
}

__attribute__((constructor)) static void watch_forks(void)
{
    pthread_atfork(NULL, NULL, forget_tid);
}

pid_t wasp_self_tid(void)
{
    pid_t tid = cached_tid;
    if (!tid)
        cached_tid = tid = gettid();
    return tid;
}
