/*
 * HotSpot's object and heap layout from VMStructs (see java_layout_load.h).
 * Names are tried in each spelling the supported JDKs use (17: HeapRegion,
 * CompressedKlassPointers::_narrow_klass._base; 22+: G1HeapRegion,
 * CompressedKlassPointers::_base). Not async-signal-safe.
 */
#include "agent/java_layout_load.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "agent/java_names.h"
#include "agent/vmflags.h"
#include "agent/vmstructs.h"
#include "heap/java_layout.h"
#include "heap/klass_set.h"
#include "profile/profile.h"

/* The address of a static field of one of two spellings, NULL when missing. */
static const void *static_field(const char *type, const char *f1, const char *f2)
{
    void *addr = NULL;
    if (wasp_vm_field(type, f1, NULL, &addr) == 0 && addr)
        return addr;
    if (f2 && wasp_vm_field(type, f2, NULL, &addr) == 0 && addr)
        return addr;
    return NULL;
}

static int static_u64(const char *type, const char *f1, const char *f2, uint64_t *v)
{
    const void *addr = static_field(type, f1, f2);
    if (addr)
        *v = *(const uint64_t *)addr;
    return addr ? 0 : -1;
}

static int static_i32(const char *type, const char *f1, const char *f2, int32_t *v)
{
    const void *addr = static_field(type, f1, f2);
    if (addr)
        *v = *(const int32_t *)addr;
    return addr ? 0 : -1;
}

static int offset_of(const char *type, const char *field, uint32_t *off)
{
    uint64_t o;
    if (wasp_vm_field(type, field, &o, NULL) != 0)
        return -1;
    *off = (uint32_t)o;
    return 0;
}

static int flag(const char *name)
{
    int v = 0;
    return wasp_vm_get_bool_flag(name, &v) == 0 && v;
}

static int load_header(wasp_java_layout *l, char *why, size_t len)
{
    int32_t shift = 0, hshift, hmask, lmask, tshift, tmask;
    l->compressed_klass = flag("UseCompressedClassPointers");
    if (flag("UseCompactObjectHeaders")) {
        snprintf(why, len, "-XX:+UseCompactObjectHeaders (the class word is in the mark word)");
        return -1;
    }
    if (l->compressed_klass &&
        (static_u64("CompressedKlassPointers", "_narrow_klass._base", "_base", &l->klass_base) ||
         static_i32("CompressedKlassPointers", "_narrow_klass._shift", "_shift", &shift))) {
        snprintf(why, len, "VMStructs lack CompressedKlassPointers");
        return -1;
    }
    l->klass_shift = (uint32_t)shift;
    if (offset_of("oopDesc", l->compressed_klass ? "_metadata._compressed_klass" : "_metadata._klass",
                  &l->klass_offset) ||
        offset_of("Klass", "_layout_helper", &l->lh_offset) ||
        wasp_vm_int_constant("Klass::_lh_header_size_shift", &hshift) ||
        wasp_vm_int_constant("Klass::_lh_header_size_mask", &hmask) ||
        wasp_vm_int_constant("Klass::_lh_log2_element_size_mask", &lmask) ||
        wasp_vm_int_constant("Klass::_lh_element_type_shift", &tshift) ||
        wasp_vm_int_constant("Klass::_lh_element_type_mask", &tmask) ||
        wasp_vm_int_constant("T_FLOAT", &l->t_float) ||
        wasp_vm_int_constant("T_DOUBLE", &l->t_double)) {
        snprintf(why, len, "VMStructs lack the object header's or Klass's layout");
        return -1;
    }
    l->lh_header_shift = (uint32_t)hshift;
    l->lh_header_mask = (uint32_t)hmask;
    l->lh_log2_mask = (uint32_t)lmask;
    l->lh_type_shift = (uint32_t)tshift;
    l->lh_type_mask = (uint32_t)tmask;
    /* The array length follows the class word. */
    l->length_offset = l->klass_offset + (l->compressed_klass ? 4 : 8);
    return 0;
}

/* The collected heap object (Universe::_collectedHeap). */
static uint64_t collected_heap(void)
{
    void *addr = NULL;
    if (wasp_vm_field("Universe", "_collectedHeap", NULL, &addr) != 0 || !addr)
        return 0;
    return *(const uint64_t *)addr;
}

