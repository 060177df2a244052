/*
 * Object replicas from births: short-lived objects are compared without a
 * watchpoint. The allocating thread learns of a tracked object at its
 * allocation event, before the program has written into it; the object is
 * kept as its site's *pending* object. At a later birth of the same site on
 * the same thread — at least a settling time later, in the same
 * GC epoch, so the pending object has been built meanwhile and has not moved
 * (a dead object's bytes stay as they were until a collection) — one word of
 * the pending object is read and compared with the same word of the site's
 * previous object, read the same way; then a new random word of the pending
 * object is kept for the next comparison, and the new birth becomes pending.
 * One comparison per resolved object, each at a fresh offset, as OJXPerf
 * compares one sampled field per pair. Objects of one site but of different
 * sizes count as different (as the sampled comparisons count them). A value
 * is compared only within the epoch it was read in: it may be a reference.
 *
 * ASYNC-SIGNAL-SAFE: bookkeeping on the caller's table; memory is read only
 * through the caller's reader.
 */
#ifndef WASP_REPLICA_BIRTHS_H
#define WASP_REPLICA_BIRTHS_H

#include <stdint.h>

enum { WASP_BIRTH_HEADER = 16 };

typedef struct wasp_birth_slot {
    uint32_t site1;        /* site id + 1; 0 = empty */
    /* the pending object */
    uint64_t obj;          /* its start, 0 when none */
    uint32_t size, epoch;
    uint64_t born_ns;      /* the clock at its birth (ns) */
    /* the word kept of the site's previous object */
    uint64_t value;
    uint32_t offset, value_size, value_epoch;
    uint8_t len;           /* 0: no word kept */
} wasp_birth_slot;

typedef enum wasp_birth_verdict {
    WASP_BIRTH_NONE,      /* nothing compared */
    WASP_BIRTH_SAME,      /* the word is the same as the previous object's */
    WASP_BIRTH_ZERO,      /* ... and both are zero (space not written) */
    WASP_BIRTH_DIFFERENT  /* it differs, or the objects' sizes do */
} wasp_birth_verdict;

/* len bytes at addr; *ok = 0 when they cannot be read. */
typedef uint64_t (*wasp_birth_reader)(uint64_t addr, int len, int *ok);

/* Object [obj, obj+size) of site was born in epoch at time now_ns.
 * settle_ns: how long a pending object is given to be built. Returns the
 * verdict of the comparison this birth allowed (*offset: the word compared). */
wasp_birth_verdict wasp_replica_born(wasp_birth_slot *table, uint32_t nslots, uint32_t site,
                                      uint64_t obj, uint32_t size, uint32_t epoch,
                                      uint64_t now_ns, uint64_t settle_ns, uint64_t *rng,
                                      wasp_birth_reader read, uint32_t *offset);

#endif
