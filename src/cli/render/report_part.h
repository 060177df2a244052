/*
 * An analysis's part in the report (`wasp report`): whether a profile shows
 * it, what it adds to the text header, its text section and its JSON member
 * (docs/report-json.md). The renderers (render_text.c, render_json.c) write
 * the run's header and call the parts of the analyses shown, in registry
 * order, naming none of them. Registry: cli/render/report_parts.c, from
 * catalog/list.h; the file is src/analysis/NAME/report.c.
 *
 * Below the ops table: what parts share to print contexts and sites the same
 * way everywhere.
 */
#ifndef WASP_CLI_REPORT_PART_H
#define WASP_CLI_REPORT_PART_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/render/json_writer.h"
#include "profile/profile.h"

/* Where a part's JSON member goes. */
typedef enum wasp_json_place {
    WASP_JSON_IN_ANALYSES, /* in the "analyses" object (the pair analyses) */
    WASP_JSON_TOP_LEVEL    /* in the report object itself ("objects", "replicas") */
} wasp_json_place;

/* One weighted calling context of an analysis, for flame graphs (--format
 * collapsed and pprof, docs/formats.md). */
typedef struct wasp_stack {
    const char *analysis; /* its analysis's name: "deadstore", "objects", ... */
    const char *side;     /* the context's role: "watch"/"trap" (pairs),
                           * "allocation"/"access" (objects), "site"/"compare"
                           * (replicas); renderers keep sides apart */
    uint32_t ctx;         /* context id: frames root first, leaf instruction */
    const char *leaf;     /* a frame after the context's leaf (the object's
                           * class), NULL for none */
    double bytes;         /* wasteful bytes (pairs), else 0 */
    double samples;       /* pairs: count; objects: access samples; replicas:
                           * comparisons that found equal values */
    bool by_bytes;        /* flame graphs weigh it by bytes, else by samples */
} wasp_stack;

/* Receives stacks; a renderer embeds it in its own state. 0, or -1 to stop
 * (out of memory). */
typedef struct wasp_stack_sink {
    int (*emit)(struct wasp_stack_sink *sink, const wasp_profile *p, const wasp_stack *s);
} wasp_stack_sink;

/* One finding of the summary, the report's first screen (report_summary.c,
 * docs/findings.md): where, what happens there in plain words, and the
 * samples behind it. */
typedef struct wasp_finding {
    uint32_t ctx;     /* the code involved: its first application frame (else
                       * its leaf) names the place */
    char what[448];   /* plain words, its share included ("stores the value
                       * already there (41.0% of the bytes stored)") */
    uint32_t created; /* the class of the objects ctx creates (string id; 0:
                       * none): its place is where they are created, past
                       * their constructors (wasp_created_place) */
    double share;     /* that share of what its analysis measures, 0..1 */
    double cpu;       /* the program's samples in the code involved, in the
                       * units of wasp_report_samples_due; NAN: not measured */
    double evidence;  /* the samples it rests on, as independent draws (an
                       * armed watch's window is one): the interval's and
                       * the few-samples warning's count */
    const char *evidence_unit; /* what evidence counts, plural ("watched samples",
                                * "catches"); NULL: "samples" */
    bool spread;      /* the code involved runs in several methods the place
                       * calls (the place's pairs summed): the summary names
                       * none of them beside the place */
    bool waiting;     /* time threads spent waiting (blocked on a lock): no
                       * CPU, said so instead of a CPU share */
    bool cpu_by_line; /* the code involved is the place's line: its cost is
                       * the line's share of the program's CPU samples
                       * (profile/cpu_lines.h) when the profile has them;
                       * else cpu is an estimate */
    bool has_cpu_line_samples; /* cpu_line_samples is set: the cost is its
                                * share of the samples counted by line, as
                                * cpu_by_line's (cpu is then not read) */
    double cpu_line_samples;   /* the CPU samples counted by line at the lines
                                * involved, summed by the analysis when they
                                * are not the place's alone (a replica's: the
                                * lines that accessed its objects) */
    bool has_with_calls;       /* with_calls is set (the pair analyses) */
    double with_calls, with_calls_lo, with_calls_hi; /* the share of the
                                * program's CPU in the place's line and the
                                * code it calls (not inlined callees, stubs,
                                * the runtime), estimated from the walked
                                * stacks of the armed samples, and its 95%
                                * interval (docs/findings.md) */
} wasp_finding;

