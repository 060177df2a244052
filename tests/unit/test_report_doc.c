/* docs/report-json.md against the JSON report: every key the documented
 * example shows is in `wasp report --format json` of a profile that fills
 * every field, with the same JSON type, and the report has no key the
 * example does not show (except where it says "..."). The example is JSON
 * with // comments and "..." standing for what it leaves out; both are read
 * by the small reader below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pairs/profile.h"
#include "analysis/alloc/profile.h"
#include "analysis/fields/profile.h"
#include "analysis/locks/profile.h"
#include "analysis/objects/profile.h"
#include "analysis/replicas/profile.h"
#include "cli/render/render.h" /* the renderers, private to src/cli/ */
#include "profile/cpu_lines.h"
#include "profile/profile.h"

/* ---- a reader for JSON, comments and "..." ---- */

enum kind { K_OBJECT, K_ARRAY, K_STRING, K_NUMBER, K_BOOL, K_NULL, K_ELIDED };
static const char *const kind_names[] = {"object", "array", "string", "number",
                                         "bool",   "null",  "..."};

typedef struct node {
    enum kind kind;
    bool open;           /* an object with a "..." member: more keys may follow */
    char *key;           /* as a member of an object */
    struct node **items; /* members or elements */
    size_t n;
} node;

struct reader {
    const char *s;
    char err[128];
};

static void skip_space(struct reader *r)
{
    for (;;) {
        while (isspace((unsigned char)*r->s))
            r->s++;
        if (r->s[0] != '/' || r->s[1] != '/')
            return;
        r->s += strcspn(r->s, "\n");
    }
}

static char *read_string(struct reader *r)
{
    const char *start = ++r->s; /* past the quote */
    while (*r->s && *r->s != '"')
        r->s += *r->s == '\\' && r->s[1] ? 2 : 1;
    if (*r->s != '"')
        return NULL;
    char *str = strndup(start, (size_t)(r->s - start));
    r->s++;
    return str;
}

static void add(node *parent, node *child)
{
    parent->items = realloc(parent->items, (parent->n + 1) * sizeof *parent->items);
    assert_non_null(parent->items);
    parent->items[parent->n++] = child;
}

static node *read_value(struct reader *r);

/* The members or elements up to `close`; a lone "..." makes the whole
 * container elided. */
static node *read_container(struct reader *r, enum kind kind, char close)
{
    node *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->kind = kind;
    r->s++;
    for (;;) {
        skip_space(r);
        if (*r->s == close) {
            r->s++;
            return c;
        }
        if (*r->s == ',') {
            r->s++;
            continue;
        }
        if (strncmp(r->s, "...", 3) == 0) { /* { ... } or [ ... ]: the rest left out */
            r->s += 3;
            c->kind = K_ELIDED;
            continue;
        }
        char *key = NULL;
        if (kind == K_OBJECT) {
            if (*r->s != '"' || !(key = read_string(r)))
                return snprintf(r->err, sizeof r->err, "expected a key at '%.20s'", r->s), NULL;
            skip_space(r);
            if (*r->s++ != ':')
                return snprintf(r->err, sizeof r->err, "expected ':' after \"%s\"", key), NULL;
        }
        node *v = read_value(r);
        if (!v)
            return NULL;
        v->key = key;
        if (key && strcmp(key, "...") == 0)
            c->open = true;
        else
            add(c, v);
    }
}

static node *read_value(struct reader *r)
{
    skip_space(r);
    node *v = calloc(1, sizeof *v);
    assert_non_null(v);
    if (*r->s == '{' || *r->s == '[') {
        free(v);
        return read_container(r, *r->s == '{' ? K_OBJECT : K_ARRAY, *r->s == '{' ? '}' : ']');
    }
    char *str, *end;
    if (*r->s == '"' && (str = read_string(r))) {
        v->kind = K_STRING;
        free(str);
    } else if (strncmp(r->s, "...", 3) == 0) {
        v->kind = K_ELIDED;
        r->s += 3;
    } else if (strncmp(r->s, "true", 4) == 0 || strncmp(r->s, "false", 5) == 0) {
        v->kind = K_BOOL;
        r->s += *r->s == 't' ? 4 : 5;
    } else if (strncmp(r->s, "null", 4) == 0) {
        v->kind = K_NULL;
        r->s += 4;
    } else if (*r->s == '-' || isdigit((unsigned char)*r->s)) {
        v->kind = K_NUMBER;
        strtod(r->s, &end);
        r->s = end;
    } else {
        free(v);
        snprintf(r->err, sizeof r->err, "unexpected '%.20s'", r->s);
        return NULL;
    }
    return v;
}

