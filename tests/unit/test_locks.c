/* The locks analysis's pure parts: telling an acquiring compare-and-swap on
 * a mark word from a releasing one, the register a cmpxchg writes from, the
 * slow-path table lookup and names, the profile's entries through a file and
 * a merge, and the ranking by class. */
#include <math.h>

#include "profile_bytes.h"

#include "analysis/locks/lock_stack.h"
#include "analysis/locks/profile.h"
#include "analysis/locks/ranking.h"
#include "analysis/locks/records.h"
#include "analysis/locks/slow_path.h"
#include "analysis/locks/unlocked_alternative.h"
#include "analysis/locks/waits.h"
#include "cli/render/render.h"
#include "profile/profile.h"

static void test_cas_kind(void **state)
{
    (void)state;
    assert_int_equal(wasp_lock_cas_kind(0x7f00dead1230), WASP_LOCK_ACQUIRE); /* a lock record */
    assert_int_equal(wasp_lock_cas_kind(0x12345600), WASP_LOCK_ACQUIRE);     /* mark, bits 00 */
    assert_int_equal(wasp_lock_cas_kind(0x12345601), WASP_LOCK_RELEASE);     /* unlocked mark */
    assert_int_equal(wasp_lock_cas_kind(0x7f00dead1232), -1);                /* a monitor */
    assert_int_equal(wasp_lock_cas_kind(0x3), -1);
    assert_int_equal(wasp_lock_cas_kind(0), WASP_LOCK_ACQUIRE); /* lightweight, no hash, age 0 */
}

static void test_mark_kind(void **state)
{
    (void)state;
    assert_int_equal(wasp_lock_mark_kind(0x1), WASP_LOCK_ACQUIRE);              /* unlocked, no hash */
    assert_int_equal(wasp_lock_mark_kind(0x3a5f1c2d01), WASP_LOCK_ACQUIRE);     /* unlocked with hash */
    assert_int_equal(wasp_lock_mark_kind(0x7f00dead1230), WASP_LOCK_RELEASE);   /* stack-locked */
    assert_int_equal(wasp_lock_mark_kind(0x7f00dead1232), -1);                  /* inflated */
    assert_int_equal(wasp_lock_mark_kind(0), WASP_LOCK_RELEASE); /* lightweight-locked */
}

static void test_cas_source(void **state)
{
    (void)state;
    static const uint8_t rcx[] = {0xf0, 0x48, 0x0f, 0xb1, 0x0e};       /* lock cmpxchg %rcx,(%rsi) */
    static const uint8_t r10[] = {0xf0, 0x4c, 0x0f, 0xb1, 0x17};       /* lock cmpxchg %r10,(%rdi) */
    static const uint8_t r15[] = {0xf0, 0x4d, 0x0f, 0xb1, 0x7b, 0x3e}; /* lock cmpxchg %r15,0x3e(%r11) */
    static const uint8_t add[] = {0xf0, 0x48, 0x01, 0x0e};             /* lock add %rcx,(%rsi) */
    assert_int_equal(wasp_lock_cas_source(rcx, sizeof rcx), 1);
    assert_int_equal(wasp_lock_cas_source(r10, sizeof r10), 10);
    assert_int_equal(wasp_lock_cas_source(r15, sizeof r15), 15);
    assert_int_equal(wasp_lock_cas_source(add, sizeof add), -1);
    assert_int_equal(wasp_lock_cas_source(rcx, 4), -1); /* no ModRM byte */
}

/* The lock-stack instructions of JDK 25's C2 code for LocksHot (objdump of
 * the running method), and look-alikes that are not. */
