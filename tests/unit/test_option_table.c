/*
 * The agent option table (agent/option_table.c): every row complete and
 * consistent with its own range, every row's value through the option string
 * and back, the command's flags and every help text generated from the rows,
 * and README.md's table of agent options listing exactly the rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/option_table.h"
#include "agent/options.h"
#include "catalog/names.h"
#include "cli/attach/attach.h"
#include "cli/commands/option_help.h"
#include "cli/commands/run.h"

#define FOR_ROWS(r) for (size_t i_ = 0; ((r) = wasp_option_at(i_)) != NULL; i_++)

static size_t row_count(void)
{
    size_t n = 0;
    while (wasp_option_at(n))
        n++;
    return n;
}

static size_t choice_count(const wasp_option_row *r)
{
    size_t n = 0;
    while (r->names[n])
        n++;
    return n;
}

static int nonempty(const char *s)
{
    return s && *s;
}

static char *memstream_text(void (*print)(FILE *), char **text)
{
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    assert_non_null(f);
    print(f);
    fclose(f);
    return *text;
}

/* Whether text has a line starting with prefix. */
static int has_line_starting(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *p = text; p; p = strchr(p, '\n')) {
        if (*p == '\n')
            p++;
        if (strncmp(p, prefix, n) == 0)
            return 1;
    }
    return 0;
}

/* ---- the rows themselves ---- */

static void test_rows_complete(void **state)
{
    (void)state;
    const wasp_option_row *r, *s;
    assert_true(row_count() >= 20);
    char hbuf[2048], abuf[512];
    FOR_ROWS(r) {
        const char *help = wasp_option_help(r, hbuf, sizeof hbuf);
        const char *accepted = wasp_option_accepted(r, abuf, sizeof abuf);
        if (!nonempty(r->key) || !nonempty(help) || !nonempty(accepted) || !nonempty(r->metavar))
            fail_msg("row '%s' lacks its key, help, accepted values or metavar",
                     r->key ? r->key : "?");
        if (strchr(help, '\n') || strchr(accepted, '\n'))
            fail_msg("row '%s': help and accepted text are one line each", r->key);
        assert_ptr_equal(wasp_option_find(r->key, strlen(r->key)), r); /* keys unique */
        assert_true(r->offset + r->size <= sizeof(wasp_options));
        switch (r->kind) {
        case WASP_OPT_SHARE:
            assert_int_equal(r->size, sizeof(double));
            assert_true(r->lo < r->hi);
            break;
        case WASP_OPT_PATH:
        case WASP_OPT_TOKEN:
            assert_non_null(r->def_text);
            assert_true(strlen(r->def_text) < r->size);
            break;
        case WASP_OPT_CHOICE:
            assert_non_null(r->names);
            assert_true(r->def < choice_count(r));
            assert_true(r->size == 4 || r->size == 8);
            break;
        case WASP_OPT_NUMBER:
        case WASP_OPT_DURATION:
            /* 0 with its default in words: chosen at run time (period: by
             * the analyses), never parsed. */
            if ((r->def < r->min || r->def > r->max) && !(r->def == 0 && r->default_help))
                fail_msg("row '%s': default %llu outside %llu..%llu", r->key,
                         (unsigned long long)r->def, (unsigned long long)r->min,
                         (unsigned long long)r->max);
            if (r->size == 4 && r->max > UINT32_MAX)
                fail_msg("row '%s': max does not fit its field", r->key);
            assert_true(r->size == 4 || r->size == 8);
            break;
        case WASP_OPT_EVENTS:
            assert_true(r->size == 4 || r->size == 8);
            break;
        }
        /* A flag iff some command takes it; a switch needs one. */
        unsigned cmds = r->cli & (WASP_OPT_IN_RUN | WASP_OPT_IN_ATTACH | WASP_OPT_IN_DETACH);
        if (!r->flag != !cmds)
            fail_msg("row '%s': a flag name without commands, or commands without one", r->key);
        if ((r->cli & WASP_OPT_SWITCH) && (!r->flag || r->kind != WASP_OPT_NUMBER || r->max != 1))
            fail_msg("row '%s': a switch is a 0..1 number with a flag", r->key);
        for (size_t j = 0; (s = wasp_option_at(j)) != NULL; j++) {
            if (s == r || !r->flag || !s->flag)
                continue;
            if (!strcmp(r->flag, s->flag) || (r->letter && r->letter == s->letter))
                fail_msg("rows '%s' and '%s' share a flag", r->key, s->key);
        }
    }
}

