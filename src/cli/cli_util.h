/*
 * Small helpers shared by the wasp subcommands: paths and numbers.
 * Pure functions except wasp_cli_exe_dir (reads /proc/self/exe).
 */
#ifndef WASP_CLI_UTIL_H
#define WASP_CLI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Unsigned decimal in [lo, hi]: digits only, no sign, no trailing garbage.
 * Returns 0 or -1. */
int wasp_cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* path made absolute against cwd (kept as is when it already starts with
 * '/'). No normalization: "a/../b" stays. Returns 0, or -1 when path is
 * empty or the result does not fit. */
int wasp_cli_abs_path(const char *cwd, const char *path, char *out, size_t outlen);

/* The directory holding the running executable (dirname of /proc/self/exe).
 * Returns 0 or -1. */
int wasp_cli_exe_dir(char *out, size_t outlen);

/* How much of a value messages quote back (as options.c does). */
#define WASP_CLI_ITEM_SHOWN 200

/* The part of an options.c message worth showing to a CLI user: for
 * "wasp: bad option 'ITEM': DETAIL" it is DETAIL, otherwise msg without its
 * "wasp: " prefix. Returns a pointer into msg. */
const char *wasp_cli_option_detail(const char *msg, const char *item);

/* "--name VALUE" or "--name=VALUE" at argv[*i]: the value, advancing *i past
 * it; NULL when absent (then *matched says whether the option was there
 * without a value). */
const char *wasp_cli_option_value(int argc, char **argv, int *i, const char *name,
                                  bool *matched);
/* "wasp CMD: <message>" and "Try 'wasp CMD --help'." on stderr; returns 2
 * (the usage-error exit status). */
int wasp_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
