/*
 * Object replicas (OJXPerf): per thread and allocation site, the last sampled
 * field of a tracked object — its offset, width and the value it held when
 * sampled. A sample in a different object of the same site asks for the same
 * field of that object to be compared (through a watchpoint, when it is next
 * accessed); objects of different sizes count as different at once.
 *
 * ASYNC-SIGNAL-SAFE: pure bookkeeping on the caller's table.
 */
#ifndef WASP_REPLICA_SNAPSHOTS_H
#define WASP_REPLICA_SNAPSHOTS_H

#include <stdint.h>

typedef struct wasp_replica_snap {
    uint32_t site1;  /* site id + 1; 0 = empty */
    uint32_t epoch;  /* GC epoch of obj */
    uint64_t obj;    /* object start */
    uint32_t size;   /* object size */
    uint32_t offset; /* sampled field's offset in the object */
    uint64_t value;  /* its value when sampled */
    uint8_t len;     /* its width: 1, 2, 4 or 8 */
    uint8_t value_ok;
} wasp_replica_snap;

typedef enum wasp_replica_action {
    WASP_REPLICA_NONE = 0,      /* nothing to compare yet */
    WASP_REPLICA_DIFFERENT = 1, /* another object of another size: different */
    WASP_REPLICA_WATCH = 2      /* watch *watch_len bytes at *watch_addr; compare with *v1 */
} wasp_replica_action;

/* A sample of the field [field, field+len) of object [obj, obj+size) of site,
 * holding value. Returns what to do and records the sample as the site's last. */
wasp_replica_action wasp_replica_sample(wasp_replica_snap *table, uint32_t nslots, uint32_t site,
                                        uint32_t epoch, uint64_t obj, uint32_t size,
                                        uint64_t field, uint8_t len, uint64_t value,
                                        int value_ok, uint64_t *watch_addr, uint8_t *watch_len,
                                        uint64_t *v1);

/* Bitwise equality of the low len bytes. */
int wasp_replica_same(uint64_t a, uint64_t b, uint8_t len);

#endif