/* The accepted text states the range the parser enforces. */
static void test_accepted_text_states_range(void **state)
{
    (void)state;
    const wasp_option_row *r;
    char t[64];
    FOR_ROWS(r) {
        wasp_options o;
        wasp_options_defaults(&o);
        switch (r->kind) {
        case WASP_OPT_NUMBER:
            snprintf(t, sizeof t, "%llu", (unsigned long long)r->min);
            if (!strstr(r->accepted, t))
                fail_msg("row '%s': accepted text lacks its minimum %s", r->key, t);
            snprintf(t, sizeof t, "%llu", (unsigned long long)r->max);
            if (!strstr(r->accepted, t))
                fail_msg("row '%s': accepted text lacks its maximum %s", r->key, t);
            break;
        case WASP_OPT_DURATION: {
            const uint64_t ends[2] = {r->min, r->max};
            for (int e = 0; e < 2; e++) {
                memcpy((char *)&o + r->offset, &ends[e], sizeof ends[e]);
                assert_int_equal(wasp_option_value_text(r, &o, t, sizeof t), 0);
                if (!strstr(r->accepted, t))
                    fail_msg("row '%s': accepted text lacks %s", r->key, t);
            }
            break;
        }
        case WASP_OPT_SHARE:
            snprintf(t, sizeof t, "from %g", r->lo);
            if (!strstr(r->accepted, t))
                fail_msg("row '%s': accepted text lacks '%s'", r->key, t);
            snprintf(t, sizeof t, "%g", r->hi);
            if (!strstr(r->accepted, t))
                fail_msg("row '%s': accepted text lacks its maximum %s", r->key, t);
            break;
        case WASP_OPT_CHOICE:
            for (size_t k = 0; r->names[k]; k++)
                if (!strstr(r->accepted, r->names[k]))
                    fail_msg("row '%s': accepted text lacks '%s'", r->key, r->names[k]);
            break;
        case WASP_OPT_EVENTS: {
            /* Help and messages name every analysis of the list (`wasp help
             * agent` once omitted one added later). */
            char help[2048], accepted[512], pat[64];
            wasp_option_help(r, help, sizeof help);
            wasp_option_accepted(r, accepted, sizeof accepted);
            for (int id = 0; id < WASP_ANALYSES; id++) {
                snprintf(pat, sizeof pat, " %s =", wasp_analysis_id_name(id));
                if (!strstr(help, pat))
                    fail_msg("row '%s': help lacks '%s'", r->key, pat);
                snprintf(pat, sizeof pat, " %s,", wasp_analysis_id_name(id));
                if (!strstr(accepted, pat))
                    fail_msg("row '%s': accepted text lacks '%s'", r->key, pat);
            }
            break;
        }
        default:
            break;
        }
    }
}

/* ---- values through the option string ---- */

