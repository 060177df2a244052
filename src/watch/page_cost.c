/*
 * The page engine's cost estimates and arming chance (see page_cost.h).
 *
 * ASYNC-SIGNAL-SAFE: relaxed atomics on static arrays, no locks.
 */
#include "watch/page_cost.h"

#include <string.h>

/* Estimates per page, and per 256 KiB region for a page not seen yet
 * (neighbouring pages of one array or allocation buffer are swept alike).
 * An entry is a tag (the page or region number, +1) and the estimate in
 * sixteenths of a fault, packed into one word so that a reader never pairs
 * one page's tag with another's estimate. */
enum { PAGES = 4096, REGIONS = 1024, REGION_SHIFT = 18, FRAC = 16 };

static uint64_t page_est[PAGES];
static uint64_t region_est[REGIONS];
static uint64_t skipped;

static unsigned slot_of(uint64_t key, unsigned n)
{
    return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 40) % n;
}

/* The estimate of key in table t (n entries); 0: none. */
static uint32_t lookup(const uint64_t *t, unsigned n, uint64_t key)
{
    uint64_t e = __atomic_load_n(&t[slot_of(key, n)], __ATOMIC_RELAXED);
    return (uint32_t)(e >> 32) == (uint32_t)(key + 1) ? (uint32_t)e : 0;
}

/* A new figure for key: the mean of the old estimate and it, weighted 3:1
 * (recent closings count most; a page's use changes as the program does). */
static void learn(uint64_t *t, unsigned n, uint64_t key, uint32_t fig)
{
    uint32_t old = lookup(t, n, key);
    uint64_t est = old ? ((uint64_t)old * 3 + fig) / 4 : fig;
    if (est == 0)
        est = 1; /* 0 means unknown */
    if (est > 0xffffffffull)
        est = 0xffffffffull;
    __atomic_store_n(&t[slot_of(key, n)], ((uint64_t)(uint32_t)(key + 1) << 32) | est,
                     __ATOMIC_RELAXED);
}

void wasp_page_cost_learn(uint64_t page, uint32_t faults, uint32_t arms)
{
    if (!arms)
        return; /* held by windows only: their sample's page says what it cost */
    uint64_t fig = (uint64_t)faults * FRAC / arms;
    if (fig > 0xffffffffull)
        fig = 0xffffffffull;
    learn(page_est, PAGES, page >> 12, (uint32_t)fig);
    learn(region_est, REGIONS, page >> REGION_SHIFT, (uint32_t)fig);
}

uint32_t wasp_page_cost_expected(uint64_t addr)
{
    uint32_t e = lookup(page_est, PAGES, addr >> 12);
    if (!e)
        e = lookup(region_est, REGIONS, addr >> REGION_SHIFT);
    return e ? (e + FRAC - 1) / FRAC : 0;
}

double wasp_page_cost_chance(uint64_t addr)
{
    uint32_t e = wasp_page_cost_expected(addr);
    if (e <= WASP_PAGE_COST_TARGET)
        return 1.0;
    double p = (double)WASP_PAGE_COST_TARGET / (double)e;
    return p < 1.0 / WASP_PAGE_COST_MAX_WEIGHT ? 1.0 / WASP_PAGE_COST_MAX_WEIGHT : p;
}

uint64_t wasp_page_cost_skipped(void)
{
    return __atomic_load_n(&skipped, __ATOMIC_RELAXED);
}

void wasp_page_cost_count_skip(void)
{
    __atomic_add_fetch(&skipped, 1, __ATOMIC_RELAXED);
}

void wasp_page_cost_reset(void)
{
    memset(page_est, 0, sizeof page_est);
    memset(region_est, 0, sizeof region_est);
    __atomic_store_n(&skipped, 0, __ATOMIC_RELAXED);
}