static void load_g1(wasp_java_layout *l)
{
    uint32_t hrm, regions, biased, shift, type, tag;
    uint64_t heap = collected_heap();
    const char *region = wasp_vm_field("G1HeapRegion", "_type", NULL, NULL) == 0 ? "G1HeapRegion"
                                                                                 : "HeapRegion";
    const char *rtype = region[0] == 'G' ? "G1HeapRegionType" : "HeapRegionType";
    const char *mgr = region[0] == 'G' ? "G1HeapRegionManager" : "HeapRegionManager";
    char name[64];
    if (!heap || offset_of("G1CollectedHeap", "_hrm", &hrm) || offset_of(mgr, "_regions", &regions) ||
        offset_of("G1HeapRegionTable", "_biased_base", &biased) ||
        offset_of("G1HeapRegionTable", "_shift_by", &shift) || offset_of(region, "_type", &type) ||
        offset_of(rtype, "_tag", &tag))
        return;
    const char *table = (const char *)heap + hrm + regions;
    l->g1_biased_base = *(const uint64_t *)(table + biased);
    l->g1_shift = *(const uint32_t *)(table + shift);
    l->g1_type_offset = type + tag;
    int32_t v;
#define G1_TAG(field, what)                                                                   \
    snprintf(name, sizeof name, "%s::%s", rtype, what);                                       \
    if (wasp_vm_int_constant(name, &v) != 0)                                                  \
        return;                                                                               \
    l->field = v;
    G1_TAG(g1_eden, "EdenTag")
    G1_TAG(g1_survivor, "SurvTag")
    G1_TAG(g1_humongous_mask, "HumongousMask")
    G1_TAG(g1_old_mask, "OldMask")
#undef G1_TAG
    if (l->g1_biased_base && l->g1_shift)
        l->gc = WASP_GC_G1;
}

/* A space pointer field of a generation object, with the space type's bounds. */
static void space(wasp_java_space *s, uint64_t gen, const char *gen_type, const char *field,
                  const char *space_type)
{
    uint32_t off, bottom, end;
    if (!gen || offset_of(gen_type, field, &off) || offset_of(space_type, "_bottom", &bottom) ||
        offset_of(space_type, "_end", &end))
        return;
    s->space = *(const uint64_t *)(gen + off);
    s->bottom_off = bottom;
    s->end_off = end;
}

static void load_serial(wasp_java_layout *l)
{
    uint64_t heap = collected_heap();
    uint32_t young, old;
    /* JDK 17: GenCollectedHeap; 21+: SerialHeap. Spaces: Space (17) or
     * ContiguousSpace (21+) hold _bottom and _end. */
    const char *ht = wasp_vm_field("SerialHeap", "_young_gen", NULL, NULL) == 0 ? "SerialHeap"
                                                                               : "GenCollectedHeap";
    const char *st = wasp_vm_field("Space", "_bottom", NULL, NULL) == 0 ? "Space" : "ContiguousSpace";
    if (!heap || offset_of(ht, "_young_gen", &young) || offset_of(ht, "_old_gen", &old))
        return;
    uint64_t y = *(const uint64_t *)(heap + young), o = *(const uint64_t *)(heap + old);
    space(&l->spaces[WASP_SPACE_EDEN], y, "DefNewGeneration", "_eden_space", st);
    space(&l->spaces[WASP_SPACE_FROM], y, "DefNewGeneration", "_from_space", st);
    space(&l->spaces[WASP_SPACE_TO], y, "DefNewGeneration", "_to_space", st);
    space(&l->spaces[WASP_SPACE_OLD], o, "TenuredGeneration", "_the_space", st);
    if (l->spaces[WASP_SPACE_EDEN].space && l->spaces[WASP_SPACE_OLD].space)
        l->gc = WASP_GC_SERIAL;
}