/* Up to four valid values of r other than its default, set into o[]. */
static int other_values(const wasp_option_row *r, wasp_options o[4])
{
    int n = 0;
    for (int k = 0; k < 4; k++)
        wasp_options_defaults(&o[k]);
    char *f;
    switch (r->kind) {
    case WASP_OPT_EVENTS: {
        const uint32_t lists[] = {1u, 1u << WASP_EVENT_OBJECTS | 1u << WASP_EVENT_REPLICAS,
                                  (1u << WASP_EVENT_COUNT) - 1u};
        for (size_t k = 0; k < 3; k++)
            memcpy((char *)&o[n++] + r->offset, &lists[k], sizeof lists[k]);
        break;
    }
    case WASP_OPT_PATH:
    case WASP_OPT_TOKEN: {
        const char *texts[] = {"/tmp/dir=x/a.out", "X:Y:ldlat=3"};
        for (size_t k = 0; k < 2; k++) {
            f = (char *)&o[n++] + r->offset;
            snprintf(f, r->size, "%s", texts[k]);
        }
        break;
    }
    case WASP_OPT_CHOICE:
        for (uint32_t v = 0; v < choice_count(r) && n < 4; v++)
            if (v != r->def)
                memcpy((char *)&o[n++] + r->offset, &v, sizeof v);
        break;
    case WASP_OPT_NUMBER:
    case WASP_OPT_DURATION: {
        const uint64_t vals[] = {r->min, r->max, r->min + (r->max - r->min) / 3};
        for (size_t k = 0; k < 3; k++) {
            if (vals[k] == r->def)
                continue;
            if (r->size == 4) {
                uint32_t v = (uint32_t)vals[k];
                memcpy((char *)&o[n++] + r->offset, &v, sizeof v);
            } else {
                memcpy((char *)&o[n++] + r->offset, &vals[k], sizeof vals[k]);
            }
        }
        break;
    }
    case WASP_OPT_SHARE: {
        const double vals[] = {r->lo, r->hi_open ? nextafter(r->hi, r->lo) : r->hi,
                               r->lo + (r->hi - r->lo) / 3};
        for (size_t k = 0; k < 3; k++)
            memcpy((char *)&o[n++] + r->offset, &vals[k], sizeof vals[k]);
        break;
    }
    }
    return n;
}

static void assert_field_equal(const wasp_option_row *r, const wasp_options *a,
                               const wasp_options *b)
{
    const char *fa = (const char *)a + r->offset, *fb = (const char *)b + r->offset;
    if (r->kind == WASP_OPT_PATH || r->kind == WASP_OPT_TOKEN) {
        if (strcmp(fa, fb) != 0)
            fail_msg("row '%s': '%s' came back as '%s'", r->key, fa, fb);
    } else if (memcmp(fa, fb, r->size) != 0) {
        fail_msg("row '%s': the value did not come back", r->key);
    }
}

/* format∘parse: each row's non-default value is written alone, as key=TEXT,
 * and reads back the same. */
static void test_every_row_round_trips(void **state)
{
    (void)state;
    const wasp_option_row *r;
    FOR_ROWS(r) {
        wasp_options o[4];
        int n = other_values(r, o);
        assert_true(n >= 1);
        for (int k = 0; k < n; k++) {
            char buf[3 * WASP_PATH_MAX], text[WASP_PATH_MAX], want[2 * WASP_PATH_MAX];
            char err[512];
            assert_false(wasp_option_is_default(r, &o[k]));
            if (wasp_options_format(&o[k], buf, sizeof buf) < 0)
                fail_msg("row '%s': value %d cannot be formatted", r->key, k);
            assert_int_equal(wasp_option_value_text(r, &o[k], text, sizeof text), 0);
            snprintf(want, sizeof want, "%s=%s", r->key, text);
            assert_string_equal(buf, want);
            wasp_options back;
            if (wasp_options_parse(buf, &back, err, sizeof err) != 0)
                fail_msg("row '%s': '%s' does not parse: %s", r->key, buf, err);
            assert_field_equal(r, &o[k], &back);
            /* The whole struct too: nothing else moved. */
            char again[3 * WASP_PATH_MAX];
            assert_true(wasp_options_format(&back, again, sizeof again) >= 0);
            assert_string_equal(again, buf);
        }
    }
}

/* Every row set at once, and the defaults (an empty string). */
static void test_all_rows_together(void **state)
{
    (void)state;
    wasp_options all, back, d;
    wasp_options_defaults(&all);
    wasp_options_defaults(&d);
    const wasp_option_row *r;
    FOR_ROWS(r) {
        wasp_options o[4];
        other_values(r, o);
        wasp_option_copy(r, &all, &o[0]);
        assert_false(wasp_option_is_default(r, &all));
        assert_true(wasp_option_is_default(r, &d));
    }
    char buf[3 * WASP_PATH_MAX], err[512];
    assert_true(wasp_options_format(&all, buf, sizeof buf) > 0);
    assert_int_equal(wasp_options_parse(buf, &back, err, sizeof err), 0);
    FOR_ROWS(r)
        assert_field_equal(r, &all, &back);
    assert_int_equal(wasp_options_format(&d, buf, sizeof buf), 0);
}

/* ---- the command's flags ---- */

