/*
 * Human-readable numbers for the text report. Each writes into buf and
 * returns it, so calls can sit inside a printf argument list.
 */
#ifndef WASP_CLI_UNITS_H
#define WASP_CLI_UNITS_H

#include <stddef.h>
#include <stdint.h>

enum { WASP_UNIT_BUF = 32 };

/* 999 B, 1.2 KiB, 3.4 MiB (binary units: 1 KiB = 1024 B). */
const char *wasp_fmt_bytes(double bytes, char *buf, size_t n);
/* A fraction as a percentage: 42.1%, <0.1% (tiny but nonzero), 0.0%. */
const char *wasp_fmt_percent(double fraction, char *buf, size_t n);
/* 12,345 (rounded); small non-integers keep one decimal: 0.5. */
const char *wasp_fmt_count(double count, char *buf, size_t n);
const char *wasp_fmt_u64(uint64_t v, char *buf, size_t n);
/* 850 ms, 3.21 s, 12 s, 2 min 05 s, 1 h 02 min. */
const char *wasp_fmt_duration_ns(uint64_t ns, char *buf, size_t n);

#endif
