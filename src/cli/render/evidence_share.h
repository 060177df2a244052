/*
 * What share of an analysis's evidence some of its stacks hold: its
 * weighted stacks (report_part.h's `stacks`: bytes for the pair analyses,
 * samples for the others; each side of an entry counted), those picked over
 * all. Tells the summary how much is start-up work (startup_frames.h) or
 * was hidden by --include/--exclude (frame_filter.h).
 */
#ifndef WASP_CLI_EVIDENCE_SHARE_H
#define WASP_CLI_EVIDENCE_SHARE_H

#include <stdbool.h>

#include "profile/profile.h"

typedef bool (*wasp_context_pick)(const wasp_profile *p, const wasp_context *c);

/* The share (0..1) of analysis id's stack weight whose context pick
 * picks; NAN when it has none (or no stacks). -1 when out of memory. */
double wasp_evidence_share(const wasp_profile *p, int id, wasp_context_pick pick);

#endif
