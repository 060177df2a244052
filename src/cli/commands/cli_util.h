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

/* A whole number of seconds in [lo, hi], bare or with a unit: "90", "90s",
 * "5m", "2h" (as JFR's durations are written). Returns 0 or -1. */
int wasp_cli_parse_seconds(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

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
/* The one message a subcommand gives for a bad option value, naming the
 * option as the user wrote it and what it accepts:
 * "bad option '--by file': expected line or instruction" ("bad option
 * '--by': ..." when value is NULL or empty). Returns -1. */
int wasp_cli_bad_option(char *err, size_t errlen, const char *option, const char *value,
                        const char *expected);

/* A value from a list (the choice options of the subcommands): the index of
 * value in names[0..n) (NULL entries are not accepted), or -1 with err set
 * by wasp_cli_bad_option to "expected a, b or c" (every accepted name). */
int wasp_cli_parse_choice(const char *option, const char *value, const char *const *names,
                          size_t n, char *err, size_t errlen);

/* The accepted names of a list joined by sep, the last two by last_sep
 * (", " and " or ": "a, b or c"). */
void wasp_cli_join_names(const char *const *names, size_t n, const char *sep,
                         const char *last_sep, char *out, size_t outlen);

/* "wasp CMD: <message>" and "Try 'wasp CMD --help'." on stderr; returns 2
 * (the usage-error exit status). */
int wasp_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