/* Each agent-backed flag sets what its key does in the option string. */
static void test_flags_set_their_field(void **state)
{
    (void)state;
    const wasp_option_row *r;
    FOR_ROWS(r) {
        if (!r->flag)
            continue;
        wasp_options o[4];
        other_values(r, o);
        char text[WASP_PATH_MAX], flag[64], err[1024];
        const wasp_cli_cmd cmds[] = {WASP_CLI_RUN, WASP_CLI_ATTACH, WASP_CLI_DETACH};
        const unsigned bits[] = {WASP_OPT_IN_RUN, WASP_OPT_IN_ATTACH, WASP_OPT_IN_DETACH};
        for (int c = 0; c < 3; c++) {
            int is_switch = (r->cli & WASP_OPT_SWITCH) != 0;
            wasp_options *want = &o[0];
            if (is_switch) {
                uint32_t one = 1;
                memcpy((char *)want + r->offset, &one, sizeof one);
            }
            assert_int_equal(wasp_option_value_text(r, want, text, sizeof text), 0);
            snprintf(flag, sizeof flag, "--%s", r->flag);
            char *argv[8];
            int argc = 0;
            argv[argc++] = (char *)wasp_cli_cmd_name(cmds[c]);
            argv[argc++] = flag;
            if (!is_switch)
                argv[argc++] = text;
            if (cmds[c] == WASP_CLI_RUN) {
                argv[argc++] = "--";
                argv[argc++] = "java";
            } else {
                argv[argc++] = "77";
            }
            argv[argc] = NULL;
            wasp_run_config cfg;
            int rc = wasp_cli_parse_args(cmds[c], argc, argv, &cfg, err, sizeof err);
            if (!(r->cli & bits[c])) {
                assert_int_equal(rc, WASP_RUN_ERROR);
                continue;
            }
            if (rc != WASP_RUN_OK)
                fail_msg("%s %s %s: %s", argv[0], flag, is_switch ? "" : text, err);
            assert_field_equal(r, want, &cfg.agent);
            if (r->letter) { /* -X VALUE does the same */
                char shrt[3] = {'-', r->letter, '\0'};
                argv[1] = shrt;
                assert_int_equal(wasp_cli_parse_args(cmds[c], argc, argv, &cfg, err, sizeof err),
                                 WASP_RUN_OK);
                assert_field_equal(r, want, &cfg.agent);
            }
        }
    }
}

/* ---- help ---- */

static void print_agent_help(FILE *f)
{
    wasp_option_help_agent(f);
}

static void print_attach_usage(FILE *f)
{
    wasp_attach_usage(f);
}

static void test_help_lists_every_key(void **state)
{
    (void)state;
    char *agent = NULL, *run = NULL, *attach = NULL;
    memstream_text(print_agent_help, &agent);
    memstream_text(wasp_run_usage, &run);
    memstream_text(print_attach_usage, &attach);
    const wasp_option_row *r;
    char head[128], text[2048], hbuf[2048], abuf[512];
    FOR_ROWS(r) {
        const char *help = wasp_option_help(r, hbuf, sizeof hbuf);
        const char *accepted = wasp_option_accepted(r, abuf, sizeof abuf);
        snprintf(head, sizeof head, "  %s=%s", r->key, r->metavar);
        if (!has_line_starting(agent, head))
            fail_msg("wasp help agent lacks '%s'", head);
        assert_int_equal(wasp_option_help_text(r, 0, text, sizeof text), 0);
        if (!strstr(text, help) || !strstr(text, "(default: "))
            fail_msg("row '%s': help text without its help or default: %s", r->key, text);
        if (r->kind != WASP_OPT_CHOICE && !strstr(text, accepted))
            fail_msg("row '%s': help text without the accepted values: %s", r->key, text);
        if (!r->flag)
            continue;
        snprintf(head, sizeof head, "--%s%s", r->flag, (r->cli & WASP_OPT_SWITCH) ? "" : " ");
        char lettered[160], plain[160];
        snprintf(lettered, sizeof lettered, "  -%c, %s", r->letter, head);
        snprintf(plain, sizeof plain, "      %s", head);
        const char *want = r->letter ? lettered : plain;
        if (!!(r->cli & WASP_OPT_IN_RUN) != has_line_starting(run, want))
            fail_msg("wasp run --help and the table disagree on '%s'", want);
        if (!!(r->cli & WASP_OPT_IN_ATTACH) != has_line_starting(attach, want))
            fail_msg("wasp attach --help and the table disagree on '%s'", want);
    }
    /* Generated lines keep to the width of the rest of the help. */
    for (const char *p = agent; *p;) {
        size_t n = strcspn(p, "\n");
        if (n > 79)
            fail_msg("help line wider than 79 columns: %.*s", (int)n, p);
        p += n + (p[n] == '\n');
    }
    free(agent);
    free(run);
    free(attach);
}

