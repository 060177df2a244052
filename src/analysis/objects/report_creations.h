/*
 * Where untracked objects of a class are created: a class site (objects the
 * allocation sampling never tracked, attributed by their headers) has no
 * allocation path of its own, but when the creation profile ran too
 * (`-e objects+alloc`: sampled stores of class words, Inoue and Nakatani's
 * object-creation profile), its contexts for the same class say where
 * objects of that class are created, each with its share of the class's
 * sampled creations. An estimate by class, not per object: a class created
 * at several places splits by how often each creates it.
 */
#ifndef WASP_OBJECTS_REPORT_CREATIONS_H
#define WASP_OBJECTS_REPORT_CREATIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/render/json_writer.h"
#include "profile/profile.h"

/* Whether the profile holds a creation profile (alloc records or its run). */
bool wasp_objects_have_creations(const wasp_profile *p);
/* The place where most of class site s's objects were created (sampled
 * creations, or allocations when -e alloc did not run; a place is where the
 * summary puts a context that creates the class, wasp_created_place): its
 * heaviest context, and the share of them all that the place's contexts
 * hold together. false when s is no class site or nothing was recorded. */
bool wasp_objects_top_creation(const wasp_profile *p, const wasp_site *s, uint32_t *ctx,
                               double *share);
/* Text: the creation contexts of site s's class (at most top), indented under
 * the site; nothing when s is not a class site or none were sampled. */
void wasp_objects_creations_text(const wasp_profile *p, const wasp_site *s, int top, FILE *out);
/* JSON member "creations" of a site: for a class site {"samples": N,
 * "contexts": [...]}; null for an allocation site or when the creation
 * profile did not run. */
int wasp_objects_creations_json(wasp_json *j, const wasp_profile *p, const wasp_site *s, int top);

#endif
