/*
 * The start-up proofs of the mechanisms: the page-protection engine and the
 * timer sampler must prove themselves on any x86-64 Linux; debug registers
 * and the perf sampler either prove themselves or say why not (machines where
 * a breakpoint is accepted and never fires exist). One test function: the
 * engines install signal handlers once, and cmocka swaps its own in between
 * tests.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/options.h"
#include "heap/heap_addresses.h"
#include "sample/signal.h"
#include "sample/source.h"
#include "watch/engine.h"
#include "watch/handler.h"
#include "watch/mechanisms.h"
#include "watch/run_state.h"
#include "watch/slots.h"
#include "watch/thread_registry.h"

enum { RECYCLE_PAGES = 4096 }; /* more than the page engine's records */
static volatile int reading;
static volatile uint32_t recycle_page; /* the page armed now */
static volatile uint64_t reads; /* accesses made, by every racing thread */

static void *reader(void *arg)
{
    volatile uint64_t *w = arg;
    uint64_t sum = 0;
    while (reading) {
        sum += w[100];
        reads++;
    }
    return (void *)(uintptr_t)sum;
}

/* The size bytes mapped at mem taken by the page engine for the heap, and t
 * opened on it as this thread, registered nowhere (so the engine finds no
 * thread state for its faults: they count as foreign). */
static void *engine_heap_at(void *mem, size_t size, wasp_thread *t)
{
    assert_true(mem != MAP_FAILED);
    wasp_page_engine.set_heap((uint64_t)(uintptr_t)mem, (uint64_t)(uintptr_t)mem + size);
    memset(t, 0, sizeof *t);
    t->index = WASP_MAX_THREADS - 1;
    t->tid = gettid();
    char err[256];
    assert_int_equal(wasp_slots_alloc(t, 1 + wasp_page_engine.window_slots), 0);
    assert_int_equal(wasp_page_engine.thread_open(t, 1, err, sizeof err), 1);
    return mem;
}

/* The same, on fresh private memory (what every collector but ZGC maps). */
static void *engine_heap(size_t size, wasp_thread *t)
{
    return engine_heap_at(
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), size, t);
}

/* A watch armed and disarmed over and over on a page another thread keeps
 * reading: the reader's faults race with the page's opening again, and every
 * one must be retried, never handed on (to cmocka's handler here, HotSpot's
 * in a JVM, which then crashes) — however often it happens over the page's
 * life. 200,000 cycles handed some on when the retries were counted per
 * page rather than per protection. Runs after the page engine's proof (its
 * handlers in place). */
static void page_rearm_race(void)
{
    enum { PAGES = 2, CYCLES = 200000 };
    static wasp_thread t;
    uint8_t *mem = engine_heap(PAGES * 4096, &t);
    reading = 1;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, reader, mem), 0);
    while (reads == 0)
        sched_yield();
    int armed = 0;
    for (int i = 0; i < CYCLES; i++) {
        armed += wasp_page_engine.arm(&t, 0, (uint64_t)(uintptr_t)(mem + 64), 8, 1) == 0;
        wasp_page_engine.disarm(&t, 0);
    }
    uint64_t before = reads;
    while (reads < before + 1000)
        sched_yield(); /* the reader still goes on: no fault left pending */
    reading = 0;
    pthread_join(th, NULL);
    wasp_page_engine.thread_close(&t);
    assert_true(armed > CYCLES / 2);
    munmap(mem, PAGES * 4096);
}

static void *stepped_writer(void *arg)
{
    uint64_t *w = arg, adds = 0;
    while (reading) {
        /* An atomic add is no plain move: the engine single-steps it. */
        __atomic_fetch_add(&w[recycle_page * 512 + 3], 1, __ATOMIC_RELAXED);
        adds++;
        __atomic_fetch_add(&reads, 1, __ATOMIC_RELAXED);
    }
    return (void *)(uintptr_t)adds;
}