static void test_lock_stack_decode(void **state)
{
    (void)state;
    static const uint8_t cmp8[] = {0x4d, 0x3b, 0x5c, 0x1f, 0xf8};  /* cmp -0x8(%r15,%rbx,1),%r11 */
    static const uint8_t cmp16[] = {0x4d, 0x3b, 0x5c, 0x07, 0xf0}; /* cmp -0x10(%r15,%rax,1),%r11 */
    static const uint8_t push[] = {0x4d, 0x89, 0x1c, 0x1f};        /* mov %r11,(%r15,%rbx,1) */
    static const uint8_t up[] = {0x41, 0x83, 0x87, 0xd0, 0x07, 0x00, 0x00, 0x08}; /* addl $8,0x7d0(%r15) */
    static const uint8_t down[] = {0x41, 0x83, 0xaf, 0xd0, 0x07, 0x00, 0x00, 0x08}; /* subl */
    static const uint8_t cmp_rbx_base[] = {0x4c, 0x3b, 0x5c, 0x03, 0xf8}; /* base rbx: not r15 */
    static const uint8_t cmp_disp24[] = {0x4d, 0x3b, 0x5c, 0x1f, 0xe8};   /* -0x18: no */
    static const uint8_t add4[] = {0x41, 0x83, 0x87, 0xd0, 0x07, 0x00, 0x00, 0x04}; /* $4: no */
    static const uint8_t top_load[] = {0x41, 0x8b, 0x9f, 0xd0, 0x07, 0x00, 0x00}; /* mov: no */
    wasp_lock_stack_op op;
    wasp_lock_stack_decode(cmp8, sizeof cmp8, &op);
    assert_int_equal(op.form, WASP_LOCK_STACK_CMP);
    assert_int_equal(op.reg, 11);
    assert_int_equal(op.disp, -8);
    wasp_lock_stack_decode(cmp16, sizeof cmp16, &op);
    assert_int_equal(op.form, WASP_LOCK_STACK_CMP);
    assert_int_equal(op.disp, -16);
    wasp_lock_stack_decode(push, sizeof push, &op);
    assert_int_equal(op.form, WASP_LOCK_STACK_PUSH);
    assert_int_equal(op.reg, 11);
    wasp_lock_stack_decode(up, sizeof up, &op);
    assert_int_equal(op.form, WASP_LOCK_STACK_UP);
    assert_int_equal(op.disp, 0x7d0);
    wasp_lock_stack_decode(down, sizeof down, &op);
    assert_int_equal(op.form, WASP_LOCK_STACK_DOWN);
    assert_int_equal(op.disp, 0x7d0);
    /* Exact lengths only: the bytes ending at a PC must be one instruction. */
    wasp_lock_stack_decode(cmp8, 4, &op);
    assert_int_equal(op.form, WASP_LOCK_STACK_NONE);
    wasp_lock_stack_decode(up, 7, &op);
    assert_int_equal(op.form, WASP_LOCK_STACK_NONE);
    const uint8_t *none[] = {cmp_rbx_base, cmp_disp24, add4, top_load};
    const unsigned lens[] = {sizeof cmp_rbx_base, sizeof cmp_disp24, sizeof add4, sizeof top_load};
    for (int i = 0; i < 4; i++) {
        wasp_lock_stack_decode(none[i], lens[i], &op);
        assert_int_equal(op.form, WASP_LOCK_STACK_NONE);
    }
    /* After the check: the exit's path pops next (jne rel32, then subl);
     * the enter's goes to the compare-and-swap. */
    static const uint8_t exit_path[] = {0x0f, 0x85, 0x2e, 0x00, 0x00, 0x00, 0x41, 0x83, 0xaf,
                                        0xd0, 0x07, 0x00, 0x00, 0x08, 0x4d, 0x3b};
    static const uint8_t enter_path[] = {0x74, 0x16, 0x4c, 0x89, 0xd0, 0x48, 0x83, 0xc8, 0x01,
                                         0x49, 0x83, 0xe2, 0xfe, 0xf0, 0x4d, 0x0f};
    assert_true(wasp_lock_stack_pops_next(exit_path, sizeof exit_path));
    assert_false(wasp_lock_stack_pops_next(enter_path, sizeof enter_path));
}

static void test_slow_function(void **state)
{
    (void)state;
    wasp_lock_code c = {.jvm_lo = 0x1000, .jvm_hi = 0x9000, .n = 3,
                        .lo = {0x2000, 0x3000, 0x5000}, .hi = {0x2100, 0x3400, 0x5010}};
    assert_int_equal(wasp_lock_slow_function(&c, 0x2000), 0);
    assert_int_equal(wasp_lock_slow_function(&c, 0x20ff), 0);
    assert_int_equal(wasp_lock_slow_function(&c, 0x2100), -1);
    assert_int_equal(wasp_lock_slow_function(&c, 0x33ff), 1);
    assert_int_equal(wasp_lock_slow_function(&c, 0x5008), 2);
    assert_int_equal(wasp_lock_slow_function(&c, 0x1fff), -1);
    assert_int_equal(wasp_lock_slow_function(&c, 0x9500), -1); /* past libjvm */
    wasp_lock_code none = {0};
    assert_int_equal(wasp_lock_slow_function(&none, 0x2000), -1);
}

