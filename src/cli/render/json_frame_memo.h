/*
 * The JSON report's frames, each formatted once. A large report writes the
 * same few thousand frames millions of times (every context of every pair and
 * access lists its frames in full); escaping the names and printing the line
 * each time was the largest part of its cost. The memo keeps each frame's
 * text ({"kind": ..., "line": N}) as the writer makes it, and the report
 * copies it: the output is the same bytes.
 */
#ifndef WASP_CLI_JSON_FRAME_MEMO_H
#define WASP_CLI_JSON_FRAME_MEMO_H

#include "cli/render/json_writer.h"
#include "profile/profile.h"

/* A memo for p's frames (p must outlive it), or NULL when out of memory
 * (frames are then formatted each time). */
struct wasp_json_memo *wasp_json_memo_new(const wasp_profile *p);
void wasp_json_memo_free(struct wasp_json_memo *m);

/* Frame f of p as one compact JSON object into j's current array. */
void wasp_json_frame(wasp_json *j, const wasp_profile *p, uint32_t f);

#endif