static void node_free(node *v)
{
    for (size_t i = 0; v && i < v->n; i++)
        node_free(v->items[i]);
    if (v) {
        free(v->items);
        free(v->key);
        free(v);
    }
}

static node *parse(const char *text, const char *what)
{
    struct reader r = {.s = text};
    node *v = read_value(&r);
    if (!v)
        fail_msg("%s: %s", what, r.err);
    return v;
}

static const node *member(const node *obj, const char *key)
{
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->items[i]->key, key) == 0)
            return obj->items[i];
    return NULL;
}

/* ---- the comparison ---- */

/* doc: the documented shape; out: the report's. Failures name the path. */
static void compare(const node *doc, const node *out, const char *path)
{
    if (doc->kind == K_ELIDED)
        return; /* "..." stands for any value */
    if (doc->kind != out->kind)
        fail_msg("%s: documented as %s, the report has %s", path, kind_names[doc->kind],
                 kind_names[out->kind]);
    char sub[512];
    if (doc->kind == K_OBJECT) {
        for (size_t i = 0; i < doc->n; i++) {
            const node *o = member(out, doc->items[i]->key);
            snprintf(sub, sizeof sub, "%s.%s", path, doc->items[i]->key);
            if (!o)
                fail_msg("%s: documented, not in the report", sub);
            compare(doc->items[i], o, sub);
        }
        for (size_t i = 0; i < out->n && !doc->open; i++)
            if (!member(doc, out->items[i]->key))
                fail_msg("%s.%s: in the report, not documented", path, out->items[i]->key);
    } else if (doc->kind == K_ARRAY && doc->n) {
        if (!out->n)
            fail_msg("%s: empty in the report (the sample profile should fill it)", path);
        snprintf(sub, sizeof sub, "%s[]", path);
        for (size_t i = 0; i < out->n; i++)
            compare(doc->items[0], out->items[i], sub);
    }
}

/* docs/report-json.md beside this file's tests/unit/ (the path the compiler
 * was given, relative to the repository when make builds it): its first
 * ```json block. */
static char *documented_example(void)
{
    const char *me = __FILE__, *tail = strstr(me, "tests/unit/");
    char path[4096];
    snprintf(path, sizeof path, "%.*sdocs/report-json.md", tail ? (int)(tail - me) : 0, me);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s (run the tests from the repository)", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char *start = strstr(text, "```json\n"), *end = start ? strstr(start + 8, "\n```") : NULL;
    if (!end)
        fail_msg("%s: no ```json block", path);
    *end = 0;
    return start + 8;
}

/* ---- a profile that fills every documented field ---- */

static uint32_t ctx(wasp_profile *p, const char *method, int line, const char *insn)
{
    wasp_frame f[] = {
        {WASP_FRAME_JAVA, wasp_profile_intern_string(p, "pkg.Main.main"),
         wasp_profile_intern_string(p, "Main.java"), 10},
        {WASP_FRAME_JAVA, wasp_profile_intern_string(p, method),
         wasp_profile_intern_string(p, "Main.java"), line},
    };
    uint32_t ids[] = {wasp_profile_intern_frame(p, &f[0]), wasp_profile_intern_frame(p, &f[1])};
    return wasp_profile_intern_context(p, ids, 2, insn ? wasp_profile_intern_string(p, insn) : 0);
}

