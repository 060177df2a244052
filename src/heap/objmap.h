/*
 * The address -> object map of object-centric profiling (DJXPerf keeps an
 * interval splay tree; a splay tree restructures itself on every lookup, so it
 * cannot be read from a signal handler while other threads write it).
 *
 * A tracked object is a range [start, start+size) with a 32-bit allocation-site
 * id, valid in one GC epoch. Objects of the same epoch never overlap (they are
 * live Java objects); objects of different epochs may (a collection moved or
 * freed the old one), and a lookup only ever sees the epoch it asks for.
 *
 * ASYNC-SIGNAL-SAFE: wasp_objmap_lookup only (lock-free: no allocation, no
 * lock, no system call, never waits for a writer, never reads freed memory).
 * Everything else runs on ordinary threads: inserts from any number of
 * allocating threads at once, publish/replace from an agent thread; they may
 * allocate and lock (two mutexes among themselves) but never wait for a
 * lookup.
 *
 * Design (objmap.c has the details and the proof of the reclamation):
 *  - The searchable part is an immutable snapshot of two sorted runs, a large
 *    "main" one and a small "delta" one, each sorted by (epoch, start) with a
 *    directory of per-epoch segments: a lookup finds its epoch's segment and
 *    searches a sparse index of every 64th start (it stays in cache), then one
 *    block of 64 objects. Publishing merges the pending inserts into the
 *    delta only (O(delta), not O(n): rebuilding a million-object array every
 *    few ms would stream tens of MB per publish); the delta is merged into the
 *    main run when it outgrows a limit between 8192 and main/4 chosen from
 *    the measured inserts per publish to minimise the copying (objmap.c).
 *  - Inserts append to a pending log (written, then made visible by a
 *    release store of the count); lookups scan the part of the log the
 *    snapshot does not cover. The log is a chain of 1024-entry blocks: when
 *    one is full the inserting thread links a new one rather than publishing
 *    under the publisher's lock, so an allocating thread never waits for a
 *    publish or a replace in progress (a merge of a million objects takes
 *    milliseconds); if the publisher has let a whole block pile up, the
 *    inserter that fills a block folds it in itself, but only when no publish
 *    is running (trylock). A full block also gets a sorted copy (made by the
 *    inserter that filled it), so lookups binary-search all blocks but the
 *    last: a publisher that lags or is starved (it may be a thread that
 *    profiling signals keep interrupting) does not make lookups linearly
 *    slower, which would starve it further. Publish often anyway (the agent
 *    does after every few dozen inserts).
 *  - Snapshot + log position form an immutable "view" installed with one
 *    atomic pointer exchange, so a lookup always sees a consistent pair.
 *    Retired views/runs/log blocks are freed after a grace period tracked by
 *    two reader counters selected by a parity bit. Unlike a writer that flips
 *    the parity and spins until the old counter drains, writers here never
 *    wait: they free what has aged when the counters allow and leave the rest
 *    for the next install or publish (objmap.c has the proof), so no writer
 *    blocks on a lookup whose thread was preempted or stopped mid-handler.
 *  - replace sorts objs before taking the publisher's lock; under it, only
 *    linear merges (the kept inserts are already sorted in the runs).
 *  Lookup: O(log n) + O(B + (p/B) log B) for p unpublished inserts, B = 1024
 *  (about 90 ns at 100k objects, 350 ns at 1-4M, where cache misses dominate).
 *  Insert: O(1) amortised under a mutex shared by inserters only (plus
 *  sorting a 1024-entry copy once per 1024 inserts, outside it; ~100 ns per
 *  insert in all). Publish: O(delta + p log p), plus an O(n) merge now and
 *  then. Replace: O(k log k) for k objs, outside the lock, + O(n).
 *
 * Semantics of replace(objs, E): afterwards the map holds objs (valid in E)
 * plus every object inserted with an epoch not older than E, whether or not it
 * had been published; everything else (earlier replace sets, inserts of older
 * epochs) is gone. So when publishing happens — the agent's timer or a full
 * log — never changes what a replace keeps: an object allocated after a
 * collection and published before the replace that follows it survives.
 * Epochs are compared modulo 2^32 (serial-number arithmetic). The same start
 * given twice in one epoch is kept once, the later one winning when they are
 * folded together (objs count as later than published inserts and earlier
 * than pending ones); until then a lookup may return either.
 */
#ifndef WASP_OBJMAP_H
#define WASP_OBJMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct wasp_obj {
    uint64_t start;
    uint32_t size;
    uint32_t site;
} wasp_obj;

typedef struct wasp_objmap wasp_objmap;

wasp_objmap *wasp_objmap_new(void);
/* Only when no lookup can run. NULL is accepted. */
void wasp_objmap_free(wasp_objmap *m);

/* Add one object (allocation callback). epoch: the GC epoch the address
 * belongs to. Zero-size objects are ignored (they contain no address).
 * Returns 0, -1 on OOM (the object is then not tracked). */
int wasp_objmap_insert(wasp_objmap *m, uint64_t start, uint32_t size, uint32_t site,
                       uint32_t epoch);

/* Fold pending inserts into the searchable snapshot (called by an agent
 * thread after a few dozen inserts, or every 100 ms). Returns 0, -1 on OOM
 * (the inserts stay pending). */
int wasp_objmap_publish(wasp_objmap *m);

/* Replace everything with objs[0..n) (addresses valid in `epoch`); pending
 * inserts older than `epoch` are discarded, newer ones kept (see above for
 * published ones). Returns 0, or -1 on OOM (the map is then unchanged). */
int wasp_objmap_replace(wasp_objmap *m, const wasp_obj *objs, size_t n, uint32_t epoch);

/* Handler side. Returns 1 and fills *out when addr is inside a tracked object
 * whose address is valid in `epoch`; 0 when no tracked object contains it.
 * Lock-free and async-signal-safe. */
int wasp_objmap_lookup(wasp_objmap *m, uint64_t addr, uint32_t epoch, wasp_obj *out);

/* Tracked objects, counting unpublished inserts (an object inserted twice
 * before a merge may count twice). Not for handlers. */
size_t wasp_objmap_count(wasp_objmap *m);

#endif
