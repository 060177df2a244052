/*
 * Debug-register slots (see slots.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_slot_arm, wasp_slot_disarm and wasp_watch_span run in
 * the SIGTRAP handler; they make one ioctl and touch no shared state.
 */
#include "watch/slots.h"

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sample/signal.h"
#include "sample/source.h"

static void breakpoint_attr(struct perf_event_attr *a, const wasp_thread *t, int slot,
                            uint64_t addr, int len, int loads_too)
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
    wasp_perf_signal_attr(a, wasp_sig_data(t->index, WASP_EV_WATCH, slot));
}

int wasp_slots_open(wasp_thread *t, int n, char *err, size_t errlen)
{
    static uint64_t parking; /* a harmless address for idle breakpoints */
    t->nslots = 0;
    for (int i = 0; i < n && i < WASP_MAX_SLOTS; i++) {
        struct perf_event_attr a;
        breakpoint_attr(&a, t, i, (uint64_t)(uintptr_t)&parking, 8, 0);
        a.disabled = 1;
        int fd = wasp_perf_open(&a, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0 && wasp_perf_signal_fd(fd, t->tid, wasp_sig_data(t->index, WASP_EV_WATCH, i))) {
            close(fd);
            fd = -1;
        }
        if (fd < 0) {
            if (i == 0)
                snprintf(err, errlen, "perf_event_open(breakpoint) failed: %s", strerror(errno));
            break;
        }
        t->slots[i].fd = fd;
        t->slots[i].state = WASP_SLOT_FREE;
        t->nslots++;
    }
    for (int i = t->nslots; i < WASP_MAX_SLOTS; i++)
        t->slots[i].fd = -1;
    return t->nslots;
}

void wasp_slots_close(wasp_thread *t)
{
    for (int i = 0; i < WASP_MAX_SLOTS; i++) {
        wasp_perf_close(&t->slots[i].fd);
        t->slots[i].state = WASP_SLOT_FREE;
    }
    t->nslots = 0;
}

int wasp_slot_arm(wasp_thread *t, int slot, uint64_t addr, int len, int loads_too)
{
    struct perf_event_attr a;
    breakpoint_attr(&a, t, slot, addr, len, loads_too);
    /* One system call: modifying a breakpoint with attr.disabled == 0 also
     * enables it (every kernel with PERF_EVENT_IOC_MODIFY_ATTRIBUTES, 4.17+). */
    return ioctl(t->slots[slot].fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) == 0 ? 0 : -1;
}

void wasp_slot_disarm(wasp_thread *t, int slot)
{
    ioctl(t->slots[slot].fd, PERF_EVENT_IOC_DISABLE, 0);
    t->slots[slot].state = WASP_SLOT_FREE;
}

void wasp_watch_span(uint64_t addr, uint32_t size, uint64_t *waddr, int *wlen)
{
    int len = 8;
    while (len > 1 && ((addr & (uint64_t)(len - 1)) != 0 || (uint32_t)len > size))
        len >>= 1;
    *waddr = addr;
    *wlen = len;
}
