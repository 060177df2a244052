/*
 * The HTML report (--format html, html_page.h): the JSON report
 * (render_json.c, docs/report-json.md) as data, and scripts that build the
 * header, the tables and the flame graphs from it in the browser: the
 * report's frame (src/cli/html/report.js), then the section script of each
 * analysis the report shows (html_part.h), then the call that draws the
 * page. The page shows whatever the JSON has.
 */
#include "catalog/ids.h"
#include "cli/render/html_assets.h"
#include "cli/render/html_page.h"
#include "cli/render/html_part.h"
#include "cli/render/render.h"
#include "cli/render/view.h"

#include <stdlib.h>

struct report_data {
    const wasp_profile *p;
    int top;
};

static int report_json(const void *arg, FILE *out)
{
    const struct report_data *r = arg;
    return wasp_render_json(r->p, r->top, out);
}

int wasp_render_html(const wasp_profile *p, int top, FILE *out)
{
    struct report_data r = {p, top};
    /* The frame, the views' drawing and their sections, each distinct
     * section script once, the drawing, NULL. */
    const char *scripts[WASP_ANALYSES + 5];
    int n = 0;
    scripts[n++] = wasp_html_js;
    uint32_t shown = wasp_report_shown_analyses(p);
    char *views = wasp_view_html_script(shown);
    if (!views)
        return -1;
    scripts[n++] = wasp_html_view_js;
    scripts[n++] = views;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_html_part *part = wasp_html_part_of(id);
        if (!(shown & (1u << id)) || !part || !part->script)
            continue;
        bool seen = false;
        for (int k = 3; k < n && !seen; k++)
            seen = scripts[k] == part->script;
        if (!seen)
            scripts[n++] = part->script;
    }
    scripts[n++] = "waspReport.draw();\n";
    scripts[n] = NULL;
    int rc = wasp_html_page("wasp report", scripts, report_json, &r, out);
    free(views);
    return rc;
}
