/*
 * The hardware-PMU address source: a precise memory event (PEBS on Intel, IBS
 * op on AMD) samples retired loads/stores with their data address
 * (PERF_SAMPLE_ADDR) into a per-thread ring buffer; each overflow also sends a
 * synchronous SIGTRAP, and the handler takes the newest record from the ring.
 * Event names are resolved by libpfm4.
 *
 * The same ring-buffer path runs with the software page-fault event
 * ("sw:page-faults"), which carries addresses too: that is how it is tested on
 * machines without a PMU.
 *
 * The count between samples is randomised around pmu-period (jitter.h), as
 * for the CPU-time samplers: PERF_EVENT_IOC_PERIOD every WASP_INTERVAL_KEPT
 * samples (perf_rearm.c), which hardware events take too. Untested here: no
 * machine of ours has a PMU; the sw:page-faults stand-in runs the same code.
 *
 * take() is ASYNC-SIGNAL-SAFE (reads the ring, no system calls), tick() too
 * (a read and an ioctl, now and then); init/open/close run on ordinary
 * threads.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sample/jitter.h"
#include "sample/signal.h"
#include "sample/source.h"

enum { RING_PAGES = 8 }; /* data pages, a power of two */

static int executed_on_sample = 1;

/* libpfm4 is loaded only when a PMU is used: its megabyte of relocated event
 * tables would otherwise add to every profiled JVM's memory. */
static struct {
    int (*initialize)(void);
    int (*encode)(const char *, int, pfm_os_t, void *);
    const char *(*strerror)(int);
} pfm;

static int load_libpfm(char *err, size_t errlen)
{
    if (pfm.initialize)
        return 0;
    void *lib = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(err, errlen, "libpfm4 not found (apt-get install libpfm4): %s", dlerror());
        return -1;
    }
    pfm.initialize = (int (*)(void))dlsym(lib, "pfm_initialize");
    pfm.encode = (int (*)(const char *, int, pfm_os_t, void *))dlsym(lib, "pfm_get_os_event_encoding");
    pfm.strerror = (const char *(*)(int))dlsym(lib, "pfm_strerror");
    if (!pfm.initialize || !pfm.encode || !pfm.strerror) {
        snprintf(err, errlen, "libpfm4 lacks the functions wasp needs");
        pfm.initialize = NULL;
        return -1;
    }
    return 0;
}

static int read_sysfs_int(const char *path, int *v)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fscanf(f, "%d", v) == 1;
    fclose(f);
    return ok ? 0 : -1;
}

