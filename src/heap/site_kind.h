/*
 * What kind of object an allocation site makes, as far as an access can be
 * checked against it: the element type of a primitive array, or nothing
 * known (objects of classes: their field layout is not tracked). Set when a
 * site is created, before any of its objects is in the object map; read in
 * the handler to refuse an attribution whose access cannot be to such an
 * object (a double load attributed to an int[]: a stale map or a neighbour).
 *
 * ASYNC-SIGNAL-SAFE: wasp_site_kind_fits (a table read).
 */
#ifndef WASP_SITE_KIND_H
#define WASP_SITE_KIND_H

#include <stdint.h>

enum { WASP_SITE_KINDS_MAX = 1u << 16 };

/* A kind: an array's element size (1, 2, 4, 8), with WASP_KIND_FLOAT for
 * float[] and double[]; 0 when nothing is known. */
enum { WASP_KIND_FLOAT = 0x80, WASP_KIND_SIZE_MASK = 0x0f };

/* Record site's class ("int[]", "java.lang.String"); sites past the table's
 * end stay unknown. Not in a handler. */
void wasp_site_kind_set(uint32_t site, const char *class_name);

/* This JVM's array headers: the bytes before the first element of an array
 * of elements of 1 << i bytes (i = 0..3), from the arrays' layout helpers
 * (agent/java_names.h, wasp_java_array_headers). 16 each until set (compressed
 * class pointers); 20 or 24 without them, 12 or 16 with compact object
 * headers. A value outside 8..32 leaves its entry unchanged. Not in a
 * handler; may be called while handlers read the table. */
void wasp_site_kind_set_headers(const uint32_t header[4]);
/* The header of an array of kind k (0: 16 bytes, or the smallest set). */
uint32_t wasp_site_kind_header(uint8_t kind);

/* Can an access of `size` bytes at `offset` in an object of site (any site:
 * a scalar access must be naturally aligned, as HotSpot lays out fields and
 * elements), whose value type is float/double
 * (float_size 4 or 8, else 0) touch an object of site? 1 when it can or
 * nothing is known. Float accesses must match a float[]/double[] element;
 * integer ones must be at least an element wide (copies and fills move any
 * array with integer moves of an element or more). */
int wasp_site_kind_fits(uint32_t site, uint64_t offset, uint32_t size, uint8_t float_size);

/* The same rule for an object of a known kind whose first `header` bytes
 * are its header (accesses there always fit): what heap/java_object.c
 * checks an object found by its header against. */
int wasp_kind_fits(uint8_t kind, uint32_t header, uint64_t offset, uint32_t size,
                   uint8_t float_size);

#endif