/* Watches over more pages than the engine keeps records for, so records of
 * opened pages ("tombstones") go to new pages all the time, while two other
 * threads' stepped accesses race with the openings: a fault raised on a page
 * before it was opened and handled after its record went to another page
 * must still be retried, never handed on (it was, within 100,000 cycles,
 * before such faults were recognised), and every add must land once. */
static void page_recycle_race(void)
{
    enum { CYCLES = 100000, WRITERS = 2 };
    size_t size = (size_t)RECYCLE_PAGES * 4096;
    static wasp_thread t;
    uint64_t *mem = engine_heap(size, &t);
    reading = 1;
    reads = 0;
    pthread_t th[WRITERS];
    for (int k = 0; k < WRITERS; k++)
        assert_int_equal(pthread_create(&th[k], NULL, stepped_writer, mem), 0);
    while (reads == 0)
        sched_yield();
    for (int i = 0; i < CYCLES; i++) {
        recycle_page = (uint32_t)(i * 7 % RECYCLE_PAGES);
        wasp_page_engine.arm(&t, 0, (uint64_t)(uintptr_t)&mem[recycle_page * 512 + 3], 8, 1);
        wasp_page_engine.disarm(&t, 0);
    }
    uint64_t before = reads;
    while (reads < before + 1000)
        sched_yield();
    reading = 0;
    uint64_t adds = 0, landed = 0;
    for (int k = 0; k < WRITERS; k++) {
        void *n;
        pthread_join(th[k], &n);
        adds += (uint64_t)(uintptr_t)n;
    }
    wasp_page_engine.thread_close(&t);
    for (int p = 0; p < RECYCLE_PAGES; p++)
        landed += mem[p * 512 + 3];
    assert_int_equal(landed, adds);
    munmap(mem, size);
}

static double page_figure(const char *name)
{
    wasp_watch_figure f[16];
    int n = wasp_page_engine.figures(f, 16);
    for (int i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return f[i].value;
    fail_msg("no figure %s", name);
    return 0;
}

/* A store-only watch closes its page to loads too, so that stores to it are
 * emulated rather than stepped; a page the program only reads turns readable
 * after a few loads' faults, one it only writes stays closed. */
static void page_store_watch_protection(void)
{
    enum { LOADS = 2000, STORES = 1000 };
    static wasp_thread t;
    volatile uint64_t *w = engine_heap(2 * 4096, &t);

    /* Read only: the loads fault, then the page turns readable. */
    assert_int_equal(wasp_page_engine.arm(&t, 0, (uint64_t)(uintptr_t)&w[8], 8, 0), 0);
    double faults = page_figure("watch.faults");
    uint64_t sum = 0;
    for (int i = 0; i < LOADS; i++)
        sum += w[100];
    double load_faults = page_figure("watch.faults") - faults;
    wasp_page_engine.disarm(&t, 0);
    assert_true(sum == 0);
    print_message("store-only watch, %d loads: %.0f faults\n", LOADS, load_faults);
    assert_true(load_faults >= 1);   /* closed at first */
    assert_true(load_faults <= 200); /* then readable */

    /* Written only (the other page): every store emulated, none stepped. */
    volatile uint64_t *v = w + 512;
    assert_int_equal(wasp_page_engine.arm(&t, 0, (uint64_t)(uintptr_t)&v[8], 8, 0), 0);
    double emulated = page_figure("watch.emulated"), stepped = page_figure("watch.stepped_over");
    for (int i = 0; i < STORES; i++)
        v[100] = (uint64_t)i;
    double stores_emulated = page_figure("watch.emulated") - emulated;
    double stores_over = page_figure("watch.stepped_over") - stepped;
    wasp_page_engine.disarm(&t, 0);
    print_message("store-only watch, %d stores: %.0f emulated\n", STORES, stores_emulated);
    assert_true(v[100] == STORES - 1);
    assert_true(stores_over >= STORES);
    assert_true(stores_emulated >= STORES - 10);
    wasp_page_engine.thread_close(&t);
    munmap((void *)w, 2 * 4096);
}

static volatile int copy_writer_done;

static void *copy_writer(void *arg)
{
    volatile uint64_t *w = arg;
    for (uint64_t k = 1; k <= 1000; k++) {
        w[200] = k;                                       /* emulated */
        __atomic_fetch_add(&w[300], 1, __ATOMIC_RELAXED); /* stepped: the page opens */
    }
    copy_writer_done = 1;
    return NULL;
}

/* Loads on a closed page come from a copy of it (page_shadow.h): the copy
 * must follow every emulated store and be dropped whenever the page opens
 * for a step, or a load returns a value the program overwrote. */
static void page_copy_coherent(void)
{
    static wasp_thread t;
    volatile uint64_t *w = engine_heap(4096, &t);
    assert_int_equal(wasp_page_engine.arm(&t, 0, (uint64_t)(uintptr_t)&w[8], 8, 1), 0);
    double emulated = page_figure("watch.emulated");
    assert_true(w[100] == 0); /* the copy is read */
    w[100] = 5;               /* written through */
    assert_true(w[100] == 5);
    __atomic_fetch_add(&w[100], 1, __ATOMIC_RELAXED); /* changed while open */
    assert_true(w[100] == 6);
    w[101] = 7;
    assert_true(w[100] == 6 && w[101] == 7);
    assert_true(page_figure("watch.emulated") - emulated >= 6); /* the loads were emulated */

    /* Another thread's stores and steps while this one loads: never a value
     * older than one already seen. */
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, copy_writer, (void *)w), 0);
    uint64_t seen_store = 0, seen_add = 0, backwards = 0, looks = 0;
    while (!copy_writer_done && looks < 1500) {
        uint64_t a = w[300], s = w[200];
        backwards += s < seen_store || a < seen_add;
        seen_store = s > seen_store ? s : seen_store;
        seen_add = a > seen_add ? a : seen_add;
        looks++;
    }
    pthread_join(th, NULL);
    assert_true(w[200] == 1000 && w[300] == 1000);
    wasp_page_engine.disarm(&t, 0);
    wasp_page_engine.thread_close(&t);
    print_message("closed-page copy: %lu looks, %lu backwards\n", (unsigned long)looks,
                  (unsigned long)backwards);
    assert_int_equal(backwards, 0);
    munmap((void *)w, 4096);
}