static void test_slow_path_names(void **state)
{
    (void)state;
    static const struct {
        const char *symbol, *name; /* name NULL: not a slow path */
    } cases[] = {
        {"_ZN13ObjectMonitor7TrySpinEP10JavaThread", "ObjectMonitor::TrySpin"},
        {"_ZN13ObjectMonitor7TrySpinEP10JavaThread.part.0", "ObjectMonitor::TrySpin"},
        {"_ZN13ObjectMonitor6EnterIEP10JavaThread", "ObjectMonitor::EnterI"},
        {"_ZN13ObjectMonitor8try_spinEP10JavaThread", "ObjectMonitor::try_spin"},
        {"_ZN18ObjectSynchronizer5enterE6HandleP9BasicLockP10JavaThread", "ObjectSynchronizer::enter"},
        {"_ZN13SharedRuntime26complete_monitor_locking_CEP7oopDescP9BasicLockP10JavaThread",
         "SharedRuntime::complete_monitor_locking_C"},
        {"_ZN18InterpreterRuntime12monitorenterEP10JavaThreadP15BasicObjectLock",
         "InterpreterRuntime::monitorenter"},
        {"_ZN23LightweightSynchronizer17inflate_and_enterEP7oopDescP9BasicLockN18ObjectSynchronizer12InflateCauseEP10JavaThreadS7_",
         "LightweightSynchronizer::inflate_and_enter"},
        {"SpinPause", "SpinPause"},
        {"_ZN13ObjectMonitor8ReenterIEP10JavaThreadP12ObjectWaiter", NULL},
        {"_ZN13ObjectMonitor4exitEP10JavaThreadb", NULL},
        {"_ZN23LightweightSynchronizer4exitEP7oopDescP9BasicLockP10JavaThread", NULL},
        {"_ZN13SharedRuntime28complete_monitor_unlocking_CEP7oopDescP9BasicLockP10JavaThread", NULL},
        {"SpinPauseNot", NULL},
        {"_ZN18ObjectSynchronizer18inflate_cause_nameENS_12InflateCauseE", NULL},
        {"malloc", NULL},
        {"_Z9SpinPausev", NULL},
        {"_ZN99", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[96] = "";
        int yes = wasp_lock_slow_path_name(cases[i].symbol, name, sizeof name);
        if (yes != (cases[i].name != NULL))
            fail_msg("%s: %d", cases[i].symbol, yes);
        if (yes)
            assert_string_equal(name, cases[i].name);
    }
}

/* ---- profile entries ---- */

static uint32_t ctx(wasp_profile *p, const char *method, int line)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, method),
                    wasp_profile_intern_string(p, "Main.java"), line};
    uint32_t id = wasp_profile_intern_frame(p, &f);
    return wasp_profile_intern_context(p, &id, 1, 0);
}

static void add(wasp_profile *p, const char *cls, const char *where, uint32_t c, double acquire,
                double release, double slow)
{
    wasp_lock_entry e = {wasp_profile_intern_string(p, cls), wasp_profile_intern_string(p, where), c,
                         acquire, release, slow};
    assert_int_equal(wasp_profile_add_lock(p, &e), 0);
}

/* Hot: 60 at hot:10 (and 30 slow there), Warm: 30 at warm:20, an unknown
 * class's 5 slow samples at cold:30. */
static wasp_profile *planted(void)
{
    wasp_profile *p = wasp_profile_new();
    uint32_t hot = ctx(p, "Main.hot", 10), warm = ctx(p, "Main.warm", 20), cold = ctx(p, "Main.cold", 30);
    add(p, "Hot", "", hot, 40, 38, 0);
    add(p, "Hot", "", hot, 20, 20, 0); /* the same key: summed */
    add(p, "Hot", "ObjectMonitor::TrySpin", hot, 0, 0, 20);
    add(p, "Hot", "ObjectMonitor::EnterI", hot, 0, 0, 10);
    add(p, "Hot", "", warm, 1, 1, 0);
    add(p, "Warm", "", warm, 30, 30, 0);
    add(p, "", "ObjectMonitor::TrySpin", cold, 0, 0, 5);
    return p;
}

