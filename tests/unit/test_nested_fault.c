/*
 * A fault raised while one of wasp's signal handlers is at work must reach
 * HotSpot's SIGSEGV handler. Our handlers walk stacks with
 * AsyncGetCallTrace, which probes pointers with HotSpot's SafeFetch, whose
 * faults HotSpot's handler resumes. A fault of a blocked SIGSEGV makes the
 * kernel kill the process instead (SIGSEGV, no hs_err file). Two ways it
 * was blocked: the page engine's SIGSEGV handler (the kernel blocks the
 * signal being handled), and a sample's SIGTRAP handler that interrupted
 * HotSpot's own SIGSEGV handler.
 *
 * Here a SIGSEGV handler installed first plays HotSpot's part: it resumes
 * faults of the probe instruction below, as SafeFetch's are. Each case runs
 * in a child process: without the fix the child is killed by SIGSEGV.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cmocka.h>

#include "watch/engine.h"
#include "watch/handler.h"

/* probe_read: a load whose fault the "HotSpot" handler resumes past, the
 * value then being dflt (SafeFetch's contract). */
extern const char wasp_test_probe_fault[], wasp_test_probe_resume[];

__attribute__((noinline)) static uint64_t probe_read(const volatile uint64_t *p, uint64_t dflt)
{
    uint64_t v = dflt;
    __asm__ volatile(".globl wasp_test_probe_fault\n"
                     ".globl wasp_test_probe_resume\n"
                     "wasp_test_probe_fault: movq (%1), %0\n"
                     "wasp_test_probe_resume:\n"
                     : "+r"(v)
                     : "r"(p)
                     : "memory");
    return v;
}

static volatile uint64_t *unmapped; /* a page nobody may read */
static volatile int resumed, nested_probes, nest_once;

static void hotspot_like(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = ucv;
    if (uc->uc_mcontext.gregs[REG_RIP] != (greg_t)(uintptr_t)wasp_test_probe_fault)
        _exit(3); /* no fault but the probe's is expected */
    /* The first probe's fault: probe again from inside the handlers, as a
     * stack walk in the engine's report does, before resuming. */
    if (nest_once && !nested_probes++ && probe_read(unmapped, 7) != 7)
        _exit(4);
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)wasp_test_probe_resume;
    resumed++;
}

/* Install hotspot_like and map the unreadable page; 0 when done. */
static int hotspot_like_installed(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = hotspot_like;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask); /* HotSpot's mask: all but the error signals */
    sigdelset(&sa.sa_mask, SIGSEGV);
    sigdelset(&sa.sa_mask, SIGBUS);
    sigdelset(&sa.sa_mask, SIGTRAP);
    if (sigaction(SIGSEGV, &sa, NULL) != 0)
        return 10;
    void *m = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 11;
    unmapped = m;
    return 0;
}

/* The page engine passes a fault that is not its own to hotspot_like, which
 * probes again from inside the engine's handler, nested in it. */
static int page_engine_child(void)
{
    if (hotspot_like_installed() != 0)
        return 10;
    nest_once = 1;
    char why[512];
    uint64_t ns;
    if (wasp_page_engine.self_test(why, sizeof why, &ns) != 0)
        return 12; /* installs the engine's handler in front of ours */
    if (probe_read(unmapped, 5) != 5)
        return 13;
    return resumed == 2 && nested_probes == 2 ? 0 : 14;
}

static volatile int trap_probes;

/* The handler before wasp's SIGTRAP handler, which passes it a SIGTRAP that
 * is not wasp's: it probes, SIGSEGV still blocked as in the code the trap
 * interrupted unless wasp's handler let it through. */
static void previous_sigtrap(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    (void)ucv;
    if (probe_read(unmapped, 9) == 9)
        trap_probes++;
}

/* A SIGTRAP (a sample, in a JVM) arrives while SIGSEGV is blocked, as in
 * HotSpot's SIGSEGV handler, and wasp's handler probes. */
static int sigtrap_child(void)
{
    if (hotspot_like_installed() != 0)
        return 10;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = previous_sigtrap;
    sa.sa_flags = SA_SIGINFO;
    if (sigaction(SIGTRAP, &sa, NULL) != 0 || wasp_handler_install() != 0)
        return 11;
    sigset_t segv;
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    pthread_sigmask(SIG_BLOCK, &segv, NULL);
    raise(SIGTRAP);
    pthread_sigmask(SIG_UNBLOCK, &segv, NULL);
    return trap_probes == 1 && resumed == 1 ? 0 : 14;
}

/* Runs child in a child process; fails unless it exits 0. */
static void in_child(int (*child)(void))
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(child());
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fail_msg("the child was killed by signal %d: a fault nested in wasp's handler "
                 "did not reach HotSpot's (here: the test's) SIGSEGV handler",
                 WTERMSIG(status));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_fault_in_page_engine_handler(void **st)
{
    (void)st;
    in_child(page_engine_child);
}

static void test_fault_in_sample_handler(void **st)
{
    (void)st;
    in_child(sigtrap_child);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_in_page_engine_handler),
        cmocka_unit_test(test_fault_in_sample_handler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