/* ---- README.md ---- */

/* README.md beside this file's tests/unit/ (the path the compiler was given,
 * relative to the repository when make builds it). */
static FILE *open_readme(void)
{
    const char *me = __FILE__, *tail = strstr(me, "tests/unit/");
    char path[4096];
    snprintf(path, sizeof path, "%.*sREADME.md", tail ? (int)(tail - me) : 0, me);
    return fopen(path, "r");
}

/* The cell'th cell of a markdown table row (0-based), trimmed, into out. */
static int table_cell(const char *line, int cell, char *out, size_t n)
{
    const char *p = line;
    for (int c = 0; c <= cell; c++) {
        p = strchr(p, '|');
        if (!p)
            return -1;
        p++;
    }
    size_t len = strcspn(p, "|\n");
    while (len && p[0] == ' ')
        p++, len--;
    while (len && p[len - 1] == ' ')
        len--;
    snprintf(out, n, "%.*s", (int)len, p);
    return 0;
}

/* README's table of agent options (the one whose header starts "| agent
 * option") has one row per key, each naming the flag the table gives it. */
static void test_readme_lists_every_key(void **state)
{
    (void)state;
    FILE *f = open_readme();
    if (!f)
        fail_msg("cannot open README.md (run the tests from the repository)");
    char line[2048], key[256], flags[256];
    int in_table = 0;
    size_t n = row_count(), seen_count = 0;
    int *seen = calloc(n, sizeof *seen);
    assert_non_null(seen);
    while (fgets(line, sizeof line, f)) {
        if (!in_table) {
            in_table = strncmp(line, "| agent option", 14) == 0;
            continue;
        }
        if (line[0] != '|')
            break;
        if (strncmp(line, "| ---", 5) == 0)
            continue;
        assert_int_equal(table_cell(line, 0, key, sizeof key), 0);
        assert_int_equal(table_cell(line, 1, flags, sizeof flags), 0);
        if (key[0] != '`')
            fail_msg("README: the first cell should be `key=...`: %s", line);
        size_t klen = strcspn(key + 1, "=`");
        const wasp_option_row *r = wasp_option_find(key + 1, klen);
        if (!r)
            fail_msg("README lists '%.*s', which is no agent option", (int)klen, key + 1);
        size_t idx = 0;
        while (wasp_option_at(idx) != r)
            idx++;
        if (seen[idx]++)
            fail_msg("README lists '%s' twice", r->key);
        seen_count++;
        char want[80];
        if (r->letter)
            snprintf(want, sizeof want, "-%c", r->letter);
        else if (r->flag)
            snprintf(want, sizeof want, "--%s", r->flag);
        if (r->flag && !strstr(flags, want))
            fail_msg("README: '%s' should name the flag %s: %s", r->key, want, line);
        if (!r->flag && strchr(flags, '-'))
            fail_msg("README: '%s' has no flag, but the table names one: %s", r->key, line);
    }
    fclose(f);
    assert_true(in_table);
    for (size_t k = 0; k < n; k++)
        if (!seen[k])
            fail_msg("README's agent option table lacks '%s'", wasp_option_at(k)->key);
    assert_int_equal(seen_count, n);
    free(seen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_complete),
        cmocka_unit_test(test_accepted_text_states_range),
        cmocka_unit_test(test_every_row_round_trips),
        cmocka_unit_test(test_all_rows_together),
        cmocka_unit_test(test_flags_set_their_field),
        cmocka_unit_test(test_help_lists_every_key),
        cmocka_unit_test(test_readme_lists_every_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
