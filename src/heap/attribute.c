/*
 * Object-centric attribution (see objects.h).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler.
 */
#include "heap/attribute.h"

#include <sys/syscall.h>
#include <unistd.h>


/* The NUMA node holding addr's page, -1 when unknown (move_pages with no
 * target nodes only reports where pages are). */
static int page_node(uint64_t addr)
{
    void *page = (void *)(uintptr_t)(addr & ~(uint64_t)4095);
    int status = -1;
    if (syscall(SYS_move_pages, 0, 1UL, &page, NULL, &status, 0) != 0)
        return -1;
    return status;
}

static int cpu_node(void)
{
    unsigned cpu = 0, node = 0;
    if (syscall(SYS_getcpu, &cpu, &node, NULL) != 0)
        return -1;
    return (int)node;
}

wasp_obj_result wasp_objects_attribute(wasp_objmap *map, uint64_t addr, uint32_t gc_epoch,
                                       uint32_t map_epoch, int numa_nodes, wasp_obj *obj,
                                       int *remote)
{
    *remote = 0;
    /* Odd epochs are collections in progress; after one, the map must be
     * rebuilt before its addresses mean anything. */
    if ((gc_epoch & 1) || map_epoch != gc_epoch)
        return WASP_OBJ_STALE;
    if (!map || !wasp_objmap_lookup(map, addr, gc_epoch, obj))
        return WASP_OBJ_MISS;
    if (numa_nodes > 1) {
        int page = page_node(addr), cpu = cpu_node();
        *remote = page >= 0 && cpu >= 0 && page != cpu;
    }
    return WASP_OBJ_HIT;
}