static void load_parallel(wasp_java_layout *l)
{
    uint64_t y, o;
    if (static_u64("ParallelScavengeHeap", "_young_gen", NULL, &y) ||
        static_u64("ParallelScavengeHeap", "_old_gen", NULL, &o))
        return;
    const char *ms = "MutableSpace";
    space(&l->spaces[WASP_SPACE_EDEN], y, "PSYoungGen", "_eden_space", ms);
    space(&l->spaces[WASP_SPACE_FROM], y, "PSYoungGen", "_from_space", ms);
    space(&l->spaces[WASP_SPACE_TO], y, "PSYoungGen", "_to_space", ms);
    space(&l->spaces[WASP_SPACE_OLD], o, "PSOldGen", "_object_space", ms);
    if (l->spaces[WASP_SPACE_EDEN].space && l->spaces[WASP_SPACE_OLD].space)
        l->gc = WASP_GC_PARALLEL;
}

/* Where mirrors keep their size and their class (java_layout.h); left 0,
 * mirrors are sized as plain java.lang.Class instances. */
static void load_mirrors(wasp_java_layout *l, JNIEnv *env)
{
    static const char *const class_class[] = {"java/lang/Class"};
    int32_t size_at, klass_at;
    uint64_t klass;
    if (static_i32("java_lang_Class", "_oop_size_offset", NULL, &size_at) == 0 &&
        static_i32("java_lang_Class", "_klass_offset", NULL, &klass_at) == 0 && size_at > 0 &&
        klass_at > 0 && wasp_java_class_klasses(env, class_class, 1, &klass) == 1) {
        l->mirror_klass = klass;
        l->mirror_size_offset = (uint32_t)size_at;
        l->mirror_klass_offset = (uint32_t)klass_at;
        /* The JVM's own metadata, in this process: Class's instance size. */
        l->mirror_statics = (uint32_t)(*(const int32_t *)(uintptr_t)(klass + l->lh_offset) & ~1);
    }
}

/* The classes of most large objects, met in advance: the backward search
 * goes deep only for classes already met (heap/java_object.h), and an array
 * reached only through derived pointers would otherwise wait for an access
 * that names it. */
static void meet_array_classes(JNIEnv *env)
{
    static const char *const arrays[] = {"[Ljava/lang/Object;", "[B", "[C", "[S", "[I",
                                         "[J", "[F", "[D", "[Z"};
    enum { N = sizeof arrays / sizeof arrays[0] };
    uint64_t klass[N];
    wasp_java_class_klasses(env, arrays, N, klass);
    for (size_t i = 0; i < N; i++)
        if (klass[i])
            wasp_klass_set_add(klass[i]);
}

/* Why the last load failed; empty when it did not. */
static char failure[256];

void wasp_java_layout_blind_meta(wasp_profile *p, const char *analysis)
{
    if (!failure[0] || __atomic_load_n(&wasp_java.ready, __ATOMIC_ACQUIRE))
        return;
    char key[64], text[400];
    snprintf(key, sizeof key, "blind.%s", analysis);
    snprintf(text, sizeof text, "%s found no Java objects: HotSpot's object layout was not read (%s)",
             analysis, failure);
    wasp_profile_set_meta(p, key, text);
}

static int layout_load(JNIEnv *env, char *why, size_t len);

int wasp_java_layout_load(JNIEnv *env, char *why, size_t len)
{
    failure[0] = 0;
    int rc = layout_load(env, why, len);
    if (rc != 0)
        snprintf(failure, sizeof failure, "%s", why);
    return rc;
}

static int layout_load(JNIEnv *env, char *why, size_t len)
{
    wasp_java_layout l;
    memset(&l, 0, sizeof l);
    char range_why[256];
    if (wasp_vm_heap_range(&l.heap_lo, &l.heap_hi, range_why, sizeof range_why) != 0) {
        snprintf(why, len, "VMStructs do not give the Java heap's range: %s", range_why);
        return -1;
    }
    if (load_header(&l, why, len) != 0)
        return -1;
    load_mirrors(&l, env);
    meet_array_classes(env);
    static_u64("CodeCache", "_low_bound", NULL, &l.code_lo);
    static_u64("CodeCache", "_high_bound", NULL, &l.code_hi);
    if (flag("UseG1GC"))
        load_g1(&l);
    else if (flag("UseSerialGC"))
        load_serial(&l);
    else if (flag("UseParallelGC"))
        load_parallel(&l);
    l.ready = 0;
    wasp_java = l;
    __atomic_store_n(&wasp_java.ready, 1, __ATOMIC_RELEASE);
    return 0;
}
