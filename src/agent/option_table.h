/*
 * The agent options as one table: each row is one key of the agent option
 * string ("-agentpath:libwasp.so=key=value,..."), the wasp_options field it
 * sets, its range, default, help, and the wasp run/attach flag it has, if any.
 *
 * Parsing, the agent option string (wasp_options_format), the messages, the
 * defaults, the command's flags and every help text are read from the rows,
 * so adding an option is adding a row (and its field in wasp_options).
 */
#ifndef WASP_OPTION_TABLE_H
#define WASP_OPTION_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "agent/options.h"

/* How a value is spelled and stored. */
typedef enum wasp_option_kind {
    WASP_OPT_EVENTS,   /* uint32_t analysis bits: names joined by '+' or ':' */
    WASP_OPT_PATH,     /* char[size]: not empty, no comma (the string could not carry it) */
    WASP_OPT_TOKEN,    /* char[size]: one word of printable characters, no spaces */
    WASP_OPT_CHOICE,   /* an enum: the index of its name in names */
    WASP_OPT_NUMBER,   /* unsigned integer of size bytes, from min to max */
    WASP_OPT_DURATION, /* uint64_t nanoseconds from min to max, written with a unit */
    WASP_OPT_SHARE     /* double from lo to hi (below hi when hi_open), or a percentage */
} wasp_option_kind;

/* Which wasp subcommands take the row as a flag, and how. */
enum {
    WASP_OPT_IN_RUN = 1u << 0,
    WASP_OPT_IN_ATTACH = 1u << 1,
    WASP_OPT_IN_DETACH = 1u << 2,
    WASP_OPT_SWITCH = 1u << 3, /* the flag takes no value: it sets 1 */
    WASP_OPT_LAST = 1u << 4    /* written last in the option string: a long path reads best there */
};

typedef struct wasp_option_row {
    const char *key;
    wasp_option_kind kind;
    size_t offset, size;      /* the wasp_options field */
    uint64_t min, max;        /* NUMBER, DURATION */
    double lo, hi;            /* SHARE */
    int hi_open;              /* SHARE: hi itself is refused */
    const char *const *names; /* CHOICE: NULL-terminated, names[value] */
    const char *old_name;     /* CHOICE: a former name still accepted, meaning old_value */
    unsigned old_value;
    /* The default: def for EVENTS, CHOICE, NUMBER, DURATION; def_share for
     * SHARE; def_text for PATH and TOKEN. */
    uint64_t def;
    double def_share;
    const char *def_text;
    /* Help. A message says "expected <accepted>"; help text is
     * "<help>; <accepted> (default: <default_help or the default's value>)". */
    const char *metavar;      /* key=METAVAR, --flag METAVAR */
    const char *help;         /* read through wasp_option_help */
    const char *accepted;     /* read through wasp_option_accepted */
    const char *default_help; /* the default in words, when its value alone says too little */
    /* wasp run / attach / detach */
    const char *flag;         /* long flag without "--"; NULL: none */
    char letter;              /* short flag, or 0 */
    const char *flag_default_help; /* the default on the command line, when it differs */
    unsigned cli;             /* WASP_OPT_IN_*, WASP_OPT_SWITCH, WASP_OPT_LAST */
} wasp_option_row;

/* A message into err (vsnprintf), control bytes shown as '?' so that what
 * it quotes cannot break the line or reach a terminal as an escape. */
void wasp_option_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The i-th row (table order: the order of help texts and messages), or NULL
 * past the last. */
const wasp_option_row *wasp_option_at(size_t i);

/* r's accepted values and its help in words, into buf (n bytes): the row's
 * own texts, or, for `events` (whose rows leave them NULL), texts made from
 * the analysis list, so that help and messages name every analysis. */
const char *wasp_option_accepted(const wasp_option_row *r, char *buf, size_t n);
const char *wasp_option_help(const wasp_option_row *r, char *buf, size_t n);

/* The row whose key is the len bytes at key, or NULL. */
const wasp_option_row *wasp_option_find(const char *key, size_t len);

/* Set r's field in o from the text value v. Returns 0, or -1: the message is
 * "expected <accepted>", unless detail (n bytes) was written. */
int wasp_option_set(const wasp_option_row *r, wasp_options *o, const char *v, char *detail,
                    size_t n);

/* Set r's field in o to its default. */
void wasp_option_set_default(const wasp_option_row *r, wasp_options *o);

/* Copy the field row r sets from src to dst. */
void wasp_option_copy(const wasp_option_row *r, wasp_options *dst, const wasp_options *src);

/* Whether o holds the default for r. */
int wasp_option_is_default(const wasp_option_row *r, const wasp_options *o);

/* r's value in o as the option string spells it ("1ms", "0.01", "auto").
 * Returns 0, or -1 when the string cannot carry it (an empty path, a comma,
 * an enum out of range, no analysis) or buf is too small. */
int wasp_option_value_text(const wasp_option_row *r, const wasp_options *o, char *buf,
                           size_t n);

#endif
