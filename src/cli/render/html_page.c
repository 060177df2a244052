/* wasp's HTML pages (html_page.h). */
#include "cli/render/html_page.h"
#include "cli/render/html_assets.h"

#include <stdlib.h>

/* A Content-Security-Policy that lets the page load nothing from anywhere:
 * a page opened from disk must not phone home, even through a frame name. */
static const char head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";

/* Script errors are recorded on <body> before the page's script runs, so a
 * test (and a reader) can see a page whose script failed. */
static const char body[] =
    "</style>\n</head>\n<body>\n"
    "<script>window.waspErrors=[];window.addEventListener('error',function(e){"
    "window.waspErrors.push(String(e.message));"
    "document.body.setAttribute('data-errors',window.waspErrors.join('\\n'));});</script>\n"
    "<div id=\"app\">Loading&hellip; (the page needs JavaScript)</div>\n"
    "<script type=\"application/json\" id=\"wasp-data\">";

/* The JSON, with every '<' written as \u003c: '<' occurs only inside JSON
 * strings, so the data stay the same JSON, and no method or file name can
 * end the script element ("</script>") or open a comment ("<!--"). */
static void write_json_escaped(const char *json, size_t len, FILE *out)
{
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        if (json[i] != '<')
            continue;
        fwrite(json + from, 1, i - from, out);
        fputs("\\u003c", out);
        from = i + 1;
    }
    fwrite(json + from, 1, len - from, out);
}

int wasp_html_page(const char *title, const char *const *scripts, wasp_html_data_fn data,
                   const void *arg, FILE *out)
{
    char *json = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&json, &len);
    if (!mem)
        return -1;
    int rc = data(arg, mem);
    if (fclose(mem) != 0)
        rc = -1;
    if (rc == 0) {
        fputs(head, out);
        fprintf(out, "<title>%s</title>\n<style>\n", title); /* a constant of ours: no escaping */
        fputs(wasp_html_css, out);
        fputs(body, out);
        write_json_escaped(json, len, out);
        fputs("</script>\n<script>\n", out);
        fputs(wasp_html_common_js, out);
        for (const char *const *s = scripts; *s; s++) {
            fputs("</script>\n<script>\n", out);
            fputs(*s, out);
        }
        fputs("</script>\n</body>\n</html>\n", out);
    }
    free(json);
    return rc;
}
