/*
 * How object addresses behave (see heap_addresses.h): plain addresses until
 * the heap probe says otherwise.
 */
#include "heap/heap_addresses.h"

wasp_heap_addressing wasp_heap_addresses = {.address_mask = ~0ull};