static wasp_profile *sample(void)
{
    wasp_profile *p = wasp_profile_new();
    static const char *const text[][2] = {
        {"sampler", "perf"},
        {"sampler_detail", "task-clock"},
        {"period", "1000 us CPU"},
        {"events", "deadstore+silentstore+silentload+objects+replicas+fields+alloc"},
        {"watch", "page"},
        {"watch_detail", "page protection"},
        {"java_command", "java Main"},
        {"jvm", "OpenJDK 64-Bit Server VM 17"},
        {"objects.metric", "software address samples weighted by thread CPU time"},
    };
    for (size_t i = 0; i < sizeof text / sizeof *text; i++)
        wasp_profile_set_meta(p, text[i][0], text[i][1]);
    static const struct {
        const char *key;
        double v;
    } numbers[] = {
        {"watch_budget", 0.02}, {"pid", 4242},     {"threads", 4},
        {"cpu_seconds", 2.5},   {"cpu_kernel_seconds", 0.66}, {"numa_nodes", 2},
        {"objects.min_size", 1024},
        {"objects.sampling_interval", 524288},     {"objects.sampling_interval_max", 2097152},
        {"watch_string_slowdown", 27},
    };
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++)
        wasp_profile_set_meta_num(p, numbers[i].key, numbers[i].v);
    static const char *const counters[] = {"samples", "samples.memory", "trapped",
                                           "dropped.gc", "objects.samples",
                                           "objects.unattributed", "objects.stale",
                                           "objects.clearing", "objects.off_heap",
                                           "objects.clearing_unfound"};
    for (size_t i = 0; i < sizeof counters / sizeof *counters; i++)
        wasp_profile_add_counter(p, counters[i], 100 + i);
    /* The budget spent with few samples armed: a warning. */
    wasp_profile_add_counter(p, "armed", 3);
    wasp_profile_add_counter(p, "dropped.budget", 51);
    wasp_profile_add_counter(p, "watch.string_samples", 4);

    uint32_t w = ctx(p, "pkg.Main.work", 42, "mov %eax, 0x10(%rbx)");
    uint32_t t = ctx(p, "pkg.Main.work", 43, "mov %eax, 0x10(%rbx)");
    for (int a = 0; a < WASP_AN_COUNT; a++) {
        wasp_profile_add_pair(p, (wasp_analysis)a, 0, w, t, 64, 2);
        wasp_totals tot = {1000, 64, 0, 10};
        wasp_profile_add_totals(p, (wasp_analysis)a, &tot);
    }
    uint32_t site = wasp_profile_intern_site(p, ctx(p, "pkg.Grid.<init>", 12, NULL),
                                             wasp_profile_intern_string(p, "double[]"));
    wasp_profile_add_site_allocs(p, site, 1204, 9.4e6);
    uint32_t use = ctx(p, "pkg.Grid.sum", 30, "vmovsd 0x10(%rax,%rcx,8), %xmm0");
    wasp_profile_add_site_access(p, site, use, 600, 60);
    wasp_profile_add_replica(p, site, use, 313, 99);
    wasp_replica_check c = {site, 1000, 610, 0.031, 0.04};
    wasp_profile_set_replica_check(p, &c);
    wasp_field_entry f = {wasp_profile_intern_string(p, "pkg.Cell"),
                          wasp_profile_intern_string(p, "hits"), 12, 4 /* old */,
                          ctx(p, "pkg.Main.visit", 32, "incl 0xc(%r12,%r10,8)"), 312, 292};
    wasp_profile_add_field(p, &f);
    wasp_field_entry native = {0, 0, 0, 9 /* native */,
                               ctx(p, "pkg.Main.fill", 40, "mov %rax, 0x8(%rdx)"), 0, 40};
    wasp_profile_add_field(p, &native);
    wasp_alloc_entry a = {wasp_profile_intern_string(p, "pkg.Small"),
                          ctx(p, "pkg.Main.make", 21, "movl $0xc01234, 0x8(%rax)"), 412};
    wasp_profile_add_alloc(p, &a);
    wasp_alloc_bytes ab = {a.cls, a.ctx, 1.2e9, 412, 1.2e9 * 1.2e9 / 300};
    wasp_profile_add_alloc_bytes(p, &ab);
    wasp_profile_add_counter(p, "alloc.window_bytes", 4000);
    wasp_profile_add_counter(p, "alloc.covered_bytes", 1000);
    wasp_lock_entry l = {wasp_profile_intern_string(p, "pkg.Account"), 0,
                         ctx(p, "pkg.Main.transfer", 50, NULL), 60, 58, 0};
    wasp_profile_add_lock(p, &l);
    l.where = wasp_profile_intern_string(p, "ObjectMonitor::TrySpin");
    l.acquire = l.release = 0;
    l.slow = 30;
    wasp_profile_add_lock(p, &l);
    wasp_lock_blocked b = {l.cls, wasp_profile_intern_string(p, WASP_LOCK_MONITOR), l.ctx, 0,
                           147, 1.56};
    wasp_profile_add_lock_blocked(p, &b);
    wasp_profile_set_meta_num(p, "locks_blocked_period_ms", 10);
    wasp_profile_set_meta_num(p, "locks_blocked_looks", 512);
    wasp_profile_set_meta_rounded(p, "locks_blocked_cpu_ms", 59.2, "%.1f");
    wasp_profile_set_meta_num(p, "period_us", 1000); /* locks' acquisitions are estimated */
    wasp_profile_set_meta_num(p, "locks_cas_ns", 2.5);
    /* The samples by innermost line (summary.hot_lines). */
    wasp_profile_add_cpu_leaf(p, wasp_profile_intern_string(p, "pkg.Main.contains"),
                              wasp_profile_intern_string(p, "Main.java"), 49, 846);
    wasp_profile_add_counter(p, WASP_CPU_SAMPLES, 2958);
    /* Exceptions' stack traces filled in (summary.exceptions): their CPU
     * samples, and a sampled stack through them that places them. */
    wasp_profile_add_cpu_line(p, wasp_profile_intern_string(p, "java.lang.Throwable.fillInStackTrace"),
                              wasp_profile_intern_string(p, "Throwable.java"), -1, 300);
    wasp_alloc_entry trace = {wasp_profile_intern_string(p, "long[]"),
                              ctx(p, "java.lang.Throwable.fillInStackTrace", -1, "mov %rax, 0x10(%rdx)"), 20};
    wasp_profile_add_alloc(p, &trace);
    wasp_alloc_bytes tb = {trace.cls, trace.ctx, 2e6, 20, 2e6 * 2e6 / 20};
    wasp_profile_add_alloc_bytes(p, &tb);
    return p;
}

