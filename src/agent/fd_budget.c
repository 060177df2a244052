/* See fd_budget.h. */
#include "agent/fd_budget.h"

#include "agent/log.h"

#include <dirent.h>
#include <sys/resource.h>

static uint64_t budget = UINT64_MAX; /* before a session: no limit known */
static uint64_t held, refused;        /* atomics: threads start and end at once */
static uint64_t limit, open_at_start; /* for the log line */

/* The descriptors open now (the entries of /proc/self/fd, less the one
 * reading it); 0 when unreadable. */
static uint64_t open_now(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 0;
    uint64_t n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n ? n - 1 : 0;
}

void wasp_fd_budget_start(void)
{
    struct rlimit r;
    __atomic_store_n(&held, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&refused, 0, __ATOMIC_RELAXED);
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY) {
        budget = UINT64_MAX;
        return;
    }
    limit = r.rlim_cur;
    open_at_start = open_now();
    budget = limit > open_at_start ? (limit - open_at_start) / 4 : 0;
}

bool wasp_fd_budget_take(int n, const char *thread_name)
{
    uint64_t now = __atomic_add_fetch(&held, (uint64_t)n, __ATOMIC_RELAXED);
    if (now <= budget)
        return true;
    __atomic_sub_fetch(&held, (uint64_t)n, __ATOMIC_RELAXED);
    if (__atomic_fetch_add(&refused, 1, __ATOMIC_RELAXED) == 0)
        wasp_log("threads (the first: '%s') are not profiled while wasp's events hold %llu "
                 "file descriptors, a quarter of those free when profiling began (open-file "
                 "limit %llu, %llu open): the program keeps the rest; raise the JVM's limit "
                 "(ulimit -n) to profile more threads",
                 thread_name, (unsigned long long)budget, (unsigned long long)limit,
                 (unsigned long long)open_at_start);
    return false;
}

void wasp_fd_budget_give(int n)
{
    __atomic_sub_fetch(&held, (uint64_t)n, __ATOMIC_RELAXED);
}

uint64_t wasp_fd_budget_refused(void)
{
    return __atomic_load_n(&refused, __ATOMIC_RELAXED);
}
