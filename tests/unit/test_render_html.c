/* The HTML report (render_html.c): the page carries the JSON report intact,
 * no name in a profile can end its data element or open a comment, and the
 * page's stylesheet and script are built in. What the script draws is tested
 * in a browser: tests/integration/report_html.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_page_check.h"
#include "analysis/pairs/profile.h"
#include "catalog/ids.h"
#include "cli/render/html_part.h"
#include "cli/render/render.h"
#include "cli/commands/report.h"
#include "cli/render/view.h"
#include "render_string.h"
#include "profile/profile.h"

static const char hostile[] = "pkg.A.</script><!--<script>x";

/* A dead-store pair whose method name and metadata try to break out. */
static wasp_profile *hostile_profile(void)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "events", "deadstore");
    wasp_profile_set_meta(p, "java_command", "java </SCRIPT > <!-- -->");
    wasp_profile_add_counter(p, "samples", 10);
    wasp_frame f = {WASP_FRAME_JAVA, wasp_profile_intern_string(p, hostile),
                    wasp_profile_intern_string(p, "A.java"), 7};
    uint32_t fr = wasp_profile_intern_frame(p, &f);
    uint32_t c = wasp_profile_intern_context(p, &fr, 1, wasp_profile_intern_string(p, "movl <x>"));
    wasp_profile_add_pair(p, WASP_AN_DEADSTORE, 0, c, c, 64, 2);
    wasp_totals t = {128, 64, 0, 2};
    wasp_profile_add_totals(p, WASP_AN_DEADSTORE, &t);
    return p;
}

static char *render(const wasp_profile *p, wasp_format fmt)
{
    return render_string(p, fmt, WASP_BY_INSTRUCTION, NULL);
}

static void test_data_intact_and_inert(void **state)
{
    (void)state;
    wasp_profile *p = hostile_profile();
    char *html = render(p, WASP_FORMAT_HTML);
    char *json = render(p, WASP_FORMAT_JSON);
    assert_non_null(strstr(json, hostile)); /* the JSON writer leaves '<' alone */

    check_data_intact_and_inert(html, json);
    free(json);
    free(html);
    wasp_profile_free(p);
}

/* The page is whole: its style and script built in, no address to fetch. */
static void test_page_self_contained(void **state)
{
    (void)state;
    wasp_profile *p = hostile_profile();
    char *html = render(p, WASP_FORMAT_HTML);
    check_page_whole(html, wasp_html_js);
    free(html);
    wasp_profile_free(p);
}

/* Every analysis draws its section (cli/render/html_part.h): either by its view
 * (cli/render/view.h: html/view.js draws every view, registered by waspViews) or by
 * a script of its own that registers it; neither can end its element; the
 * page holds the scripts of the analyses it shows only, once, after the
 * frame and before the drawing. */
static void test_section_scripts(void **state)
{
    (void)state;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_html_part *part = wasp_html_part_of(id);
        assert_non_null(part);
        if (wasp_view_of(id)) {
            assert_null(part->script); /* one way to draw it */
            continue;
        }
        assert_non_null(part->script);
        assert_non_null(strstr(part->script, "waspReport.section("));
        assert_null(strstr(part->script, "</"));
    }
    assert_null(wasp_html_part_of(WASP_ANALYSES));
    assert_null(strstr(wasp_html_view_js, "</"));
    assert_non_null(strstr(wasp_html_view_js, "waspReport.section("));
    wasp_profile *p = hostile_profile();
    char *html = render(p, WASP_FORMAT_HTML);
    const char *frame = strstr(html, wasp_html_js);
    const char *views = strstr(html, wasp_html_view_js);
    const char *pairs = strstr(html, "waspViews({");
    const char *draw = strstr(html, "waspReport.draw();");
    assert_non_null(frame);
    assert_non_null(views);
    assert_non_null(pairs);
    assert_non_null(draw);
    assert_true(frame < views && views < pairs && pairs < draw);
    assert_null(strstr(pairs + 1, "waspViews({")); /* once */
    const char *end = strstr(pairs, ");");
    assert_non_null(end);
    assert_null(memmem(pairs, (size_t)(end - pairs), "</", 2));
    /* the shown analysis, and only it */
    assert_non_null(memmem(pairs, (size_t)(end - pairs), "\"deadstore\":", 12));
    assert_null(memmem(pairs, (size_t)(end - pairs), "\"silentload\":", 13));
    if (wasp_html_part_of(WASP_ID_objects)->script)
        assert_null(strstr(html, wasp_html_part_of(WASP_ID_objects)->script));
    free(html);
    wasp_profile_free(p);
}

static void test_write_error(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        skip();
    wasp_profile *p = hostile_profile();
    wasp_report_opts o = {.format = WASP_FORMAT_HTML, .by = WASP_BY_LINE};
    assert_int_equal(wasp_report_render(p, &o, f), -1);
    fclose(f);
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_intact_and_inert),
        cmocka_unit_test(test_page_self_contained),
        cmocka_unit_test(test_section_scripts),
        cmocka_unit_test(test_write_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