typedef uint64_t u64x2 __attribute__((vector_size(16)));

static void store16(volatile uint64_t *p, u64x2 v)
{
    /* "memory": the handler's counting, behind the compiler's back */
    __asm__ volatile("movdqu %1, %0" : "=m"(*(volatile u64x2 *)p) : "x"(v) : "memory");
}

static u64x2 load16(volatile uint64_t *p)
{
    u64x2 v;
    __asm__ volatile("movdqu %1, %0" : "=x"(v) : "m"(*(volatile u64x2 *)p) : "memory");
    return v;
}

/* The traps one 16-byte access (a store, then a load) over two watched
 * words delivers to a thread of the registry. */
static uint64_t traps_of_wide_access(wasp_thread *t, volatile uint64_t *w, int load)
{
    for (int slot = 0; slot < 2; slot++) { /* a sampled slot and a window slot */
        assert_int_equal(wasp_page_engine.arm(t, slot, (uint64_t)(uintptr_t)&w[8 + slot], 8, 1),
                         0);
        t->slots[slot].state = WASP_SLOT_ARMED;
        t->reservoir[slot].analysis = 255; /* no analysis: counted, then dropped */
    }
    uint64_t before = t->rec.counters[WASP_C_TRAPPED];
    u64x2 v = {11, 12};
    if (load)
        v = load16(&w[8]);
    else
        store16(&w[8], v);
    uint64_t traps = t->rec.counters[WASP_C_TRAPPED] - before;
    for (int slot = 0; slot < 2; slot++)
        wasp_page_engine.disarm(t, slot);
    assert_true(v[0] == 11 && v[1] == 12 && w[8] == 11 && w[9] == 12);
    return traps;
}

