/*
 * G1's humongous objects, tracked by their address instead of a reference
 * (agent/alloc.c). G1 reclaims a dead humongous object (half a region or
 * more) at a young collection only when nothing refers to it, a JNI weak
 * reference included: held by one, every tracked large array lived on to
 * the next concurrent cycle (StringMoves under -e objects: 4 times the young
 * collections, the heap after one 430 MiB where it was 2 MiB, 1.3x the CPU;
 * docs/overhead.md). A humongous object does not move in young and mixed
 * collections (its regions are its own), so its address names it while it
 * lives; whether it still does after a collection its region says (still
 * humongous) and its header (the same class and size). A freed region holds
 * nothing a sample can hit; one that a new object of the same class and
 * size took is taken for the old one (most often a site's buffers of one
 * size: the same site).
 *
 * ASYNC-SIGNAL-SAFE: reads the region table and the header with
 * wasp_safe_read only (called by the agent's allocation callback and its
 * object-map thread, not by signal handlers).
 */
#ifndef WASP_HEAP_HUMONGOUS_H
#define WASP_HEAP_HUMONGOUS_H

#include <stdint.h>

/* The class (Klass*) of the object of size bytes whose header is at addr
 * when it lies in a G1 humongous region; 0 otherwise (another collector, a
 * region of another kind, no such object there, the layout not known). */
uint64_t wasp_humongous_klass(uint64_t addr, uint64_t size);

#endif
