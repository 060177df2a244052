/*
 * Object replicas: which comparisons a sample asks for (see replicas.h).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler; no memory is read here.
 */
#include "analysis/replicas/snapshots.h"

wasp_replica_action wasp_replica_sample(wasp_replica_snap *table, uint32_t nslots, uint32_t site,
                                        uint32_t epoch, uint64_t obj, uint32_t size,
                                        uint64_t field, uint8_t len, uint64_t value,
                                        int value_ok, uint64_t *watch_addr, uint8_t *watch_len,
                                        uint64_t *v1)
{
    wasp_replica_snap *s = &table[site % nslots];
    wasp_replica_action act = WASP_REPLICA_NONE;
    /* Compare only with the last sample of the same site, in another object
     * whose address still means the same thing (same GC epoch). */
    if (s->site1 == site + 1 && s->epoch == epoch && s->obj != obj && s->value_ok) {
        if (s->size != size) {
            act = WASP_REPLICA_DIFFERENT;
        } else {
            act = WASP_REPLICA_WATCH;
            *watch_addr = obj + s->offset;
            *watch_len = s->len;
            *v1 = s->value;
        }
    }
    s->site1 = site + 1;
    s->epoch = epoch;
    s->obj = obj;
    s->size = size;
    s->offset = (uint32_t)(field - obj);
    s->len = len;
    s->value = value;
    s->value_ok = (uint8_t)(value_ok != 0);
    return act;
}

int wasp_replica_same(uint64_t a, uint64_t b, uint8_t len)
{
    uint64_t mask = len >= 8 ? ~0ull : ((1ull << (8 * len)) - 1);
    return (a & mask) == (b & mask);
}