/* Appends words (printf's fmt) to f->what, as far as they fit. */
void wasp_finding_say(wasp_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Findings per analysis in the summary. */
enum { WASP_SUMMARY_PER_ANALYSIS = 3 };

/* Receives findings, most important first. 0, or -1 (out of memory). */
typedef struct wasp_finding_sink {
    int (*emit)(struct wasp_finding_sink *sink, const wasp_profile *p, const wasp_finding *f);
} wasp_finding_sink;

typedef struct wasp_report_part {
    /* Does the report show this analysis (id) for p: it ran (meta "events"
     * names it) or p has its data? */
    bool (*shown)(const wasp_profile *p, int id);
    /* It arms a watchpoint per sample (the pair analyses): the header's
     * samples line counts armed and trapped samples when a part shown does
     * (or when none is shown at all). */
    bool counts_armed;
    /* Its lines in the header's counters block, after the samples line
     * ("pairs  N classified"). Parts sharing the function are called once. */
    void (*header_text)(const wasp_profile *p, FILE *out);
    /* The prefix of the counters its own section shows ("objects."): the
     * header's generic counters line leaves them out. NULL: none. */
    const char *counter_prefix;
    /* Its text section. top: entries shown (<= 0: all); anything else --top
     * means for it is its own. 0, or -1 when out of memory. */
    int (*text)(const wasp_profile *p, int id, int top, FILE *out);
    /* Its JSON member (it writes the key), in json_place. 0, or -1. */
    wasp_json_place json_place;
    int (*json)(wasp_json *j, const wasp_profile *p, int id, int top);
    /* Every weighted context of it, each side of an entry once, in a
     * deterministic order, to sink. NULL: none. 0, or -1 (emit's). */
    int (*stacks)(const wasp_profile *p, int id, wasp_stack_sink *sink);
    /* The summary: its first `max` findings to sink, most important first
     * (none: the summary says nothing was found). NULL: not in the summary.
     * 0, or -1 (emit's, or out of memory). */
    int (*summary)(const wasp_profile *p, int id, int max, wasp_finding_sink *sink);
    /* The summary's heading of its findings ("Dead stores"), and what to
     * try about them, one line (docs/findings.md says more). */
    const char *title, *hint;
    /* What the summary's start-up share is of (evidence_share.h: its
     * stacks' weight), plural, when that is not all its findings rest on
     * (locks: its lock samples, not the blocked time); NULL: "evidence". */
    const char *evidence;
    /* Its results described once (view.h): the generic renderers draw its
     * text, JSON, stacks, diff and HTML section from it (WASP_VIEW_REPORT).
     * NULL: the part's own text, json, stacks and its diff and HTML parts. */
    const struct wasp_view *view;
} wasp_report_part;

/* The report part of analysis id; NULL when out of range. */
const wasp_report_part *wasp_report_part_of(int id);

/* ---- shared by the parts (render_common.c, render_text.c, render_json.c) ---- */

/* How many of n ranked entries a report shows under --top (top <= 0: all). */
uint32_t wasp_report_shown(int top, uint32_t n);
/* part / whole, 0 when whole is not positive. */
double wasp_share(double part, double whole);
/* Does the profile have a counter of that name (zero or not)? */
bool wasp_has_counter(const wasp_profile *p, const char *name);
/* The leaf instruction of a context, NULL when unknown. */
const char *wasp_context_insn(const wasp_profile *p, const wasp_context *c);

enum { WASP_FRAME_LABEL_MAX = 4096 }; /* longer labels are cut */
/* A frame as the text report names it ("pkg.C.m(C.java:42)", "libc.so.6
 * memset"), cut to fit buf (n > 0). */
void wasp_frame_label(const wasp_profile *p, const wasp_frame *f, char *buf, size_t n);
/* Text: a context's frames leaf first, like a Java stack trace, each line
 * indented by indent spaces. */
void wasp_text_frames(const wasp_profile *p, const wasp_context *c, int indent, FILE *out);
/* Text: "      LABEL  INSN" then the frames of context id. */
void wasp_text_context(const wasp_profile *p, const char *label, uint32_t id, FILE *out);
/* Text: one ranked entry (index: into the part's table), "#rank" printed
 * rank_width wide. 0, or -1 when out of memory. */
typedef int (*wasp_text_entry)(const wasp_profile *p, uint32_t index, uint32_t rank,
                               int rank_width, const void *arg, FILE *out);
/* Text: the first --top of the ranked order[0..n) through entry, then
 * "... N more WHATs (--top N shows more)" for the rest; frees order. */
int wasp_text_ranked(const wasp_profile *p, uint32_t *order, uint32_t n, int top,
                     const char *what, wasp_text_entry entry, const void *arg, FILE *out);
/* Text: a site's "allocated at:" and its allocation frames. */
void wasp_text_site_allocation(const wasp_profile *p, const wasp_site *s, FILE *out);
/* Text: the class of a site, "<unknown class>" when unknown. */
const char *wasp_site_class(const wasp_profile *p, const wasp_site *s);
/* Is s a class site: objects allocation tracking did not see, grouped by
 * the class their headers name (heap/class_site.h)? */
bool wasp_site_by_class(const wasp_profile *p, const wasp_site *s);
/* "12 sampled allocations (24.0 KiB)" ("sampled" when allocations were
 * sampled, objects.sampling_interval > 0). */
const char *wasp_fmt_site_allocations(const wasp_profile *p, const wasp_site *s, char *buf,
                                      size_t n);

/* The summary's place of a context: its first frame, from the leaf, that
 * is application code (a Java frame outside java.*, javax.*, jdk.*, sun.*,
 * com.sun.*, org.xml.sax.*, org.w3c.dom.*), else its innermost Java frame
 * (the JDK's), else its leaf; NULL when it has no frames. A context that
 * fills in an exception's stack trace is placed past fillInStackTrace and
 * the exception's constructors (...Exception, ...Error): where it is
 * created. */
const wasp_frame *wasp_place_frame(const wasp_profile *p, const wasp_context *c);
/* Whether context c's frames include frame `frame` (an index of p->frames). */
bool wasp_context_passes(const wasp_profile *p, const wasp_context *c, uint32_t frame);
/* Its Java frame nearest the leaf (the innermost method it ran), NULL when
 * it has none. */
const wasp_frame *wasp_inner_java_frame(const wasp_profile *p, const wasp_context *c);
/* The place of a context that creates an object of class created (a string
 * id; 0: none, wasp_place_frame): the constructors run on the new object (its
 * class's <init> and the superclasses' it calls) are part of its creation, so
 * the place is the application frame that called them, where `new` is
 * written, not a line of the constructor; wasp_place_frame when no such
 * constructor runs at the leaf or nothing past it is application code. */
const wasp_frame *wasp_created_place(const wasp_profile *p, const wasp_context *c,
                                     uint32_t created);
/* Summary findings keyed by place: the items (a part's sites, ranked) with
 * the same key (a class's string id) whose contexts have the same place
 * (wasp_place_frame: method and line) summed into the first of them in the
 * order given, whose context then names them all (merged counts the others);
 * the items left ranked by weight, ties in the order given. *out_n: how many
 * are left. 0, or -1 when out of memory (items unchanged). */
typedef struct wasp_place_item {
    uint32_t index;          /* the part's own (an entry, a site) */
    uint32_t key;            /* what else must match (a class) */
    uint32_t ctx;            /* the finding's context */
    uint32_t created;        /* the class it creates (wasp_created_place), 0: none */
    double weight, evidence; /* summed when merged */
    double weight_sq;        /* the squares of the weight's parts (an estimate's
                              * spread), summed when merged; 0 when not kept */
    uint32_t merged;         /* items merged into it */
    uint32_t order;          /* (the merge's own) */
} wasp_place_item;
int wasp_place_merge(const wasp_profile *p, wasp_place_item *items, uint32_t n, uint32_t *out_n);
/* The Java frame where the code involved runs when that is not the place
 * (a JDK method the place called: javac under Ant's Javac13.execute, a
 * TreeMap lookup under a line of yours), NULL when the place is it. */
const wasp_frame *wasp_place_inner(const wasp_profile *p, const wasp_context *c);
/* The same for a context that creates an object of class created: NULL when
 * the code past the place is that object's constructors. */
const wasp_frame *wasp_created_inner(const wasp_profile *p, const wasp_context *c,
                                     uint32_t created);
/* A frame as "File.java:37" (a Java frame with a line), else its label, cut
 * to fit buf. */
const char *wasp_frame_short(const wasp_profile *p, const wasp_frame *f, char *buf, size_t n);
/* That place so; "(no frames)" when it has none. */
const char *wasp_place_short(const wasp_profile *p, uint32_t ctx, char *buf, size_t n);
/* The program's CPU samples: those taken, and those pacing left out while
 * the watch budget was spent (each stands for one period of CPU time, the
 * unit of the analyses' sample weights). */
double wasp_report_samples_due(const wasp_profile *p);
/* Samples taken per sample due (1 unless pacing skipped some): turns
 * samples weighted by CPU time into about how many were taken, the count
 * an interval rests on. */
double wasp_report_taken_per_due(const wasp_profile *p);
/* The 95% Wilson score interval of the proportion k/n (0 <= k <= n); [0, 1]
 * when n is not positive. */
void wasp_wilson95(double k, double n, double *lo, double *hi);

/* JSON: the "frames" member of a context, root first. */
void wasp_json_frames(wasp_json *j, const wasp_profile *p, const wasp_context *c);
/* JSON: a context's "frames" and "instruction", into the object being written. */
void wasp_json_context_fields(wasp_json *j, const wasp_profile *p, uint32_t id);
/* JSON: a member `key` holding the context's fields. */
void wasp_json_context(wasp_json *j, const wasp_profile *p, const char *key, uint32_t id);
/* JSON: one entry (an object) of a ranked array; index: into the part's
 * table. 0, or -1 when out of memory. */
typedef int (*wasp_json_entry)(wasp_json *j, const wasp_profile *p, uint32_t index,
                               const void *arg);
/* JSON: the array `key` of the first --top of the ranked order[0..n), each
 * through entry; frees order. 0, or -1 (the output is then cut short). */
int wasp_json_ranked(wasp_json *j, const wasp_profile *p, const char *key, uint32_t *order,
                     uint32_t n, int top, wasp_json_entry entry, const void *arg);
/* JSON: a site's "class", "allocations" and "bytes". */
void wasp_json_site_fields(wasp_json *j, const wasp_profile *p, const wasp_site *s);
/* JSON: a site's "allocation" member (frames only). */
void wasp_json_site_allocation(wasp_json *j, const wasp_profile *p, const wasp_site *s);

#endif
