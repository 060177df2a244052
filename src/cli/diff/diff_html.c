/*
 * `wasp diff --format html` (diff.h): one page (html_page.h) holding the diff
 * JSON (diff_render.c, docs/diff.md) as data and a script
 * (src/cli/html/diff.js) that draws it, so the page shows exactly what the
 * JSON says and a tool can read the JSON back out of the page.
 */
#include "cli/commands/diff.h"
#include "cli/render/html_assets.h"
#include "cli/render/html_page.h"

struct diff_data {
    const wasp_diff *d;
    const wasp_diff_names *names;
    int top;
};

static int diff_json(const void *arg, FILE *out)
{
    const struct diff_data *r = arg;
    return wasp_diff_render_json(r->d, r->names, r->top, out);
}

int wasp_diff_render_html(const wasp_diff *d, const wasp_diff_names *names, int top, FILE *out)
{
    struct diff_data r = {d, names, top};
    const char *const scripts[] = {wasp_html_diff_js, NULL};
    return wasp_html_page("wasp diff", scripts, diff_json, &r, out);
}
