/*
 * Help texts from the agent option table: each row printed as a head
 * ("  period=DURATION", "      --period DURATION") and its text wrapped in a
 * column beside it, like the rest of wasp's help.
 */
#include "cli/commands/option_help.h"

#include <string.h>

#define LINE_WIDTH 79
#define AGENT_COLUMN 25 /* where the text starts in `wasp help agent` */
#define FLAG_COLUMN 27  /* and in `wasp run --help` */

int wasp_option_help_text(const wasp_option_row *r, int as_flag, char *buf, size_t n)
{
    char help[1024], accepted[512];
    const char *text = wasp_option_help(r, help, sizeof help);
    if (as_flag && (r->cli & WASP_OPT_SWITCH)) {
        int w = snprintf(buf, n, "%s", text);
        return (w < 0 || (size_t)w >= n) ? -1 : 0;
    }
    const char *def = as_flag && r->flag_default_help ? r->flag_default_help : r->default_help;
    char value[128];
    if (!def) {
        wasp_options d;
        wasp_options_defaults(&d);
        if (wasp_option_value_text(r, &d, value, sizeof value) < 0)
            snprintf(value, sizeof value, "none");
        def = value;
    }
    /* A choice's names are in its metavar already ("auto|perf|timer|pmu"). */
    int w = r->kind == WASP_OPT_CHOICE
                ? snprintf(buf, n, "%s (default: %s)", text, def)
                : snprintf(buf, n, "%s; %s (default: %s)", text,
                           wasp_option_accepted(r, accepted, sizeof accepted), def);
    return (w < 0 || (size_t)w >= n) ? -1 : 0;
}

/* head, then text from column col, broken between words to fit LINE_WIDTH;
 * a head too wide for the column gets a line of its own. */
static void print_item(FILE *out, const char *head, int col, const char *text)
{
    int at = fprintf(out, "%s", head);
    if (at + 2 > col) {
        fputc('\n', out);
        at = 0;
    }
    fprintf(out, "%*s", col - at, "");
    at = col;
    for (const char *p = text; *p;) {
        size_t word = strcspn(p, " ");
        if (at > col && at + 1 + (int)word > LINE_WIDTH) {
            fprintf(out, "\n%*s", col, "");
            at = col;
        } else if (at > col) {
            fputc(' ', out);
            at++;
        }
        fwrite(p, 1, word, out);
        at += (int)word;
        p += word;
        p += strspn(p, " ");
    }
    fputc('\n', out);
}

void wasp_option_help_agent(FILE *out)
{
    const wasp_option_row *r;
    char head[128], text[2048];
    for (size_t i = 0; (r = wasp_option_at(i)); i++) {
        snprintf(head, sizeof head, "  %s=%s", r->key, r->metavar);
        if (wasp_option_help_text(r, 0, text, sizeof text) == 0)
            print_item(out, head, AGENT_COLUMN, text);
    }
}

void wasp_option_help_flags(FILE *out, unsigned cmd_bit)
{
    const wasp_option_row *r;
    char head[128], text[2048];
    for (size_t i = 0; (r = wasp_option_at(i)); i++) {
        if (!r->flag || !(r->cli & cmd_bit))
            continue;
        int has_value = !(r->cli & WASP_OPT_SWITCH);
        if (r->letter)
            snprintf(head, sizeof head, "  -%c, --%s%s%s", r->letter, r->flag,
                     has_value ? " " : "", has_value ? r->metavar : "");
        else
            snprintf(head, sizeof head, "      --%s%s%s", r->flag, has_value ? " " : "",
                     has_value ? r->metavar : "");
        if (wasp_option_help_text(r, 1, text, sizeof text) == 0)
            print_item(out, head, FLAG_COLUMN, text);
    }
}