static void test_add_and_reject(void **state)
{
    (void)state;
    wasp_profile *p = planted();
    uint32_t n;
    const wasp_lock_entry *e = wasp_profile_locks(p, &n);
    assert_int_equal(n, 6);
    assert_true(e[0].acquire == 60 && e[0].release == 58);
    wasp_lock_entry bad = {0, 0, p->ncontexts, 1, 0, 0};
    assert_int_equal(wasp_profile_add_lock(p, &bad), -1);
    bad = (wasp_lock_entry){p->nstrings, 0, 0, 1, 0, 0};
    assert_int_equal(wasp_profile_add_lock(p, &bad), -1);
    assert_true(wasp_profile_has_locks(p));
    wasp_profile *empty = wasp_profile_new();
    assert_false(wasp_profile_has_locks(empty));
    wasp_profile_set_meta(empty, "events", "fields+locks");
    assert_true(wasp_profile_has_locks(empty));
    wasp_profile_free(empty);
    wasp_profile_free(p);
}

/* Entries as (class, where, method, line, acquire, release, slow) text, in
 * the profile's order, for comparing profiles with other ids. */
static void describe(const wasp_profile *p, char *buf, size_t len)
{
    uint32_t n;
    const wasp_lock_entry *e = wasp_profile_locks(p, &n);
    size_t at = 0;
    for (uint32_t i = 0; i < n && at < len; i++) {
        const wasp_context *c = &p->contexts[e[i].ctx];
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + c->nframes - 1]];
        at += (size_t)snprintf(buf + at, len - at, "%s|%s|%s:%d|%g|%g|%g\n", p->strings[e[i].cls],
                               p->strings[e[i].where], p->strings[f->name], f->line, e[i].acquire,
                               e[i].release, e[i].slow);
    }
}

