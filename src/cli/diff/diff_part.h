/*
 * An analysis's part in `wasp diff` (diff.h, docs/diff.md): its entries
 * collected from one profile, each with a key spelled from what it means
 * (never from ids), and what the text, JSON and HTML diffs show of them. The
 * diff (diff_match.c, diff_render.c, html/diff.js) calls the parts of the
 * analyses a profile shows, in registry order, and names none of them.
 * Registry: cli/diff/diff_parts.c, from catalog/list.h; an analysis with a
 * view has its part built from it (view_diff.c), one per section (diff.h:
 * its view, and its view's sub); an analysis a diff does not compare has
 * an empty part {0}. Every hook's `id` is the section (for an analysis's
 * own, its id).
 */
#ifndef WASP_CLI_DIFF_PART_H
#define WASP_CLI_DIFF_PART_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/commands/diff.h"
#include "cli/render/json_writer.h"
#include "profile/profile.h"

#define WASP_DIFF_ARROW "\xe2\x86\x92" /* →, between before and after */

/* Matches entries across the two profiles; opaque (diff_match.c). */
typedef struct wasp_diff_builder wasp_diff_builder;

/* A matching key being spelled; ok turns false for good when memory runs out. */
typedef struct wasp_diff_key {
    char *s;
    size_t len, cap;
    bool ok;
} wasp_diff_key;

/* One of an entry's columns in the HTML diff: the JSON member `member` of a
 * change, shown as its text (context false) or as its context's leaf frame
 * (context true). The first context column carries data-leaf (tests). */
typedef struct wasp_diff_column {
    const char *title, *member;
    bool context;
} wasp_diff_column;

/* What opens under a changed entry in the HTML diff: the context `member`
 * labelled `label`; or (context false) the line "label MEMBER'S TEXT"; or,
 * with `when`, the line `label` only when that boolean member is true. */
typedef struct wasp_diff_detail {
    const char *label, *member;
    bool context;
    const char *when;
} wasp_diff_detail;

enum { WASP_DIFF_COLUMNS = 4 };

typedef struct wasp_diff_part {
    /* Its heading ("Dead stores"), one entry in a changed line ("Dead store
     * pair"), entries in "no pair changed" and "3 more changed pairs", what a
     * share is of ("of stored bytes"), and the unit of a value and of the
     * total ("bytes", "samples"). NULL collect: the diff leaves it out. */
    const char *title, *entry, *what, *whats, *of, *unit;
    /* A sub view's section: its JSON member in its analysis's object
     * ("blocked"); NULL: the analysis's own. */
    const char *member;
    bool value_bytes;  /* values and totals are bytes (text writes "4.0 KiB") */
    bool has_fraction; /* its program-level measure: JSON "fraction", "fraction_change" */
    /* Side side's entries of p: wasp_diff_set_total first, then each entry
     * of its ranking through wasp_diff_add. 0, or -1 (out of memory). */
    int (*collect)(wasp_diff_builder *b, const wasp_profile *p, int id, int side);
    /* Whether p shows it, its analysis being shown (NULL: yes). */
    bool (*shown)(const wasp_profile *p, int id);
    /* Text after the heading ("F_prog 46.6% -> 0.0% (-46.6 points); ..."),
     * without a newline. NULL: "TOTAL0 -> TOTAL1 UNIT". */
    void (*summary)(const wasp_diff_analysis *a, int id, FILE *out);
    /* The lines under a changed entry (index: the one collect gave, in p). */
    void (*text_entry)(const wasp_profile *p, int id, uint32_t index, FILE *out);
    /* One line under a change within noise, without --verbose: what the entry
     * is and where, its contexts' places only ("watched D.damp(D.java:38);
     * trapped at D.damp(D.java:41)"), without a newline. NULL: text_entry. */
    void (*text_brief)(const wasp_profile *p, int id, uint32_t index, FILE *out);
    /* Its members in the change's JSON object (contexts, class, ...). */
    void (*json_entry)(wasp_json *j, const wasp_profile *p, int id, uint32_t index);
    /* The HTML diff's columns and details, from the members json_entry writes. */
    wasp_diff_column columns[WASP_DIFF_COLUMNS];
    wasp_diff_detail details[WASP_DIFF_COLUMNS];
} wasp_diff_part;

/* The diff part of section id (diff.h); NULL when out of range or none. */
const wasp_diff_part *wasp_diff_part_of(int id);

/* ---- for collect (diff_match.c) ---- */

/* Does a context's key include its leaf instruction (--by instruction)? */
bool wasp_diff_with_insn(const wasp_diff_builder *b);
/* Side side's denominator of the shares, and its program-level measure. */
void wasp_diff_set_total(wasp_diff_builder *b, int id, int side, double total, double fraction);
/* Side side's samples (the denominator of the entries' samples) and the
 * independent observations they stand for (0: as many), for the noise test
 * (diff.h). Not called: the totals are samples, one observation each. */
void wasp_diff_set_samples(wasp_diff_builder *b, int id, int side, double samples,
                           double observations);
/* An empty key of section id. */
void wasp_diff_key_begin(wasp_diff_key *k, int id);
/* Appends a string, a number, or a context's frames (kind, name, file, line;
 * with_insn: its leaf instruction too, usually wasp_diff_with_insn(b); an
 * allocation's context has none), each closed by a separator. */
void wasp_diff_key_string(wasp_diff_key *k, const char *s);
void wasp_diff_key_number(wasp_diff_key *k, double v);
void wasp_diff_key_context(wasp_diff_key *k, const wasp_profile *p, uint32_t ctx, bool with_insn);
/* Adds side's entry: index into the part's table (for text_entry and
 * json_entry), its rank in the report (1 = first), its value and the samples
 * it rests on (the value itself when it is a count of samples); takes the
 * key (freed on failure too). 0, or -1. */
int wasp_diff_add(wasp_diff_builder *b, int id, int side, wasp_diff_key *k, uint32_t index,
                  uint32_t rank, double value, double samples);

/* ---- what parts of analyses keyed by allocation site share (diff_render.c) ---- */

/* A site's key: its class and allocation frames. */
void wasp_diff_key_site(wasp_diff_key *k, const wasp_profile *p, uint32_t site);
/* text_entry and json_entry of a site: its class and allocation frames. */
void wasp_diff_site_text(const wasp_profile *p, int id, uint32_t site, FILE *out);
void wasp_diff_site_json(wasp_json *j, const wasp_profile *p, int id, uint32_t site);
/* Its HTML columns and details. */
#define WASP_DIFF_SITE_LAYOUT                                                                      \
    .columns = {{"class", "class", false}, {"allocated at", "allocation", true}},                 \
    .details = {{"class", "class", false, NULL}, {"allocated at", "allocation", true, NULL}}

#endif
