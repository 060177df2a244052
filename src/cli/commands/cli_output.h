/*
 * The output of `wasp report` and `wasp diff`: standard output, or a file
 * replaced safely (common/safe_open.h), with a large buffer (a full JSON
 * report is 100+ MB: 4 KiB writes spent a fifth of its time in the kernel),
 * and every write error reported once, at the end, as "wasp CMD: WHERE: why".
 */
#ifndef WASP_CLI_OUTPUT_H
#define WASP_CLI_OUTPUT_H

#include <stdio.h>

/* path NULL or "-": standard output. NULL after printing "wasp CMD: why".
 * One output is open at a time (they share the buffer). */
FILE *wasp_cli_output_open(const char *cmd, const char *path);

/* Flushes and closes out (not standard output). rc: the renderer's (0, or -1
 * with errno set or 0). Prints the failure, if any; returns 0 when all was
 * written, else 1. Call with errno cleared before rendering. */
int wasp_cli_output_close(const char *cmd, const char *path, FILE *out, int rc);

#endif
