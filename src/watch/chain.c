/*
 * See chain.h.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP and SIGSEGV handlers.
 */
#include "watch/chain.h"

#include <pthread.h>
#include <ucontext.h>

void wasp_chain_signal(const struct sigaction *previous, int sig, siginfo_t *si, void *uc)
{
    if (previous->sa_flags & SA_SIGINFO) {
        if (previous->sa_sigaction)
            previous->sa_sigaction(sig, si, uc);
    } else if (previous->sa_handler != SIG_IGN && previous->sa_handler != SIG_DFL) {
        previous->sa_handler(sig);
    } else if (previous->sa_handler == SIG_DFL) {
        /* Not ours and nobody else's: the default action, as without us. */
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

void wasp_let_faults_through(const void *ucontext)
{
    const ucontext_t *uc = ucontext;
    if (!sigismember(&uc->uc_sigmask, SIGSEGV) && !sigismember(&uc->uc_sigmask, SIGBUS))
        return;
    sigset_t faults;
    sigemptyset(&faults);
    sigaddset(&faults, SIGSEGV);
    sigaddset(&faults, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &faults, NULL);
}