/* One access over two watched words is the trap of both, as two debug
 * registers would each trap. Reported to one of them, it left the other to
 * be judged by a later access: on JDK 25 a read loop's vector loads and a
 * fill's vector stores each reached one of the 4-byte window members they
 * spanned, and a store the loop had read came out dead. */
static void page_access_hits_every_watch(void)
{
    static wasp_thread t;
    volatile uint64_t *w = engine_heap(4096, &t);
    t.index = wasp_registry_reserve();
    t.active = 1;
    for (int a = 0; a < WASP_ANALYSES; a++)
        t.budget_ledger_ns[a] = 1e15; /* a watch budget these faults cannot spend */
    wasp_registry_publish(t.index, &t);
    wasp_mechanisms_set(&(wasp_mechanisms){.watch = &wasp_page_engine});
    wasp_sampling_set(true);
    uint64_t stored = traps_of_wide_access(&t, w, 0);
    uint64_t loaded = traps_of_wide_access(&t, w, 1);
    wasp_sampling_set(false);
    wasp_mechanisms_set(&(wasp_mechanisms){0});
    wasp_registry_remove(t.index);
    wasp_page_engine.thread_close(&t);
    munmap((void *)w, 4096);
    print_message("16-byte access over two watches: store %lu traps, load %lu\n",
                  (unsigned long)stored, (unsigned long)loaded);
    assert_int_equal(stored, 2);
    assert_int_equal(loaded, 2);
}

/* Mappings of the memfd named name in this process. */
static int mappings_of(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    assert_non_null(f);
    while (fgets(line, sizeof line, f))
        n += strstr(line, name) != NULL;
    fclose(f);
    return n;
}

/* A heap mapped from a memfd, as ZGC's is: /proc/self/mem cannot write its
 * closed pages (shared and not writable), so stores to them were all
 * single-stepped. Through the page's alias they are emulated, and land; the
 * loads see them; the alias goes when the page opens. */
static void page_shared_heap_emulated(void)
{
    enum { STORES = 1000 };
    static wasp_thread t;
    int fd = memfd_create("wasp_alias_test", 0);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 4096), 0);
    volatile uint64_t *w =
        engine_heap_at(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), 4096, &t);
    int aliased = wasp_heap_addresses.aliased;
    wasp_heap_addresses.aliased = 1;
    assert_int_equal(wasp_page_engine.arm(&t, 0, (uint64_t)(uintptr_t)&w[8], 8, 1), 0);
    double emulated = page_figure("watch.emulated"), faults = page_figure("watch.faults");
    uint64_t sum = 0;
    for (int i = 0; i < STORES; i++) {
        w[100] = (uint64_t)i;
        ((volatile uint8_t *)w)[1000] = (uint8_t)i;
        sum += w[100];
    }
    double done = page_figure("watch.emulated") - emulated;
    double all = page_figure("watch.faults") - faults;
    int while_closed = mappings_of("wasp_alias_test");
    wasp_page_engine.disarm(&t, 0);
    int after = mappings_of("wasp_alias_test");
    wasp_page_engine.thread_close(&t);
    wasp_heap_addresses.aliased = aliased;
    print_message("shared heap: %.0f of %.0f faults emulated; mappings %d closed, %d open\n",
                  done, all, while_closed, after);
    assert_true(w[100] == STORES - 1 && ((volatile uint8_t *)w)[1000] == (uint8_t)(STORES - 1));
    assert_true(sum == (uint64_t)STORES * (STORES - 1) / 2);
    assert_true(all >= 3 * STORES);
    assert_true(done >= all - 10); /* stepped, each store would cost two mprotects */
    assert_int_equal(while_closed, 2);
    assert_int_equal(after, 1);
    munmap((void *)w, 4096);
    close(fd);
}

/* CPU time the breakpoint in t's slot 0 was enabled for, over a busy
 * stretch of this thread: it grows only while the breakpoint is enabled,
 * whether or not debug registers trap on this machine. */