/* Resolve `name` into the source's perf type/config. Returns 0 or -1. */
static int encode_event(wasp_source *s, const char *name, char *err, size_t errlen)
{
    if (strcmp(name, "sw:page-faults") == 0) {
        s->pmu_config[0] = PERF_TYPE_SOFTWARE;
        s->pmu_config[1] = PERF_COUNT_SW_PAGE_FAULTS;
        s->pmu_precise = 0;
        executed_on_sample = 0; /* the faulting instruction runs again after the signal */
        return 0;
    }
    if (strcmp(name, "ibs_op") == 0) {
        int type;
        if (read_sysfs_int("/sys/bus/event_source/devices/ibs_op/type", &type) != 0) {
            snprintf(err, errlen, "PMU event 'ibs_op': this machine has no AMD IBS");
            return -1;
        }
        s->pmu_config[0] = (uint64_t)type;
        s->pmu_config[1] = 0;
        s->pmu_precise = 0;
        return 0;
    }
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.size = sizeof arg;
    int rc = pfm.encode(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
    if (rc != PFM_SUCCESS) {
        snprintf(err, errlen, "PMU event '%s': %s (list events with libpfm4's showevtinfo)", name,
                 pfm.strerror(rc));
        return -1;
    }
    s->pmu_config[0] = attr.type;
    s->pmu_config[1] = attr.config;
    s->pmu_config[2] = attr.config1;
    s->pmu_config[3] = attr.config2;
    s->pmu_precise = 2;
    return 0;
}

static int pmu_init(wasp_source *s, const wasp_source_config *c, char *err, size_t errlen)
{
    s->period = c->pmu_period;
    s->jitter = wasp_jitter_fixed(c->period_jitter);
    char jitter[64];
    wasp_sampler_jitter_words(s, jitter, sizeof jitter);
    if (strcmp(c->pmu_event, "sw:page-faults") != 0) {
        if (load_libpfm(err, errlen) != 0)
            return -1;
        int rc = pfm.initialize();
        if (rc != PFM_SUCCESS) {
            snprintf(err, errlen, "libpfm4 initialisation failed: %s", pfm.strerror(rc));
            return -1;
        }
    }
    if (c->pmu_event[0]) {
        if (encode_event(s, c->pmu_event, err, errlen) != 0)
            return -1;
        snprintf(s->detail, sizeof s->detail, "pmu: %s every %llu events%s", c->pmu_event,
                 (unsigned long long)s->period, jitter);
        return 0;
    }
    /* Default: one precise event covering the accesses the analyses need. */
    int stores = (s->wants & WASP_WANTS_STORES) != 0;
    int loads = (s->wants & WASP_WANTS_LOADS) != 0;
    static const char *const both[] = {"MEM_INST_RETIRED:ANY", "MEM_INST_RETIRED:ALL_STORES",
                                       "MEM_UOPS_RETIRED:ALL_STORES", "ibs_op", NULL};
    static const char *const only_stores[] = {"MEM_INST_RETIRED:ALL_STORES",
                                              "MEM_UOPS_RETIRED:ALL_STORES", "ibs_op", NULL};
    static const char *const only_loads[] = {"MEM_INST_RETIRED:ALL_LOADS",
                                             "MEM_UOPS_RETIRED:ALL_LOADS", "ibs_op", NULL};
    /* Object costs alone are weighed by cache misses (DJXPerf):
     * L1 data misses by default; pmu-event= picks LLC, TLB or latency events. */
    static const char *const l1_misses[] = {"MEM_LOAD_RETIRED:L1_MISS",
                                            "MEM_LOAD_UOPS_RETIRED:L1_MISS", "ibs_op", NULL};
    int objects_only = !stores && !loads && (s->wants & WASP_WANTS_MISSES);
    const char *const *list = objects_only ? l1_misses
                              : stores && loads ? both
                              : stores          ? only_stores
                                                : only_loads;
    for (int i = 0; list[i]; i++) {
        char ignored[256];
        if (encode_event(s, list[i], ignored, sizeof ignored) == 0) {
            snprintf(s->detail, sizeof s->detail, "pmu: %s every %llu events%s", list[i],
                     (unsigned long long)s->period, jitter);
            return 0;
        }
    }
    snprintf(err, errlen, "no precise memory event known for this CPU; name one with pmu-event=");
    return -1;
}

static int pmu_open(wasp_source *s, wasp_sampler_thread *t, char *err, size_t errlen)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = (uint32_t)s->pmu_config[0];
    a.config = s->pmu_config[1];
    a.config1 = s->pmu_config[2];
    a.config2 = s->pmu_config[3];
    wasp_sampler_seed(t);
    a.sample_period = wasp_sampler_next(s, t, s->period);
    t->armed = t->due = a.sample_period; /* the count starts at 0 when enabled */
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
    a.precise_ip = (uint64_t)s->pmu_precise;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1; /* enabled once its signal is wired up */
    wasp_perf_signal_attr(&a, wasp_sig_data(t->index, WASP_EV_SAMPLE, 0));
    int fd = wasp_perf_open(&a, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && a.precise_ip) {
        a.precise_ip = 1; /* some CPUs take only the lower precision level */
        fd = wasp_perf_open(&a, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0) {
        snprintf(err, errlen, "perf_event_open(PMU event) failed: %s", strerror(errno));
        return -1;
    }
    size_t size = (size_t)(1 + RING_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    void *ring = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED) {
        snprintf(err, errlen, "mmap of the PMU ring buffer failed: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (wasp_perf_start(fd, t->tid, wasp_sig_data(t->index, WASP_EV_SAMPLE, 0)) != 0) {
        snprintf(err, errlen, "cannot start the PMU event: %s", strerror(errno));
        munmap(ring, size);
        close(fd);
        return -1;
    }
    t->fd = fd;
    t->ring = ring;
    t->ring_size = size;
    return 0;
}

static void pmu_close(wasp_source *s, wasp_sampler_thread *t)
{
    (void)s;
    wasp_perf_close(&t->fd);
    if (t->ring) {
        munmap(t->ring, t->ring_size);
        t->ring = NULL;
    }
}

/* Copy n bytes from ring offset off, wrapping at the end of the data area. */
static void ring_copy(const uint8_t *data, uint64_t mask, uint64_t off, void *dst, size_t n)
{
    uint8_t *d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = data[(off + i) & mask];
}

static int pmu_take(wasp_source *s, wasp_sampler_thread *t, const ucontext_t *uc,
                    wasp_address_sample *out)
{
    (void)s, (void)uc;
    struct perf_event_mmap_page *meta = t->ring;
    if (!meta)
        return 0;
    const uint8_t *data = (const uint8_t *)meta + meta->data_offset;
    uint64_t mask = meta->data_size - 1;
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = meta->data_tail;
    int found = 0;
    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;
        ring_copy(data, mask, tail, &h, sizeof h);
        if (h.size < sizeof h)
            break;
        if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + 16) {
            uint64_t v[2];
            ring_copy(data, mask, tail + sizeof h, v, sizeof v);
            out->pc = v[0];
            out->addr = v[1];
            found = 1;
        }
        tail += h.size;
    }
    __atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
    out->has_addr = 1;
    out->executed = executed_on_sample;
    return found && out->addr != 0;
}

/* The next count, drawn around pmu-period; a failed ioctl keeps the last. */
static void pmu_tick(wasp_source *s, wasp_sampler_thread *t)
{
    if (s->jitter && t->fd >= 0)
        wasp_perf_tick(s, t, s->period);
}

/* A named event (pmu-event=) makes it a candidate even without a PMU:
 * sw:page-faults is software, which is how this source is tested on VMs. */
static int pmu_present(const wasp_source_config *c)
{
    return c->pmu_event[0] || wasp_pmu_available();
}

wasp_source wasp_pmu_source = {
    .name = "pmu",
    .label = "sampler pmu",
    .how = "precise memory events, named through libpfm4",
    .present = pmu_present,
    .absent_why = "this machine has no hardware PMU (no cpu event source in "
                  "/sys/bus/event_source/devices, usual on VMs)",
    .init = pmu_init,
    .open_thread = pmu_open,
    .close_thread = pmu_close,
    .take = pmu_take,
    .tick = pmu_tick,
    .uses_perf = 1,
};
