/*
 * Grouping by source line. A profile keys contexts by their frames and their
 * leaf machine instruction, so one source-level pair can show up many times:
 * the loads of an unrolled loop, the C1 and C2 copies of a method. A Java
 * developer wants those as one entry; `wasp report --by line` shows this view.
 * The same re-adding bounds a long session's profile (wasp_profile_prune).
 */
#ifndef WASP_PROFILE_GROUP_H
#define WASP_PROFILE_GROUP_H

#include "profile/profile.h"

/* A new profile with p's metadata, counters, totals and merged count, whose
 * contexts are p's re-interned by frames only and whose pairs with equal
 * (analysis, flags, watch frames, trap frames) are summed. A grouped context
 * shows the instruction of its heaviest original context (most bytes over
 * the pairs using it; a known instruction beats an unknown one; ties go to
 * the lower context id), suffixed " (+N more instruction[s])" when N other
 * known instructions were merged into it. Object data likewise: sites with
 * equal (allocation frames, class) are summed, and so are the accesses of a
 * site with equal access frames (their context shows the instruction with
 * the most samples, "(+N more ...)" as above). Contexts are grouped apart per
 * analysis, for object accesses, for allocations and for replica
 * comparisons, so each shows an instruction of its own kind. Replica
 * records of a site with equal comparison frames are summed (their context
 * shows the instruction with the most comparisons), and the checks of
 * sites that became one are merged as wasp_profile_merge does. NULL when out of memory or when p
 * is inconsistent (ids out of range). Free with wasp_profile_free. */
wasp_profile *wasp_profile_group_by_line(const wasp_profile *p);

/* How contexts are keyed: as recorded (frames and leaf instruction), by
 * their frames (the leaf instruction of the heaviest shown, as above), or
 * by their frames' methods (kind, name and file; lines ignored and shown as
 * unknown, -1: `wasp report --by method`). */
typedef enum { WASP_GROUP_EXACT, WASP_GROUP_LINE, WASP_GROUP_METHOD } wasp_group_key;

/* Contexts a report hides (`wasp report --include/--exclude`): those for
 * which hide returns true are replaced by one context whose single frame is
 * named `frame`, so the entries that used them sum under it and every total
 * stays that of the whole profile. */
typedef struct wasp_context_filter {
    bool (*hide)(const wasp_profile *p, const wasp_context *c, const void *arg);
    const void *arg;
    const char *frame;
} wasp_context_filter;

/* wasp_profile_group_by_line generalised: contexts keyed by key, those
 * filter hides (NULL: none) sent to its stand-in. Under WASP_GROUP_EXACT
 * nothing is summed but what the filter hides. NULL when out of memory or
 * when p is inconsistent. */
wasp_profile *wasp_profile_group(const wasp_profile *p, wasp_group_key key,
                                 const wasp_context_filter *filter);

/* The name of the one frame of the context that stands for pruned ones. */
#define WASP_PRUNED_FRAME "[lighter contexts, merged to bound wasp's memory]"
/* Threads (profile/thread_frame.h) whose pruned contexts keep their thread
 * as their placeholder's root; the others share the one placeholder. */
enum { WASP_GROUP_THREADS = 64 };

/* Bounding a long session's profile: a new profile with p's metadata,
 * counters and totals in which each kind of context (as grouping keeps them
 * apart) has at most keep contexts: the heaviest (by the weights grouping
 * uses), the others replaced by one context whose single frame is
 * WASP_PRUNED_FRAME (under its thread's frame, for a context that has one:
 * one placeholder per thread), so that their entries sum under it. Contexts nothing
 * uses are left out. *pruned (when not NULL): how many were replaced. NULL
 * when out of memory or when p is inconsistent. */
wasp_profile *wasp_profile_prune(const wasp_profile *p, uint32_t keep, uint32_t *pruned);

#endif
