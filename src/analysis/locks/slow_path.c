/*
 * Monitor-enter slow paths by symbol name (see slow_path.h).
 */
#include "analysis/locks/slow_path.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Class and method-name prefix of each slow path; "" class: a C function. */
typedef struct slow_path {
    const char *cls;
    size_t cls_len;
    const char *method;
} slow_path;

#define SLOW_PATH(cls, method) {cls, sizeof cls - 1, method}
static const slow_path slow_paths[] = {
    SLOW_PATH("ObjectSynchronizer", "enter"),
    SLOW_PATH("ObjectSynchronizer", "quick_enter"),
    SLOW_PATH("ObjectSynchronizer", "inflate"),
    SLOW_PATH("ObjectMonitor", "enter"),
    SLOW_PATH("ObjectMonitor", "EnterI"),
    SLOW_PATH("ObjectMonitor", "TrySpin"),
    SLOW_PATH("ObjectMonitor", "TryLock"),
    SLOW_PATH("ObjectMonitor", "try_"),
    SLOW_PATH("ObjectMonitor", "spin_enter"),
    SLOW_PATH("ObjectMonitor", "short_fixed_spin"),
    SLOW_PATH("SharedRuntime", "complete_monitor_locking"),
    SLOW_PATH("InterpreterRuntime", "monitorenter"),
    SLOW_PATH("LightweightSynchronizer", "enter"),
    SLOW_PATH("LightweightSynchronizer", "quick_enter"),
    SLOW_PATH("LightweightSynchronizer", "inflate"),
    SLOW_PATH("LightweightSynchronizer", "fast_lock"),
    SLOW_PATH("LightweightSynchronizer", "get_or_insert_monitor"),
    SLOW_PATH("", "SpinPause"),
};
#define SLOW_PATHS (sizeof slow_paths / sizeof slow_paths[0])

/* The <length><identifier> of a mangled nested name at s: the identifier's
 * start and its length in *n (the digits passed), or NULL. Called for each of
 * libjvm's ~80,000 symbols at start-up: no copies, no scan past the name. */
static const char *component(const char *s, size_t *n)
{
    size_t len = 0;
    for (; isdigit((unsigned char)*s); s++)
        if ((len = len * 10 + (size_t)(*s - '0')) > 1024)
            return NULL;
    if (len == 0 || strnlen(s, len) < len)
        return NULL;
    *n = len;
    return s;
}

/* Entry i's class is the n bytes at cls. */
static int class_is(size_t i, const char *cls, size_t n)
{
    return slow_paths[i].cls_len == n && memcmp(slow_paths[i].cls, cls, n) == 0;
}

/* symbol is a C function listed (its whole name, or with a suffix such as
 * "SpinPause.cold"): its name into name. */
static int c_function(const char *symbol, char *name, size_t len)
{
    for (size_t i = 0; i < SLOW_PATHS; i++) {
        const char *m = slow_paths[i].method;
        size_t n = strlen(m);
        if (slow_paths[i].cls_len == 0 && strncmp(symbol, m, n) == 0 &&
            (symbol[n] == 0 || symbol[n] == '.')) {
            snprintf(name, len, "%s", m);
            return 1;
        }
    }
    return 0;
}

int wasp_lock_slow_path_name(const char *symbol, char *name, size_t len)
{
    if (strncmp(symbol, "_ZN", 3) != 0)
        return strncmp(symbol, "_Z", 2) != 0 && c_function(symbol, name, len);
    /* _ZN [K] <class> <method> E ...: exactly two components. */
    size_t nc, nm, i;
    const char *c = component(symbol + 3 + (symbol[3] == 'K'), &nc);
    for (i = 0; c && i < SLOW_PATHS && !class_is(i, c, nc); i++)
        ;
    if (!c || i == SLOW_PATHS) /* most symbols: no class of ours */
        return 0;
    const char *m = component(c + nc, &nm);
    if (!m || m[nm] != 'E')
        return 0;
    for (; i < SLOW_PATHS; i++) {
        const char *prefix = slow_paths[i].method;
        size_t np = strlen(prefix);
        if (!class_is(i, c, nc) || nm < np || strncmp(m, prefix, np) != 0)
            continue;
        /* not inflate_cause_name and the like */
        if (nm >= 5 && memmem(m, nm, "_name", 5))
            continue;
        snprintf(name, len, "%.*s::%.*s", (int)nc, c, (int)nm, m);
        return 1;
    }
    return 0;
}
