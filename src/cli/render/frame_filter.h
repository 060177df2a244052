/*
 * Frame patterns (`wasp report --include/--exclude`, and the list of JVM
 * start-up frames, startup_frames.c): a glob matched against a frame's
 * method, and the report's filter of whole stacks built on it
 * (docs/findings.md, "Choosing what is shown").
 */
#ifndef WASP_CLI_FRAME_FILTER_H
#define WASP_CLI_FRAME_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"

/* Does the whole of s match pattern? '*' matches any run of characters
 * (dots, '$' and "::" included, so "com.acme.*" covers subpackages), '?'
 * any one character, anything else itself; case counts. */
bool wasp_glob_match(const char *pattern, const char *s);

/* The name a pattern is matched against: a Java frame's "pkg.Class.method",
 * a native frame's symbol without its library ("libjvm.so`X" gives "X"). */
const char *wasp_frame_method(const wasp_profile *p, const wasp_frame *f);

/* Does any frame of c match any of the n patterns? */
bool wasp_context_matches(const wasp_profile *p, const wasp_context *c,
                          const char *const *patterns, int n);

enum { WASP_FRAME_PATTERNS_MAX = 16 }; /* --include, and --exclude, each */

/* Async-profiler's and JMC's rule: whole stacks are kept or hidden. A
 * stack is hidden when it has no frame matching an --include pattern
 * (there being some), or a frame matching an --exclude pattern, or (--thread
 * patterns given) it is of no thread they match. */
typedef struct wasp_frame_filter {
    const char *include[WASP_FRAME_PATTERNS_MAX];
    const char *exclude[WASP_FRAME_PATTERNS_MAX];
    const char *thread[WASP_FRAME_PATTERNS_MAX]; /* --thread: thread_filter.h */
    int ninclude, nexclude, nthread;
} wasp_frame_filter;

/* The stand-in frame of the hidden stacks (wasp_context_filter). */
#define WASP_HIDDEN_FRAME "[stacks hidden by --include/--exclude]"

/* The metadata key of a filtered profile's filter text (the report's header
 * and summary say what was hidden). */
#define WASP_FILTER_META "report.filter"

/* wasp_context_filter's hide for a wasp_frame_filter (arg). */
bool wasp_frame_filter_hides(const wasp_profile *p, const wasp_context *c, const void *arg);

/* Is c the stand-in of hidden stacks? */
bool wasp_context_hidden(const wasp_profile *p, const wasp_context *c);

/* The filter as options ("--include com.acme.* --exclude *.toString"),
 * cut to fit buf; "" when it has no pattern. */
const char *wasp_frame_filter_text(const wasp_frame_filter *f, char *buf, size_t n);

#endif
