/*
 * The HTML sections of the analyses drawn by views (view.h): the script
 * that registers them, waspViews({NAME: description, ...}), run after
 * html/view.js, which draws them all alike.
 */
#include "cli/render/view.h"

#include "catalog/ids.h"
#include "catalog/names.h"

#include <stdlib.h>

char *wasp_view_html_script(uint32_t shown)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return NULL;
    fputs("waspViews(", out);
    wasp_json j;
    wasp_json_init(&j, out);
    wasp_json_begin_object(&j, NULL, false);
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_view *v = wasp_view_of(id);
        if (!(shown & (1u << id)) || !v)
            continue;
        wasp_view_describe(&j, wasp_analysis_id_name(id), v);
    }
    wasp_json_end_object(&j);
    fputs(");\n", out);
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
