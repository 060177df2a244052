/*
 * Slots: a thread's watchpoints, on whichever engine proved itself at
 * start-up (mechanisms.h; see engine.h). The handler and the thread code
 * talk to slots only, never to an engine.
 *
 * ASYNC-SIGNAL-SAFE: wasp_slot_arm, wasp_slot_disarm and wasp_watch_span run
 * in the SIGTRAP handler.
 */
#include "watch/slots.h"

#include <stdio.h>
#include <stdlib.h>

#include "watch/engine.h"
#include "watch/mechanisms.h"
#include "watch/page_cost.h"

const wasp_watch_engine *const wasp_watch_engines[] = {&wasp_debugreg_engine, &wasp_page_engine,
                                                       NULL};

int wasp_slots_alloc(wasp_thread *t, int capacity)
{
    wasp_slot *slots = calloc((size_t)capacity, sizeof *slots);
    wasp_reservoir_slot *reservoir = calloc((size_t)capacity, sizeof *reservoir);
    if (!slots || !reservoir) {
        free(slots);
        free(reservoir);
        return -1;
    }
    wasp_slots_free(t);
    for (int i = 0; i < capacity; i++)
        slots[i].fd = -1;
    t->slots = slots;
    t->reservoir = reservoir;
    t->capacity = capacity;
    t->nslots = t->nwindow = 0;
    return 0;
}

void wasp_slots_free(wasp_thread *t)
{
    free(t->slots);
    free(t->reservoir);
    t->slots = NULL;
    t->reservoir = NULL;
    t->capacity = t->nslots = t->nwindow = 0;
}

int wasp_slots_open(wasp_thread *t, int n, char *err, size_t errlen)
{
    const wasp_watch_engine *e = wasp_chosen()->watch;
    if (!e)
        return 0;
    if (n > WASP_SAMPLED_SLOTS)
        n = WASP_SAMPLED_SLOTS;
    if (wasp_slots_alloc(t, n + e->window_slots) != 0) {
        snprintf(err, errlen, "out of memory for %d watchpoint slots", n + e->window_slots);
        return 0;
    }
    return e->thread_open(t, n, err, errlen);
}

void wasp_slots_close(wasp_thread *t)
{
    const wasp_watch_engine *e = wasp_chosen()->watch;
    if (e && t->slots)
        e->thread_close(t);
    for (int i = 0; i < t->capacity; i++)
        t->slots[i].state = WASP_SLOT_FREE;
    t->nslots = t->nwindow = 0;
}

int wasp_slot_arm(wasp_thread *t, int slot, uint64_t addr, int len, int loads_too)
{
    return wasp_chosen()->watch->arm(t, slot, addr, len, loads_too);
}

double wasp_slot_arm_chance(uint64_t addr)
{
    return wasp_chosen()->watch == &wasp_page_engine ? wasp_page_cost_chance(addr) : 1.0;
}

void wasp_slot_disarm(wasp_thread *t, int slot)
{
    wasp_chosen()->watch->disarm(t, slot);
    t->slots[slot].state = WASP_SLOT_FREE;
}

void wasp_watch_span(uint64_t addr, uint32_t size, uint64_t *waddr, int *wlen)
{
    int len = 8;
    while (len > 1 && ((addr & (uint64_t)(len - 1)) != 0 || (uint32_t)len > size))
        len >>= 1;
    *waddr = addr;
    *wlen = len;
}
