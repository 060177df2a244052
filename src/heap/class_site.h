/*
 * Class sites: for objects that allocation tracking did not see (small ones,
 * those allocated between samples), the site of an access is the object's
 * class, found from its header (heap/java_object.h). Such a site id has its
 * top bit set and holds the class's slot in the klass set (heap/klass_set.h);
 * allocation-site ids (agent/alloc.c) stay below it. The dump turns a class
 * site into a profile site of that class whose allocation path is one
 * pseudo-frame saying it is unknown (agent/dump.c).
 *
 * ASYNC-SIGNAL-SAFE: constants and arithmetic.
 */
#ifndef WASP_HEAP_CLASS_SITE_H
#define WASP_HEAP_CLASS_SITE_H

#include <stdint.h>

#define WASP_CLASS_SITE_BIT 0x80000000u

static inline uint32_t wasp_class_site(uint32_t slot)
{
    return WASP_CLASS_SITE_BIT | slot;
}

static inline int wasp_is_class_site(uint32_t site)
{
    return (site & WASP_CLASS_SITE_BIT) != 0;
}

static inline uint32_t wasp_class_site_slot(uint32_t site)
{
    return site & ~WASP_CLASS_SITE_BIT;
}

/* Not a site: samples in the heap that hit no object the handler could
 * find, recorded with their contexts so that the dump can tell the ones
 * clearing a new object (analysis/objects/agent.c). Never becomes a profile
 * site. Below the class-site bit, above any allocation-site id. */
#define WASP_NO_OBJECT_SITE 0x7fffffffu

/* The pseudo-frame of a class site's allocation path. */
#define WASP_CLASS_SITE_FRAME "[not tracked: class from the object header; allocation path unknown]"

#endif
