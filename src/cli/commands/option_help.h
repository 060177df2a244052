/*
 * Help texts read from the agent option table (agent/option_table.h): `wasp
 * help agent` (key=VALUE) and the agent-backed flags of `wasp run` and `wasp
 * attach` (--flag VALUE), so neither can drift from what the parser takes.
 */
#ifndef WASP_CLI_OPTION_HELP_H
#define WASP_CLI_OPTION_HELP_H

#include <stddef.h>
#include <stdio.h>

#include "agent/option_table.h"

/* Every agent option as "  key=VALUE   text", in table order. */
void wasp_option_help_agent(FILE *out);

/* The flags of the rows whose cli has cmd_bit (WASP_OPT_IN_RUN,
 * WASP_OPT_IN_ATTACH), as "  -e, --events LIST   text". */
void wasp_option_help_flags(FILE *out, unsigned cmd_bit);

/* A row's text: "<help>; <accepted> (default: <default>)" (a choice: no
 * accepted, its metavar lists the names), the default as the command line
 * has it when as_flag (a switch: the help alone). Returns 0, or -1 when buf
 * is too small. */
int wasp_option_help_text(const wasp_option_row *r, int as_flag, char *buf, size_t n);

#endif
