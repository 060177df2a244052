/*
 * The page engine's arming by expected cost (issue 38): what a sampled watch
 * on a page cost in faults, learned from the page's (and its region's)
 * recent closings, and the chance a new sample there is armed.
 *
 * A watch on a page the program sweeps keeps it closed for about one pass
 * and costs 800-2,100 faults; one on a quiet page a few. Arming every sample
 * spends the budget on the sweeps. Instead a sample is armed with chance
 * p = clamp(WASP_PAGE_COST_TARGET / expected faults, 1/WASP_PAGE_COST_MAX_WEIGHT, 1)
 * and, armed, weighs 1/p times its weight (importance sampling): each
 * sample's expected contribution to every total stays its weight, whatever
 * its outcome, so every fraction stays unbiased; a refused sample's weight
 * is dropped, not passed on (watch_kit.c, wasp_watch_claim).
 *
 * ASYNC-SIGNAL-SAFE: relaxed atomics on static tables; no locks. Two
 * threads learning one entry at once may lose one of the figures: an
 * estimate, never a correctness matter (any p gives an unbiased total).
 */
#ifndef WASP_PAGE_COST_H
#define WASP_PAGE_COST_H

#include <stdint.h>

/* Faults a sampled watch may cost at chance 1; the weight a sample may take
 * at most (the chance's floor), which bounds the variance it adds. */
enum { WASP_PAGE_COST_TARGET = 256, WASP_PAGE_COST_MAX_WEIGHT = 8 };

/* A page closed for `arms` sampled watches cost `faults` faults (all
 * threads'), now that it opens. */
void wasp_page_cost_learn(uint64_t page, uint32_t faults, uint32_t arms);
/* The faults a sampled watch at addr is expected to cost; 0: not known. */
uint32_t wasp_page_cost_expected(uint64_t addr);
/* The chance a sample at addr is armed (1 when nothing is known). */
double wasp_page_cost_chance(uint64_t addr);
/* Samples refused by chance, since the session began. */
uint64_t wasp_page_cost_skipped(void);
void wasp_page_cost_count_skip(void);
/* Forget everything (the session starts; unit tests). */
void wasp_page_cost_reset(void);

#endif
