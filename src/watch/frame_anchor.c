/*
 * The frame anchor's layout (see frame_anchor.h), filled by the agent.
 *
 * ASYNC-SIGNAL-SAFE: data only.
 */
#include "watch/frame_anchor.h"

wasp_frame_anchor_layout wasp_frame_anchor;