static void test_file_round_trip(void **state)
{
    (void)state;
    wasp_profile *p = planted();
    char err[256], a[2048], b[2048];
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    if (!q)
        fail_msg("%s", err);
    describe(p, a, sizeof a);
    describe(q, b, sizeof b);
    assert_string_equal(a, b);
    /* The section is there under its tag. */
    size_t len;
    unsigned char *d = slurp(&len);
    size_t size;
    assert_true(find_section(d, len, "LOCK", &size) != 0);
    free(d);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

static void test_merge_sums(void **state)
{
    (void)state;
    wasp_profile *a = planted(), *b = planted(), *m = wasp_profile_new();
    /* Ids of m differ from b's: interned in another order first. */
    ctx(m, "Main.cold", 30);
    wasp_profile_intern_string(m, "Warm");
    assert_int_equal(wasp_profile_merge(m, a), 0);
    assert_int_equal(wasp_profile_merge(m, b), 0);
    wasp_lock_ranking r;
    assert_int_equal(wasp_lock_rank(m, &r), 0);
    assert_true(r.acquire == 2 * 91 && r.slow == 2 * 35 && r.release == 2 * 89);
    assert_string_equal(m->strings[r.classes[0].sum.cls], "Hot");
    assert_true(r.classes[0].sum.acquire == 122 && r.classes[0].sum.slow == 60);
    wasp_lock_ranking_free(&r);
    wasp_profile_free(a);
    wasp_profile_free(b);
    wasp_profile_free(m);
}

static void test_ranking(void **state)
{
    (void)state;
    wasp_profile *p = planted();
    wasp_lock_ranking r;
    assert_int_equal(wasp_lock_rank(p, &r), 0);
    assert_true(r.acquire == 91 && r.slow == 35 && r.release == 89);
    assert_int_equal(r.nclasses, 3);
    /* Hot 91 (61 + 30 slow), Warm 30, unknown 5. */
    assert_string_equal(p->strings[r.classes[0].sum.cls], "Hot");
    assert_true(wasp_lock_samples(&r.classes[0].sum) == 91);
    assert_string_equal(p->strings[r.classes[1].sum.cls], "Warm");
    assert_string_equal(p->strings[r.classes[2].sum.cls], "");
    /* Hot's contexts: hot:10 (90 with the slow path), then warm:20 (1). */
    assert_int_equal(r.classes[0].ncontexts, 2);
    const wasp_lock_sum *top = &r.classes[0].contexts[0];
    assert_true(top->acquire == 60 && top->slow == 30 && top->release == 58);
    const wasp_context *c = &p->contexts[top->ctx];
    assert_int_equal(p->frames[p->frame_refs[c->first]].line, 10);
    assert_true(r.classes[0].contexts[1].acquire == 1);
    /* Slow paths by function: TrySpin 25, EnterI 10. */
    assert_int_equal(r.nfunctions, 2);
    assert_string_equal(p->strings[r.functions[0].where], "ObjectMonitor::TrySpin");
    assert_true(r.functions[0].slow == 25 && r.functions[1].slow == 10);
    wasp_lock_ranking_free(&r);
    wasp_profile_free(p);

    wasp_profile *empty = wasp_profile_new();
    assert_int_equal(wasp_lock_rank(empty, &r), 0);
    assert_int_equal(r.nclasses, 0);
    wasp_lock_ranking_free(&r);
    wasp_profile_free(empty);
}

static char *render(const wasp_profile *p, int (*fn)(const wasp_profile *, int, FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(fn(p, 0, out), 0);
    fclose(out);
    return buf;
}

/* The text names the hot class first with its slow-path share and
 * context; the flame stacks carry the class as the leaf. */
static void test_rendered(void **state)
{
    (void)state;
    wasp_profile *p = planted();
    char *text = render(p, wasp_render_text);
    const char *hot = strstr(text, "#1 "), *warm = strstr(text, "#2 ");
    if (!hot || !warm || hot > warm || !strstr(hot, "Hot   fast 61  slow 30 (33.0%)"))
        fail_msg("%s", text);
    assert_non_null(strstr(text, "at Main.hot(Main.java:10)"));
    assert_non_null(strstr(text, "slow path by runtime function: ObjectMonitor::TrySpin 25, "
                                 "ObjectMonitor::EnterI 10"));
    assert_non_null(strstr(text, "(class not known)"));
    free(text);
    char *folded = render(p, wasp_render_collapsed);
    if (!strstr(folded, "locks;[acquire];Main.hot(Main.java:10);Hot 90\n"))
        fail_msg("%s", folded);
    free(folded);
    wasp_profile_free(p);
}

/* The summary's words for an uncontended lock of a JDK class that locks on
 * every call: what does the same without it; a contended one (Hot: a third
 * slow) or a class of the program's gets none. */
static void test_unlocked_alternative(void **state)
{
    (void)state;
    assert_non_null(strstr(wasp_lock_unlocked_alternative("java.util.Vector"), "ArrayList"));
    assert_non_null(strstr(wasp_lock_unlocked_alternative("java.lang.StringBuffer"), "StringBuilder"));
    assert_non_null(strstr(wasp_lock_unlocked_alternative("java.lang.ArrayIndexOutOfBoundsException"),
                           "stack trace"));
    assert_null(wasp_lock_unlocked_alternative("com.acme.Account"));
    assert_null(wasp_lock_unlocked_alternative("java.util.VectorX"));
    wasp_profile *p = planted();
    add(p, "java.util.Vector", "", ctx(p, "Main.list", 40), 50, 50, 0);
    add(p, "java.util.Hashtable", "", ctx(p, "Main.map", 50), 60, 60, 0);
    add(p, "java.util.Hashtable", "ObjectMonitor::EnterI", ctx(p, "Main.map", 50), 0, 0, 40);
    char *text = render(p, wasp_render_text);
    const char *vector = strstr(text, "locks java.util.Vector:");
    if (!vector || !strstr(vector, "uncontended: java.util.ArrayList does the same without a lock"))
        fail_msg("%s", text);
    const char *table = strstr(text, "locks java.util.Hashtable:");
    if (!table || strstr(text, "java.util.HashMap does"))
        fail_msg("%s", text);
    free(text);
    wasp_profile_free(p);
}

static void add_blocked(wasp_profile *p, const char *cls, const char *kind, uint32_t c,
                        double samples, double seconds)
{
    wasp_lock_blocked b = {wasp_profile_intern_string(p, cls), wasp_profile_intern_string(p, kind), c, 0,
                           samples, seconds};
    assert_int_equal(wasp_profile_add_lock_blocked(p, &b), 0);
}

/* A context whose stack walk failed ranks after the walked ones of its
 * class, whatever its time: it collects the failures of every place
 * (lucene on the page engine: a "[stack unavailable]" wait above one with a
 * stack). */
static void test_blocked_unwalked_last(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_frame lost = {WASP_FRAME_UNKNOWN, wasp_profile_intern_string(p, "[stack unavailable: unknown frame, not Java]"), 0, -1};
    uint32_t f = wasp_profile_intern_frame(p, &lost);
    uint32_t unwalked = wasp_profile_intern_context(p, &f, 1, 0), walked = ctx(p, "Main.read", 7);
    add_blocked(p, "NativeThreadSet", WASP_LOCK_MONITOR, unwalked, 30, 0.3);
    add_blocked(p, "NativeThreadSet", WASP_LOCK_MONITOR, walked, 10, 0.1);
    wasp_lock_waits w;
    assert_int_equal(wasp_lock_waits_rank(p, &w), 0);
    assert_int_equal(w.nclasses, 1);
    assert_int_equal(w.classes[0].ncontexts, 2);
    assert_int_equal(w.classes[0].contexts[0].ctx, walked);
    assert_int_equal(w.classes[0].contexts[1].ctx, unwalked);
    assert_true(fabs(w.classes[0].seconds - 0.4) < 1e-9);
    wasp_lock_waits_free(&w);
    wasp_profile_free(p);
}

/* Blocked time (section LKBL): LongHold 0.3 s at hot:10 and 0.1 s at
 * warm:20, a park on NonfairSync 0.2 s; through a file, ranked by seconds
 * with its contexts, with an interval, and in the text. */
static void test_blocked(void **state)
{
    (void)state;
    wasp_profile *p = planted();
    uint32_t hot = ctx(p, "Main.hot", 10), warm = ctx(p, "Main.warm", 20);
    add_blocked(p, "LongHold", WASP_LOCK_MONITOR, warm, 10, 0.1);
    add_blocked(p, "LongHold", WASP_LOCK_MONITOR, hot, 20, 0.2);
    add_blocked(p, "LongHold", WASP_LOCK_MONITOR, hot, 10, 0.1); /* the same key: summed */
    add_blocked(p, "NonfairSync", WASP_LOCK_PARK, hot, 20, 0.2);
    char err[256];
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    if (!q)
        fail_msg("%s", err);
    size_t len, size;
    unsigned char *d = slurp(&len);
    assert_true(find_section(d, len, "LKBL", &size) != 0);
    free(d);
    wasp_lock_waits w;
    assert_int_equal(wasp_lock_waits_rank(q, &w), 0);
    assert_int_equal(w.nclasses, 2);
    assert_true(fabs(w.seconds - 0.6) < 1e-9 && w.samples == 60);
    assert_string_equal(q->strings[w.classes[0].cls], "LongHold");
    assert_string_equal(q->strings[w.classes[0].where], WASP_LOCK_MONITOR);
    assert_true(fabs(w.classes[0].seconds - 0.4) < 1e-9 && w.classes[0].samples == 40);
    assert_int_equal(w.classes[0].ncontexts, 2);
    assert_true(fabs(w.classes[0].contexts[0].seconds - 0.3) < 1e-9); /* hot:10 first */
    assert_string_equal(q->strings[w.classes[1].where], WASP_LOCK_PARK);
    wasp_lock_waits_free(&w);
    double lo, hi;
    wasp_lock_waits_interval(100, 1.0, &lo, &hi);
    assert_true(fabs(lo - 0.804) < 1e-9 && fabs(hi - 1.196) < 1e-9);
    wasp_lock_waits_interval(1, 1.0, &lo, &hi); /* wider than the estimate: from 0 */
    assert_true(lo == 0 && hi > 2);
    char *text = render(q, wasp_render_text);
    const char *t = strstr(text, "Time blocked on locks");
    if (!t || !strstr(t, "#1  66.7% blocked") || !strstr(t, "monitor  LongHold") ||
        !strstr(t, "park  NonfairSync"))
        fail_msg("%s", text);
    free(text);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cas_kind),
        cmocka_unit_test(test_mark_kind),
        cmocka_unit_test(test_cas_source),
        cmocka_unit_test(test_lock_stack_decode),
        cmocka_unit_test(test_slow_function),
        cmocka_unit_test(test_slow_path_names),
        cmocka_unit_test(test_add_and_reject),
        cmocka_unit_test_setup_teardown(test_file_round_trip, make_file, remove_file),
        cmocka_unit_test(test_merge_sums),
        cmocka_unit_test(test_ranking),
        cmocka_unit_test(test_rendered),
        cmocka_unit_test(test_unlocked_alternative),
        cmocka_unit_test(test_blocked_unwalked_last),
        cmocka_unit_test_setup_teardown(test_blocked, make_file, remove_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
