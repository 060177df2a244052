/*
 * The HTML report (--format html, html_page.h): the JSON report
 * (render_json.c, docs/report-json.md) as data, and a script
 * (src/cli/html/report.js) that builds the header, the tables and the flame
 * graphs from it in the browser: the page shows whatever the JSON has.
 */
#include "cli/html_assets.h"
#include "cli/html_page.h"
#include "cli/render.h"

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
    return wasp_html_page("wasp report", wasp_html_js, report_json, &r, out);
}