static uint64_t enabled_while_busy(const wasp_thread *t)
{
    uint64_t before[2], after[2];
    assert_int_equal(read(t->slots[0].fd, before, sizeof before), sizeof before);
    volatile uint64_t spin = 0;
    for (int i = 0; i < 2000000; i++)
        spin += (uint64_t)i;
    assert_int_equal(read(t->slots[0].fd, after, sizeof after), sizeof after);
    return after[1] - before[1];
}

/* An arm the kernel refuses must leave the slot's breakpoint disabled. The
 * kernel re-enables a breakpoint at its old address when a modification
 * fails, even one disabled since; the slot, marked free, then ignored its
 * traps, and a thread was seen stuck in them. */
static void debugreg_refused_arm_stays_off(void)
{
    static wasp_thread t;
    static volatile uint64_t word;
    memset(&t, 0, sizeof t);
    t.index = WASP_PROBE_INDEX; /* any trap only counts as a probe's */
    t.tid = gettid();
    char err[256];
    assert_int_equal(wasp_slots_alloc(&t, 1), 0);
    if (wasp_debugreg_engine.thread_open(&t, 1, err, sizeof err) != 1) {
        print_message("debugreg refused arm: not tested (%s)\n", err);
        wasp_slots_free(&t);
        return;
    }
    uint64_t parked = enabled_while_busy(&t);
    assert_int_equal(wasp_debugreg_engine.arm(&t, 0, (uint64_t)(uintptr_t)&word, 8, 0), 0);
    uint64_t armed = enabled_while_busy(&t);
    wasp_debugreg_engine.disarm(&t, 0);
    uint64_t disarmed = enabled_while_busy(&t);
    assert_int_not_equal(wasp_debugreg_engine.arm(&t, 0, 0xffffffff81000000ull, 8, 0), 0);
    uint64_t refused = enabled_while_busy(&t);
    print_message("debugreg enabled ns: parked %lu, armed %lu, disarmed %lu, after a refused "
                  "arm %lu\n",
                  (unsigned long)parked, (unsigned long)armed, (unsigned long)disarmed,
                  (unsigned long)refused);
    assert_true(armed > 0); /* the measure sees an enabled breakpoint */
    assert_int_equal(parked, 0);
    assert_int_equal(disarmed, 0);
    assert_int_equal(refused, 0);
    wasp_debugreg_engine.thread_close(&t);
    wasp_slots_free(&t);
}

static void test_proofs(void **st)
{
    (void)st;
    char why[1024] = "";
    uint64_t ns = 0;

    /* Page protection: always available; its cost is measured. */
    int rc = wasp_page_engine.self_test(why, sizeof why, &ns);
    if (rc != 0)
        fail_msg("page engine: %s", why);
    assert_true(ns > 0);
    assert_true(ns < 10000000); /* 10 ms a fault would be a broken measurement */
    page_rearm_race();
    page_recycle_race();
    page_store_watch_protection();
    page_copy_coherent();
    page_access_hits_every_watch();
    page_shared_heap_emulated();

    /* Debug registers: proven, or a reason that says so. */
    why[0] = 0;
    rc = wasp_debugreg_engine.self_test(why, sizeof why, &ns);
    if (rc != 0)
        assert_true(strstr(why, "did not trap") || strstr(why, "perf_event_open") ||
                    strstr(why, "arming"));
    else
        assert_true(ns > 0);
    print_message("debugreg: %s\n", rc == 0 ? "traps" : why);
    debugreg_refused_arm_stays_off();

    /* Samplers: the timer needs no perf events. */
    wasp_options o;
    wasp_options_defaults(&o);
    wasp_source_config c = {WASP_PERIOD_DEFAULT_NS, o.pmu_period, o.pmu_event, o.period_jitter};
    rc = wasp_source_prove(&wasp_timer_source, &c, why, sizeof why);
    if (rc != 0)
        fail_msg("timer sampler: %s", why);
    rc = wasp_source_prove(&wasp_soft_source, &c, why, sizeof why);
    if (rc != 0)
        assert_true(strstr(why, "perf_event_open") != NULL);
    print_message("perf sampler: %s\n", rc == 0 ? "samples" : why);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proofs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
