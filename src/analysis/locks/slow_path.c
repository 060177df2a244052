/*
 * Monitor-enter slow paths by symbol name (see slow_path.h).
 */
#include "analysis/locks/slow_path.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Class and method-name prefix of each slow path; "" class: a C function. */
static const char *const slow_paths[][2] = {
    {"ObjectSynchronizer", "enter"},
    {"ObjectSynchronizer", "quick_enter"},
    {"ObjectSynchronizer", "inflate"},
    {"ObjectMonitor", "enter"},
    {"ObjectMonitor", "EnterI"},
    {"ObjectMonitor", "TrySpin"},
    {"ObjectMonitor", "TryLock"},
    {"ObjectMonitor", "try_"},
    {"ObjectMonitor", "spin_enter"},
    {"ObjectMonitor", "short_fixed_spin"},
    {"SharedRuntime", "complete_monitor_locking"},
    {"InterpreterRuntime", "monitorenter"},
    {"LightweightSynchronizer", "enter"},
    {"LightweightSynchronizer", "quick_enter"},
    {"LightweightSynchronizer", "inflate"},
    {"LightweightSynchronizer", "fast_lock"},
    {"LightweightSynchronizer", "get_or_insert_monitor"},
    {"", "SpinPause"},
};

/* The next <length><identifier> of a mangled nested name into out; the
 * position after it, or NULL. */
static const char *component(const char *s, char *out, size_t len)
{
    if (!isdigit((unsigned char)*s))
        return NULL;
    char *end;
    unsigned long n = strtoul(s, &end, 10);
    if (n == 0 || n >= len || strlen(end) < n)
        return NULL;
    memcpy(out, end, n);
    out[n] = 0;
    return end + n;
}

int wasp_lock_slow_path_name(const char *symbol, char *name, size_t len)
{
    char cls[128] = "", method[128] = "";
    if (strncmp(symbol, "_ZN", 3) == 0) {
        /* _ZN [K] <class> <method> E ...: exactly two components. */
        const char *s = symbol + 3;
        if (*s == 'K')
            s++;
        s = component(s, cls, sizeof cls);
        s = s ? component(s, method, sizeof method) : NULL;
        if (!s || *s != 'E')
            return 0;
    } else if (strncmp(symbol, "_Z", 2) == 0) {
        return 0;
    } else {
        snprintf(method, sizeof method, "%s", symbol);
        char *dot = strchr(method, '.'); /* "SpinPause.cold" */
        if (dot)
            *dot = 0;
    }
    for (size_t i = 0; i < sizeof slow_paths / sizeof slow_paths[0]; i++) {
        const char *c = slow_paths[i][0], *m = slow_paths[i][1];
        if (strcmp(cls, c) != 0 || strncmp(method, m, strlen(m)) != 0)
            continue;
        if ((!*c && strcmp(method, m) != 0) || strstr(method, "_name"))
            continue; /* C functions: the whole name; not inflate_cause_name */
        snprintf(name, len, "%s%s%s", cls, *cls ? "::" : "", method);
        return 1;
    }
    return 0;
}
