/* Threads (issue 40): the thread group a context's root frame records
 * (profile/thread_frame.c) and wasp report --thread (cli/render/thread_filter.c),
 * through the report's one regrouping (profile/group.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/render/frame_filter.h"
#include "cli/render/report_part.h"
#include "cli/render/thread_filter.h"
#include "profile/group.h"
#include "profile/thread_frame.h"
#include "pairs_view.h"

static void test_group(void **state)
{
    (void)state;
    char g[32];
    wasp_thread_group("pool-1-thread-17", g, sizeof g);
    assert_string_equal(g, "pool-#-thread-#");
    wasp_thread_group("main", g, sizeof g);
    assert_string_equal(g, "main");
    wasp_thread_group("42", g, sizeof g);
    assert_string_equal(g, "#");
    wasp_thread_group("ForkJoinPool.commonPool-worker-3", g, 8); /* cut to fit */
    assert_string_equal(g, "ForkJoi");
}

/* A context of thread `thread` (NULL: none) whose leaf is method leaf. */
static uint32_t ctx(wasp_profile *p, const char *thread, const char *leaf)
{
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, leaf),
                    wasp_profile_intern_string(p, "S.java"), 3};
    uint32_t fr[2], n = 0;
    if (thread)
        fr[n++] = wasp_profile_thread_frame(p, thread);
    fr[n++] = wasp_profile_intern_frame(p, &f);
    return wasp_profile_intern_context(p, fr, n, 0);
}

static double pair_bytes(const wasp_profile *q, const char *leaf)
{
    for (uint32_t i = 0; i < pair_count(q); i++) {
        const wasp_context *x = &q->contexts[pairs_of(q)[i].watch_ctx];
        const char *name = wasp_profile_string(q, q->frames[q->frame_refs[x->first + x->nframes - 1]].name);
        if (strcmp(name, leaf) == 0)
            return pairs_of(q)[i].bytes;
    }
    return -1;
}

static void test_filter(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    char err[256];
    assert_int_equal(wasp_thread_filter_check(p, err, sizeof err), -1);
    assert_non_null(strstr(err, "--thread"));
    wasp_profile_set_meta(p, WASP_THREADS_META, "1");
    assert_int_equal(wasp_thread_filter_check(p, err, sizeof err), 0);

    uint32_t a = ctx(p, "storer-1", "S.store"), b = ctx(p, "loader-2", "S.load"),
             b2 = ctx(p, "loader-3", "S.load"), c = ctx(p, NULL, "S.alloc");
    assert_int_equal(b, b2); /* one group: the digits folded */
    size_t len;
    const char *t = wasp_context_thread(p, &p->contexts[a], &len);
    assert_non_null(t);
    assert_int_equal(len, strlen("storer-#"));
    assert_memory_equal(t, "storer-#", len);
    assert_null(wasp_context_thread(p, &p->contexts[c], &len));

    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, a, a, 3000, 30);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, b, b, 1000, 10);
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 500, 5);
    wasp_frame_filter f = {.thread = {"loader-#"}, .nthread = 1};
    wasp_context_filter hide = {wasp_frame_filter_hides, &f, WASP_HIDDEN_FRAME};
    wasp_profile *q = wasp_profile_group(p, WASP_GROUP_LINE, &hide);
    assert_non_null(q);
    assert_int_equal(pair_count(q), 2);
    assert_true(pair_bytes(q, "S.load") == 1000);
    assert_true(pair_bytes(q, WASP_HIDDEN_FRAME) == 3500); /* the storer's and the threadless */
    wasp_profile_free(q);

    wasp_frame_filter g = {.thread = {"stor*", "nothing"}, .nthread = 2, .exclude = {"S.x"}, .nexclude = 1};
    char text[128];
    assert_string_equal(wasp_frame_filter_text(&g, text, sizeof text),
                        "--exclude S.x --thread stor* --thread nothing");
    assert_true(wasp_thread_matches(p, &p->contexts[a], g.thread, g.nthread));
    assert_false(wasp_thread_matches(p, &p->contexts[b], g.thread, g.nthread));
    wasp_profile_free(p);
}

/* The text detail folds a deep stack's callers, the thread frame with them:
 * the fold's line names the thread. */
static void test_text_names_thread(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    uint32_t fr[12], n = 0;
    fr[n++] = wasp_profile_thread_frame(p, "worker-7");
    for (int i = 0; i < 10; i++) {
        char name[32];
        snprintf(name, sizeof name, "app.M.m%d", i);
        wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, name),
                        wasp_profile_intern_string(p, "M.java"), 10 + i};
        fr[n++] = wasp_profile_intern_frame(p, &f);
    }
    uint32_t c = wasp_profile_intern_context(p, fr, n, 0);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    wasp_text_frames(p, &p->contexts[c], 0, out);
    fclose(out);
    /* leaf m9, its place, then three callers shown: m8..m6; m5..m0 and the
     * thread folded */
    assert_non_null(strstr(text, "at app.M.m6("));
    assert_null(strstr(text, "at app.M.m5("));
    assert_non_null(strstr(text, "... 6 more, in thread worker-#\n"));
    free(text);
    wasp_profile_free(p);
}

/* Pruning (--max-contexts) keeps a pruned context's thread: one placeholder
 * per thread, which --thread keeps with the thread's other evidence. */
static void test_prune(void **state)
{
    (void)state;
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, WASP_THREADS_META, "1");
    const char *leaves[] = {"S.a", "S.b", "S.c", "S.d"};
    for (int i = 0; i < 4; i++) { /* each thread: a heavy context and three light ones */
        uint32_t s = ctx(p, "storer-1", leaves[i]), l = ctx(p, "loader-1", leaves[i]);
        wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, s, s, i ? 10 : 1000, 1);
        wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, l, l, i ? 20 : 2000, 1);
    }
    uint32_t pruned;
    wasp_profile *q = wasp_profile_prune(p, 2, &pruned);
    assert_non_null(q);
    assert_int_equal(pruned, 6);
    wasp_frame_filter f = {.thread = {"loader-#"}, .nthread = 1};
    wasp_context_filter hide = {wasp_frame_filter_hides, &f, WASP_HIDDEN_FRAME};
    wasp_profile *r = wasp_profile_group(q, WASP_GROUP_LINE, &hide);
    assert_non_null(r);
    assert_true(pair_bytes(r, "S.a") == 2000);
    assert_true(pair_bytes(r, WASP_PRUNED_FRAME) == 60); /* the loader's light three */
    assert_true(pair_bytes(r, WASP_HIDDEN_FRAME) == 1030); /* the storer's, pruned or not */
    wasp_profile_free(r);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_prune),
        cmocka_unit_test(test_text_names_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
