/*
 * The debug-register watchpoint engine (see engine.h): perf breakpoint events
 * opened once per thread and re-targeted in place
 * (PERF_EVENT_IOC_MODIFY_ATTRIBUTES), each hit a SIGTRAP carrying the slot in
 * sig_data.
 *
 * ASYNC-SIGNAL-SAFE: debugreg_arm and debugreg_disarm run in the SIGTRAP
 * handler; they make one ioctl and touch no shared state. The rest runs on
 * ordinary threads.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "sample/signal.h"
#include "sample/source.h"
#include "watch/engine.h"
#include "watch/handler.h"

static void breakpoint_attr(struct perf_event_attr *a, uint32_t index, int slot, uint64_t addr,
                            int len, int loads_too)
{
    memset(a, 0, sizeof *a);
    a->type = PERF_TYPE_BREAKPOINT;
    a->size = sizeof *a;
    a->bp_type = loads_too ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
    a->bp_addr = addr;
    a->bp_len = (uint64_t)len;
    a->sample_period = 1;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
    /* Read by no one but tests: whether a breakpoint is enabled shows, even
     * where it never fires, as time enabled that grows. */
    a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
    wasp_perf_signal_attr(a, wasp_sig_data(index, WASP_EV_WATCH, slot));
}

/* A disabled breakpoint for thread tid, parked on a harmless word. */
static int open_parked(uint32_t index, pid_t tid, int slot)
{
    static uint64_t parking;
    struct perf_event_attr a;
    breakpoint_attr(&a, index, slot, (uint64_t)(uintptr_t)&parking, 8, 0);
    a.disabled = 1;
    int fd = wasp_perf_open(&a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0 && wasp_perf_signal_fd(fd, tid, wasp_sig_data(index, WASP_EV_WATCH, slot))) {
        int e = errno;
        close(fd);
        errno = e;
        fd = -1;
    }
    return fd;
}

static int debugreg_thread_open(wasp_thread *t, int n, char *err, size_t errlen)
{
    t->nslots = 0;
    for (int i = 0; i < n && i < t->capacity; i++) {
        int fd = open_parked(t->index, t->tid, i);
        if (fd < 0) {
            if (i == 0)
                snprintf(err, errlen, "perf_event_open(breakpoint) failed: %s", strerror(errno));
            break;
        }
        t->slots[i].fd = fd; /* the others stay -1 (wasp_slots_alloc) */
        t->nslots++;
    }
    return t->nslots;
}

static void debugreg_thread_close(wasp_thread *t)
{
    for (int i = 0; i < t->capacity; i++)
        wasp_perf_close(&t->slots[i].fd);
}

static int modify(int fd, uint32_t index, int slot, uint64_t addr, int len, int loads_too)
{
    struct perf_event_attr a;
    breakpoint_attr(&a, index, slot, addr, len, loads_too);
    /* One system call: modifying a breakpoint with attr.disabled == 0 also
     * enables it (every kernel with PERF_EVENT_IOC_MODIFY_ATTRIBUTES, 4.17+). */
    return ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) == 0 ? 0 : -1;
}

static void debugreg_disarm(wasp_thread *t, int slot)
{
    ioctl(t->slots[slot].fd, PERF_EVENT_IOC_DISABLE, 0);
}

static int debugreg_arm(wasp_thread *t, int slot, uint64_t addr, int len, int loads_too)
{
    if (len == 0)
        return -1; /* a hold: no window slots here */
    if (modify(t->slots[slot].fd, t->index, slot, addr, len, loads_too) == 0)
        return 0;
    /* A refused modification (an address outside user space, say) enables
     * the breakpoint again where it was before, even if it was disabled
     * since: the kernel restores the enabled state of the last modification.
     * Left so, it would trap on every access to a watch the slot no longer
     * holds (seen: a thread stuck in a storm of such traps). */
    debugreg_disarm(t, slot);
    return -1;
}

