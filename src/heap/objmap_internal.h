/*
 * The map's shapes and test hooks, exposed for tests/unit/test_objmap.c
 * (white-box: it stages races inside a lookup and checks what was retired).
 * Not an interface: only objmap.c and that test include this. objmap.c's top
 * comment describes the shapes and the reclamation.
 */
#ifndef WASP_OBJMAP_INTERNAL_H
#define WASP_OBJMAP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "heap/objmap.h"

enum { LOG_CAP = 1024 }; /* entries per log block */

/* A pending insert, and the working element of merges. */
struct ent {
    uint64_t start;
    uint32_t size;
    uint32_t site;
    uint32_t epoch;
    uint32_t rank : 31; /* arrival order: equal (epoch, start) keep the highest */
    uint32_t ins : 1;   /* from an insert (kept by a replace of an older or equal epoch) */
};

struct log {
    _Atomic size_t n;
    struct log *_Atomic next;     /* set once this block is full */
    struct ent *_Atomic sorted;   /* once full: e sorted like runs, rank = index */
    size_t cap;
    struct ent e[];
};

struct run; /* a sorted run (objmap.c) */

struct view {
    struct run *main, *delta; /* NULL when empty */
    struct log *log;
    size_t from;    /* log entries below this are in main/delta or were dropped */
    uint32_t floor; /* epoch of the last replace: older inserts are dropped */
    int has_floor;
    /* writer side, once retired (lookups never read these) */
    struct view *next;
    struct log *log_end;        /* it owns the log blocks [log, log_end) */
    uint8_t own_main, own_delta; /* and these runs */
};

struct wasp_objmap {
    _Alignas(64) struct view *_Atomic view;
    atomic_uint parity;
    _Alignas(64) atomic_ulong readers[2];
    _Alignas(64) pthread_mutex_t ins_mu;
    struct log *log; /* the chain's last block, under ins_mu */
    pthread_mutex_t pub_mu;
    struct view *fresh, *aged; /* retired views, under pub_mu (objmap.c, at the top) */
    uint64_t fold_avg16;       /* 16 x moving average of inserts per fold, under pub_mu */
};

/* Called, when set, at the two points of a lookup where a race matters:
 * after it loaded the parity, and after it loaded the view. Tests set them
 * to run writers there; NULL otherwise. */
extern void (*wasp_objmap_hook_entering)(wasp_objmap *m);
extern void (*wasp_objmap_hook_reading)(wasp_objmap *m);

#endif
