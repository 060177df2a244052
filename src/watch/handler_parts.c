/*
 * The registry of handler parts (handler_part.h), from catalog/list.h, and
 * the sampling period the analyses of shares ask for.
 *
 * ASYNC-SIGNAL-SAFE: a constant table.
 */
#include "catalog/registry.h"
#include "watch/handler_part.h"

WASP_REGISTRY(wasp_handler_part, wasp_handler_, wasp_handler_part_of)

uint64_t wasp_period_for_shares(const wasp_watch_engine *engine)
{
    (void)engine;
    return 2000000;
}