/* Many CPUs run a repeated string move element by element while any data
 * breakpoint is enabled in DR7, wherever it points (the AMD EPYC KVM guest:
 * `rep stosb` of 64 KiB 28 times slower, memcpy's `rep movsb` as much), so
 * a thread with a watch armed pays for every memset and memcpy, and for the
 * JVM's clearing of arrays allocated outside a TLAB (docs/design.md,
 * "String moves under a watch"). Measured once, on the self-test's thread:
 * the least of a few `rep stosb` of STRING_BYTES with the breakpoint armed
 * and without. */
enum { STRING_BYTES = 16384, STRING_RUNS = 5 };
static double string_slowdown = 1.0;

static uint64_t least_rep_stos_ns(uint8_t *buf)
{
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < STRING_RUNS; i++) {
        void *d = buf;
        size_t n = STRING_BYTES;
        uint64_t t0 = wasp_clock_ns(CLOCK_MONOTONIC);
        __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(i) : "memory");
        uint64_t t = wasp_clock_ns(CLOCK_MONOTONIC) - t0;
        least = t < least ? t : least;
    }
    return least;
}

static double debugreg_string_slowdown(void)
{
    return string_slowdown;
}

/* A breakpoint the kernel accepts may still never fire (hypervisors that do
 * not pass debug registers through): write a watched word and count traps. */
static int debugreg_self_test(char *why, size_t len, uint64_t *event_ns)
{
    enum { WRITES = 16 };
    static volatile uint64_t target;
    if (wasp_handler_install() != 0) {
        snprintf(why, len, "cannot install the SIGTRAP handler: %s", strerror(errno));
        return -1;
    }
    int fd = open_parked(WASP_PROBE_INDEX, gettid(), 0);
    if (fd < 0) {
        snprintf(why, len, "perf_event_open(breakpoint) failed: %s", strerror(errno));
        return -1;
    }
    if (modify(fd, WASP_PROBE_INDEX, 0, (uint64_t)(uintptr_t)&target, 8, 0) != 0) {
        snprintf(why, len, "arming a breakpoint failed: %s", strerror(errno));
        wasp_perf_close(&fd);
        return -1;
    }
    uint32_t before = wasp_handler_probe_count(WASP_EV_WATCH);
    uint64_t t0 = wasp_clock_ns(CLOCK_MONOTONIC);
    for (int i = 0; i < WRITES; i++) {
        target = (uint64_t)i;
        (void)getppid(); /* a kernel exit: F_SETSIG signals are delivered here */
    }
    uint64_t elapsed = wasp_clock_ns(CLOCK_MONOTONIC) - t0;
    uint32_t traps = wasp_handler_probe_count(WASP_EV_WATCH) - before;
    static uint8_t buf[STRING_BYTES] __attribute__((aligned(64)));
    uint64_t armed = traps ? least_rep_stos_ns(buf) : 0;
    wasp_perf_close(&fd);
    uint64_t plain = traps ? least_rep_stos_ns(buf) : 0;
    /* Under 1.5 times the two timings are not told from noise. */
    double ratio = plain ? (double)armed / (double)plain : 1.0;
    string_slowdown = ratio >= 1.5 ? ratio : 1.0;
    if (traps == 0) {
        snprintf(why, len,
                 "debug registers accepted by the kernel but did not trap (0 traps for %d "
                 "writes to a watched word; some hypervisors do not pass them through)",
                 WRITES);
        return -1;
    }
    *event_ns = elapsed / WRITES;
    return 0;
}

const wasp_watch_engine wasp_debugreg_engine = {
    .name = "debugreg",
    .what = "hardware debug registers (perf breakpoints)",
    .label = "debug registers",
    .event_word = "trap",
    .self_test = debugreg_self_test,
    .thread_open = debugreg_thread_open,
    .fds_per_slot = 1,
    .thread_close = debugreg_thread_close,
    .arm = debugreg_arm,
    .disarm = debugreg_disarm,
    .drop_all = NULL,
    .events_are_traps = 1,
    /* One ~14 us trap, at most two per sample: the budget only guards
     * against pathological rates. */
    .default_budget = 0.10,
    .uses_perf = 1,
    .string_slowdown = debugreg_string_slowdown,
};