static void test_report_matches_doc(void **state)
{
    (void)state;
    node *doc = parse(documented_example(), "docs/report-json.md");
    wasp_profile *p = sample();
    char *json = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&json, &len);
    assert_int_equal(wasp_render_json(p, 0, out), 0);
    fclose(out);
    node *report = parse(json, "the JSON report");
    compare(doc, report, "report");
    node_free(doc);
    node_free(report);
    free(json);
    wasp_profile_free(p);
}

/* The comparison itself: it sees a missing key, an undocumented one and a
 * type that differs, and lets "..." stand for anything. */
static void test_compare_sees_differences(void **state)
{
    (void)state;
    node *doc = parse("{ \"a\": 1, // a comment\n \"b\": [ { \"c\": \"x\" } ], \"d\": { ... } }",
                      "doc");
    node *same =
        parse("{\"a\": 2.5, \"b\": [{\"c\": \"y\"}, {\"c\": \"z\"}], \"d\": {\"e\": 0}}", "same");
    compare(doc, same, "r");
    node *open = parse("{ \"a\": 1, \"...\": \"more\" }", "open");
    node *more = parse("{\"a\": 1, \"extra\": true}", "more");
    compare(open, more, "r");
    assert_int_equal(doc->n, 3);
    assert_int_equal(member(doc, "d")->kind, K_ELIDED);
    assert_false(doc->open);
    assert_true(open->open);
    node_free(doc);
    node_free(same);
    node_free(open);
    node_free(more);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_sees_differences),
        cmocka_unit_test(test_report_matches_doc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
