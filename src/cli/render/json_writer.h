/*
 * A minimal streaming JSON writer: keeps the comma and indentation state of
 * nested containers so renderers only say what to emit. Output is always
 * valid JSON: strings are escaped (invalid UTF-8 becomes U+FFFD) and
 * non-finite doubles become null.
 */
#ifndef WASP_CLI_JSON_WRITER_H
#define WASP_CLI_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { WASP_JSON_MAX_DEPTH = 32 };

struct wasp_json_memo;

typedef struct wasp_json {
    FILE *out;
    /* Frames already written, as text to copy (json_frame_memo.h); NULL:
     * every frame is formatted anew. Owned by whoever set it. */
    struct wasp_json_memo *frame_memo;
    int depth;
    bool first[WASP_JSON_MAX_DEPTH];   /* no member written yet at this depth */
    bool compact[WASP_JSON_MAX_DEPTH]; /* container written on one line */
} wasp_json;

void wasp_json_init(wasp_json *j, FILE *out);

/* key is the member name inside an object, NULL inside an array or at the
 * top. compact containers go on one line (and so do their children). */
void wasp_json_begin_object(wasp_json *j, const char *key, bool compact);
void wasp_json_end_object(wasp_json *j);
void wasp_json_begin_array(wasp_json *j, const char *key, bool compact);
void wasp_json_end_array(wasp_json *j);

void wasp_json_string(wasp_json *j, const char *key, const char *s); /* NULL: null */
void wasp_json_double(wasp_json *j, const char *key, double v);
void wasp_json_u64(wasp_json *j, const char *key, uint64_t v);
void wasp_json_i64(wasp_json *j, const char *key, int64_t v);
void wasp_json_bool(wasp_json *j, const char *key, bool v);
void wasp_json_null(wasp_json *j, const char *key);

/* A value already written as JSON text (len bytes), e.g. by another writer. */
void wasp_json_raw(wasp_json *j, const char *key, const char *text, size_t len);

/* Writes s as a JSON string literal, quotes included. */
void wasp_json_escape(FILE *out, const char *s);

#endif
