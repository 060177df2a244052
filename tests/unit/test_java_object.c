/* Finding the Java object at an address (heap/java_object.c) in a fake heap
 * laid out as HotSpot lays out objects with compressed class pointers: the
 * instruction's shortcut, the backward search, and what a header must prove
 * (its class's layout helper covers the address; the access fits). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "heap/java_layout.h"
#include "heap/humongous.h"
#include "heap/java_object.h"
#include "heap/klass_set.h"
#include "heap/recent_objects.h"

/* Two fake classes (a 32-byte instance class, an int[] class) and a heap. */
static uint64_t klasses[3][4] __attribute__((aligned(8)));
/* Page-aligned: the G1 test maps it into 4 KiB regions from its start. */
static uint64_t heap[4096] __attribute__((aligned(4096)));

enum { INSTANCE = 0, INT_ARRAY = 1, DOUBLE_ARRAY = 2, LH_OFFSET = 8 };

static uint64_t klass_addr(int k)
{
    return (uint64_t)(uintptr_t)&klasses[k][0];
}

static void set_lh(int k, int32_t lh)
{
    memcpy((char *)&klasses[k][0] + LH_OFFSET, &lh, sizeof lh);
}

/* An object header at word w of the heap: mark 1 (unlocked), narrow class. */
static uint64_t put_header(size_t w, int k, int32_t length)
{
    uint64_t narrow = klass_addr(k) - wasp_java.klass_base;
    heap[w] = 1;
    heap[w + 1] = narrow | (uint64_t)(uint32_t)length << 32;
    return (uint64_t)(uintptr_t)&heap[w];
}

static int setup(void **state)
{
    (void)state;
    memset(heap, 0, sizeof heap);
    memset(&wasp_java, 0, sizeof wasp_java);
    wasp_klass_set_clear();
    wasp_java.heap_lo = (uint64_t)(uintptr_t)heap;
    wasp_java.heap_hi = wasp_java.heap_lo + sizeof heap;
    wasp_java.compressed_klass = 1;
    /* The fake classes sit within 4 GiB above the base: narrow = offset. */
    uint64_t lo = klass_addr(0);
    for (int k = 1; k < 3; k++)
        lo = klass_addr(k) < lo ? klass_addr(k) : lo;
    wasp_java.klass_base = lo - 4096;
    wasp_java.klass_offset = 8;
    wasp_java.length_offset = 12;
    wasp_java.lh_offset = LH_OFFSET;
    wasp_java.lh_header_shift = 16;
    wasp_java.lh_header_mask = 0xff;
    wasp_java.lh_log2_mask = 0x3f;
    wasp_java.lh_type_shift = 8;
    wasp_java.lh_type_mask = 0xff;
    wasp_java.t_float = 6;
    wasp_java.t_double = 7;
    set_lh(INSTANCE, 32);
    /* int[]: tag 0b11 (primitive array), header 16 bytes, element type
     * T_INT (10), log2 element 2. */
    set_lh(INT_ARRAY, (int32_t)(0xC0000000u | 16u << 16 | 10u << 8 | 2u));
    /* double[]: element type T_DOUBLE (7), log2 element 3. */
    set_lh(DOUBLE_ARRAY, (int32_t)(0xC0000000u | 16u << 16 | 7u << 8 | 3u));
    wasp_java.ready = 1;
    return 0;
}

static wasp_access load(uint64_t addr, uint32_t size, int64_t disp, uint64_t base, int index)
{
    wasp_access a = {.addr = addr, .size = size, .kind = WASP_ACCESS_LOAD, .disp = disp,
                     .base_val = base, .has_base = base != 0, .has_index = (uint8_t)index};
    return a;
}

static void field_by_instruction(void **state)
{
    (void)state;
    uint64_t obj = put_header(100, INSTANCE, 0);
    wasp_access a = load(obj + 16, 4, 16, obj, 0);
    wasp_java_object o;
    assert_int_equal(wasp_java_object_find(obj + 16, &a, NULL, &o), WASP_JFIND_INSN);
    assert_true(o.start == obj);
    assert_true(o.klass == klass_addr(INSTANCE));
    assert_int_equal(o.offset, 16);
    assert_int_equal(o.size, 32);
    assert_false(o.array);
}

static void array_by_base_register(void **state)
{
    (void)state;
    uint64_t arr = put_header(200, INT_ARRAY, 100); /* 16 + 400 bytes */
    uint64_t addr = arr + 16 + 4 * 37;
    wasp_access a = load(addr, 4, 16, arr, 1);
    wasp_java_object o;
    assert_int_equal(wasp_java_object_find(addr, &a, NULL, &o), WASP_JFIND_INSN);
    assert_true(o.start == arr);
    assert_true(o.array);
    assert_int_equal(o.header, 16);
    assert_int_equal(o.size, 416);
}

static void search_finds_the_nearest_header(void **state)
{
    (void)state;
    put_header(300, INSTANCE, 0);
    uint64_t arr = put_header(310, INT_ARRAY, 64);
    uint64_t addr = arr + 16 + 4 * 50;
    /* An address the instruction does not explain (no base, odd disp). */
    wasp_access a = load(addr, 4, 0x7777, 0, 0);
    wasp_java_object o;
    assert_int_equal(wasp_java_object_find(addr, &a, NULL, &o), WASP_JFIND_SCAN);
    assert_true(o.start == arr);
}

/* An array walked through a derived pointer, deeper than the search
 * reaches: named by the thread's recent objects once an instruction named
 * it, while its header still reads back, within one GC epoch. */
static void recent_objects_name_deep_accesses(void **state)
{
    (void)state;
    uint64_t arr = put_header(1000, INT_ARRAY, 1000); /* 16 + 4000 bytes */
    uint64_t deep = arr + 16 + 4 * 900;               /* 3.6 KiB in */
    wasp_access derived = load(deep, 4, 0, deep, 0);  /* (%rbx), rbx = &arr[900] */
    wasp_java_object o;
    wasp_recent_objects recent;
    memset(&recent, 0, sizeof recent);
    wasp_recent_objects_sync(&recent, 7);
    assert_int_equal(wasp_java_object_find(deep, &derived, &recent, &o), WASP_JFIND_NO_HEADER);

    wasp_access indexed = load(arr + 16 + 4 * 3, 4, 16, arr, 1);
    assert_int_equal(wasp_java_object_find(indexed.addr, &indexed, &recent, &o), WASP_JFIND_INSN);
    assert_int_equal(wasp_java_object_find(deep, &derived, &recent, &o), WASP_JFIND_RECENT);
    assert_true(o.start == arr && o.array && o.offset == 16 + 4 * 900);
    assert_int_equal(wasp_java_object_find(deep, &derived, NULL, &o), WASP_JFIND_NO_HEADER);

    /* a double access fits no int[] element */
    wasp_access dbl = derived;
    dbl.size = 8;
    dbl.float_size = 8;
    assert_int_not_equal(wasp_java_object_find(deep, &dbl, &recent, &o), WASP_JFIND_RECENT);

    /* a collection since: forgotten */
    wasp_recent_objects_sync(&recent, 8);
    assert_int_equal(wasp_java_object_find(deep, &derived, &recent, &o), WASP_JFIND_NO_HEADER);

    /* a header that no longer reads back (another class there): forgotten */
    assert_int_equal(wasp_java_object_find(indexed.addr, &indexed, &recent, &o), WASP_JFIND_INSN);
    put_header(1000, DOUBLE_ARRAY, 500);
    assert_int_not_equal(wasp_java_object_find(deep, &derived, &recent, &o), WASP_JFIND_RECENT);
    for (int i = 0; i < WASP_RECENT_OBJECTS; i++)
        assert_true(recent.start[i] != arr);

    /* a small object is not kept: the search finds it */
    uint64_t obj = put_header(100, INSTANCE, 0);
    wasp_access f = load(obj + 16, 4, 16, obj, 0);
    assert_int_equal(wasp_java_object_find(obj + 16, &f, &recent, &o), WASP_JFIND_INSN);
    for (int i = 0; i < WASP_RECENT_OBJECTS; i++)
        assert_true(recent.start[i] != obj);
}

/* Deeper than the backward search's reach: found when its class is one the
 * handler has met, and only when the object covers the address. */
static void deep_search_for_known_classes(void **state)
{
    (void)state;
    uint64_t arr = put_header(1000, INT_ARRAY, 1000); /* 16 + 4000 bytes */
    uint64_t deep = arr + 16 + 4 * 900;
    wasp_access derived = load(deep, 4, 0, deep, 0);
    wasp_java_object o;
    assert_int_equal(wasp_java_object_find(deep, &derived, NULL, &o), WASP_JFIND_NO_HEADER);
    assert_int_equal(wasp_klass_set_add(klass_addr(INT_ARRAY)), 1);
    assert_int_equal(wasp_java_object_find(deep, &derived, NULL, &o), WASP_JFIND_SCAN);
    assert_true(o.start == arr && o.offset == 16 + 4 * 900 && o.size == 4016);
    /* past its end, in free memory: the nearest known header does not cover it */
    uint64_t past = arr + 4016 + 2100;
    wasp_access beyond = load(past, 4, 0, past, 0);
    assert_int_equal(wasp_java_object_find(past, &beyond, NULL, &o), WASP_JFIND_NO_HEADER);
}

/* A java.lang.Class instance (a mirror) is as large as its int says, its
 * class's statics after its own fields; an offset there names the class it
 * mirrors. */
static void mirrors_and_their_statics(void **state)
{
    (void)state;
    enum { MIRROR_SIZE_AT = 24, MIRROR_KLASS_AT = 32 };
    wasp_java.mirror_klass = klass_addr(INSTANCE); /* 32-byte instances: Class's own fields */
    wasp_java.mirror_size_offset = MIRROR_SIZE_AT;
    wasp_java.mirror_klass_offset = MIRROR_KLASS_AT;
    wasp_java.mirror_statics = 32;
    uint64_t mirror = put_header(2000, INSTANCE, 0);
    int32_t words = 8; /* 64 bytes: statics at 32..63 */
    memcpy((char *)&heap[2000] + MIRROR_SIZE_AT, &words, sizeof words);
    uint64_t owner = klass_addr(INT_ARRAY); /* any class: the one mirrored */
    memcpy((char *)&heap[2000] + MIRROR_KLASS_AT, &owner, sizeof owner);
    wasp_access st = load(mirror + 40, 8, 40, mirror, 0);
    wasp_java_object o;
    assert_int_equal(wasp_java_object_find(mirror + 40, &st, NULL, &o), WASP_JFIND_INSN);
    assert_int_equal(o.size, 64);
    uint64_t k = 0;
    assert_int_equal(wasp_java_static_owner(&o, &k), 1);
    assert_true(k == owner);
    /* its own field: no static owner */
    wasp_access own = load(mirror + 24, 4, 24, mirror, 0);
    assert_int_equal(wasp_java_object_find(mirror + 24, &own, NULL, &o), WASP_JFIND_INSN);
    assert_int_equal(wasp_java_static_owner(&o, &k), 0);
    /* a size that cannot be (smaller than Class's own fields): the class's size */
    words = 2;
    memcpy((char *)&heap[2000] + MIRROR_SIZE_AT, &words, sizeof words);
    assert_int_not_equal(wasp_java_object_find(mirror + 40, &st, NULL, &o), WASP_JFIND_INSN);
    /* not a mirror's class: sized by its layout helper alone */
    wasp_java.mirror_klass = 0;
    words = 8;
    memcpy((char *)&heap[2000] + MIRROR_SIZE_AT, &words, sizeof words);
    assert_int_not_equal(wasp_java_object_find(mirror + 40, &st, NULL, &o), WASP_JFIND_INSN);
}

static void an_object_must_cover_the_address(void **state)
{
    (void)state;
    uint64_t obj = put_header(400, INSTANCE, 0); /* 32 bytes: words 400-403 */
    uint64_t past = obj + 40;                    /* in free memory after it */
    wasp_access a = load(past, 4, 40, obj, 0);
    wasp_java_object o;
    assert_int_equal(wasp_java_object_find(past, &a, NULL, &o), WASP_JFIND_NO_HEADER);
}

static void accesses_must_fit(void **state)
{
    (void)state;
    uint64_t arr = put_header(500, INT_ARRAY, 64);
    uint64_t addr = arr + 16 + 8;
    wasp_java_object o;
    wasp_access dbl = load(addr, 8, 16, arr, 1);
    dbl.float_size = 8; /* a double load names no int[] */
    assert_int_not_equal(wasp_java_object_find(addr, &dbl, NULL, &o), WASP_JFIND_INSN);
    wasp_access odd = load(addr + 2, 4, 16, arr, 1); /* misaligned */
    assert_int_not_equal(wasp_java_object_find(addr + 2, &odd, NULL, &o), WASP_JFIND_INSN);
    wasp_access vec = load(addr, 32, 16, arr, 1); /* a vector copy spans elements */
    assert_int_equal(wasp_java_object_find(addr, &vec, NULL, &o), WASP_JFIND_INSN);
    /* The element type comes from the layout helper: a double[] takes double
     * loads, not float ones. */
    uint64_t darr = put_header(600, DOUBLE_ARRAY, 16);
    uint64_t daddr = darr + 16 + 8 * 3;
    wasp_access d8 = load(daddr, 8, 16, darr, 1);
    d8.float_size = 8;
    assert_int_equal(wasp_java_object_find(daddr, &d8, NULL, &o), WASP_JFIND_INSN);
    wasp_access f4 = load(daddr, 4, 16, darr, 1);
    f4.float_size = 4;
    assert_int_not_equal(wasp_java_object_find(daddr, &f4, NULL, &o), WASP_JFIND_INSN);
}

static void bad_class_words_are_refused(void **state)
{
    (void)state;
    uint64_t obj = put_header(600, INSTANCE, 0);
    set_lh(INSTANCE, 0); /* the neutral layout helper: no object has it */
    wasp_access a = load(obj + 16, 4, 16, obj, 0);
    wasp_java_object o;
    assert_int_equal(wasp_java_object_find(obj + 16, &a, NULL, &o), WASP_JFIND_NO_HEADER);
    set_lh(INSTANCE, 32);
    heap[601] = 0x7ff00000; /* narrow class pointing to unmapped memory */
    assert_int_equal(wasp_java_object_find(obj + 16, &a, NULL, &o), WASP_JFIND_NO_HEADER);
}

static void an_object_being_initialized(void **state)
{
    (void)state;
    put_header(700, INSTANCE, 0);
    heap[800] = 1; /* the initial mark word ... */
    heap[801] = 0; /* ... and no class yet: the body is being cleared */
    uint64_t addr = (uint64_t)(uintptr_t)&heap[802];
    wasp_java_object o;
    assert_int_equal(wasp_java_object_find(addr, NULL, NULL, &o), WASP_JFIND_INITIALIZING);
    /* Once the class is stored, the same address is the new object's. */
    heap[801] = klass_addr(INSTANCE) - wasp_java.klass_base;
    assert_int_equal(wasp_java_object_find(addr, NULL, NULL, &o), WASP_JFIND_SCAN);
    assert_true(o.start == (uint64_t)(uintptr_t)&heap[800]);
}

/* -XX:-UseCompressedClassPointers: an 8-byte class word, the length at 16,
 * and the elements where the class's layout helper says (24 on JDK 17, 20
 * for ints on JDK 22+). */
static uint64_t put_wide_header(size_t w, int k, int32_t length)
{
    heap[w] = 1;
    heap[w + 1] = klass_addr(k);
    heap[w + 2] = (uint64_t)(uint32_t)length;
    return (uint64_t)(uintptr_t)&heap[w];
}

static void without_compressed_class_pointers(void **state)
{
    (void)state;
    wasp_java.compressed_klass = 0;
    wasp_java.klass_base = 0;
    wasp_java.length_offset = 16;
    set_lh(INT_ARRAY, (int32_t)(0xC0000000u | 24u << 16 | 10u << 8 | 2u));
    uint64_t arr = put_wide_header(900, INT_ARRAY, 10); /* 24 + 40 bytes */
    wasp_java_object o;
    wasp_access len = load(arr + 16, 4, 16, arr, 0); /* a bounds check reads the length */
    assert_int_equal(wasp_java_object_find(arr + 16, &len, NULL, &o), WASP_JFIND_INSN);
    assert_int_equal(o.header, 24);
    assert_int_equal(o.size, 64);
    wasp_access e = load(arr + 24 + 4 * 3, 4, 24, arr, 1);
    assert_int_equal(wasp_java_object_find(arr + 36, &e, NULL, &o), WASP_JFIND_INSN);
    assert_true(o.start == arr);
    wasp_access half = load(arr + 24, 2, 24, arr, 1); /* a short access names no int[] */
    assert_int_not_equal(wasp_java_object_find(arr + 24, &half, NULL, &o), WASP_JFIND_INSN);
    /* JDK 22+: ints right after the length, at 20. */
    set_lh(INT_ARRAY, (int32_t)(0xC0000000u | 20u << 16 | 10u << 8 | 2u));
    wasp_access first = load(arr + 20, 4, 20, arr, 1);
    assert_int_equal(wasp_java_object_find(arr + 20, &first, NULL, &o), WASP_JFIND_INSN);
    assert_int_equal(o.header, 20);
    assert_int_equal(o.size, 64); /* 20 + 40, to 8 bytes */
    /* Instances: fields from 16, found by the search too. */
    uint64_t obj = put_wide_header(1000, INSTANCE, 0);
    wasp_access f = load(obj + 16, 8, 0x7777, 0, 0);
    assert_int_equal(wasp_java_object_find(obj + 16, &f, NULL, &o), WASP_JFIND_SCAN);
    assert_true(o.start == obj);
    assert_int_equal(o.header, 16);
}

/* The thread's recent classes: a class's layout helper is read once per GC
 * epoch (a system call each), so a class's memory changed within an epoch
 * is not seen through them, and is after the next GC. */
static void recent_classes_read_once_per_epoch(void **state)
{
    (void)state;
    wasp_recent_objects r;
    memset(&r, 0, sizeof r);
    wasp_recent_objects_sync(&r, 1);
    uint64_t obj = put_header(100, INSTANCE, 0);
    wasp_access a = load(obj + 16, 4, 16, obj, 0);
    wasp_java_object o;
    assert_int_equal(wasp_java_object_find(obj + 16, &a, &r, &o), WASP_JFIND_INSN);
    assert_int_equal(o.size, 32);
    set_lh(INSTANCE, 48);
    assert_int_equal(wasp_java_object_find(obj + 16, &a, &r, &o), WASP_JFIND_INSN);
    assert_int_equal(o.size, 32); /* kept */
    assert_int_equal(wasp_java_object_find(obj + 16, &a, NULL, &o), WASP_JFIND_INSN);
    assert_int_equal(o.size, 48); /* read */
    wasp_recent_objects_sync(&r, 2);
    assert_int_equal(wasp_java_object_find(obj + 16, &a, &r, &o), WASP_JFIND_INSN);
    assert_int_equal(o.size, 48);
    /* An array's length comes with its header, through the cache too. */
    uint64_t arr = put_header(200, INT_ARRAY, 100);
    wasp_access e = load(arr + 16 + 4 * 99, 4, 16, arr, 1);
    assert_int_equal(wasp_java_object_find(arr + 16 + 4 * 99, &e, &r, &o), WASP_JFIND_INSN);
    assert_int_equal(o.size, 416);
    assert_int_equal(wasp_java_object_find(arr + 16 + 4 * 99, &e, &r, &o), WASP_JFIND_INSN);
    assert_int_equal(o.size, 416);
}

/* The fake heap as G1 regions of 4 KiB (eight of them), all free until
 * set_region gives one a kind (its type tag). */
enum { G1_SHIFT = 12, G1_REGIONS = sizeof heap >> G1_SHIFT, G1_TYPE = 8, G1_EDEN = 2,
       G1_OLD = 16, G1_HUMONGOUS = 32 };
static uint64_t g1_region[G1_REGIONS][4];

static void fake_g1_regions(void)
{
    static uint64_t table[G1_REGIONS];
    memset(g1_region, 0, sizeof g1_region);
    for (int i = 0; i < G1_REGIONS; i++)
        table[i] = (uint64_t)(uintptr_t)&g1_region[i][0];
    wasp_java.gc = WASP_GC_G1;
    wasp_java.g1_shift = G1_SHIFT;
    wasp_java.g1_type_offset = G1_TYPE;
    wasp_java.g1_eden = G1_EDEN;
    wasp_java.g1_survivor = 4;
    wasp_java.g1_humongous_mask = G1_HUMONGOUS;
    wasp_java.g1_old_mask = G1_OLD;
    wasp_java.g1_biased_base = (uint64_t)(uintptr_t)table - (wasp_java.heap_lo >> G1_SHIFT) * 8;
}

static void set_region(int i, int32_t tag)
{
    memcpy((char *)&g1_region[i][0] + G1_TYPE, &tag, sizeof tag);
}

/* G1 regions' areas kept by a thread for the GC epoch once known (eden,
 * survivor, old, humongous), never while free: a free region may become
 * eden or humongous at any time, the others change only in a pause. The
 * fake heap's 32 KiB are eight 4 KiB "regions". */
static void recent_regions_keep_their_area_per_epoch(void **state)
{
    (void)state;
    fake_g1_regions();
    set_region(1, G1_EDEN);
    uint64_t in1 = wasp_java.heap_lo + (1u << G1_SHIFT) + 64, in2 = in1 + (1u << G1_SHIFT);
    wasp_recent_objects r;
    memset(&r, 0, sizeof r);
    wasp_recent_objects_sync(&r, 1);
    assert_int_equal(wasp_recent_heap_area(&r, in1, 0), WASP_AREA_EDEN);
    set_region(1, G1_OLD);
    assert_int_equal(wasp_recent_heap_area(&r, in1, 0), WASP_AREA_EDEN); /* kept */
    assert_int_equal(wasp_recent_heap_area(NULL, in1, 0), WASP_AREA_OLD);
    wasp_recent_objects_sync(&r, 2);
    assert_int_equal(wasp_recent_heap_area(&r, in1, 0), WASP_AREA_OLD);
    /* Region 2 is free (no kind): read again until it has one. */
    assert_int_equal(wasp_recent_heap_area(&r, in2, 0), WASP_AREA_HEAP);
    set_region(2, G1_EDEN);
    assert_int_equal(wasp_recent_heap_area(&r, in2, 0), WASP_AREA_EDEN);
}

/* A G1 humongous object is tracked by its address (heap/humongous.h): its
 * class while its region is humongous and its header has the class and
 * size registered; nothing in a region of another kind, nor for another
 * size. */
static void humongous_objects_by_address(void **state)
{
    (void)state;
    fake_g1_regions();
    /* An int[1000] (16 + 4000 bytes) at the start of region 2. */
    uint64_t arr = put_header((2u << G1_SHIFT) / 8, INT_ARRAY, 1000);
    set_region(2, G1_EDEN); /* not humongous */
    assert_int_equal(wasp_humongous_klass(arr, 4016), 0);
    set_region(2, G1_HUMONGOUS | 1); /* starts humongous */
    assert_int_equal(wasp_humongous_klass(arr, 4016), klass_addr(INT_ARRAY));
    assert_int_equal(wasp_humongous_klass(arr, 4024), 0); /* another size */
    assert_int_equal(wasp_humongous_klass(arr + 8, 4016), 0); /* no header there */
    /* Freed: the region is no longer humongous, the header still there. */
    set_region(2, 0);
    assert_int_equal(wasp_humongous_klass(arr, 4016), 0);
    /* Another collector: never by address. */
    set_region(2, G1_HUMONGOUS | 1);
    wasp_java.gc = WASP_GC_PARALLEL;
    assert_int_equal(wasp_humongous_klass(arr, 4016), 0);
}

/* Serial's and Parallel's spaces, read once an epoch by a thread: bounds
 * that changed within it are not seen, but for an address in no space kept
 * (the old generation grew to take an allocation), looked up afresh. */
static void recent_spaces_are_read_once_per_epoch(void **state)
{
    (void)state;
    static uint64_t space[4][2]; /* bottom, end */
    memset(space, 0, sizeof space);
    for (int i = 0; i < 4; i++)
        wasp_java.spaces[i] = (wasp_java_space){(uint64_t)(uintptr_t)&space[i][0], 0, 8};
    uint64_t lo = wasp_java.heap_lo, k = 1024;
    space[WASP_SPACE_EDEN][0] = lo, space[WASP_SPACE_EDEN][1] = lo + 8 * k;
    space[WASP_SPACE_FROM][0] = lo + 8 * k, space[WASP_SPACE_FROM][1] = lo + 10 * k;
    space[WASP_SPACE_TO][0] = lo + 10 * k, space[WASP_SPACE_TO][1] = lo + 12 * k;
    space[WASP_SPACE_OLD][0] = lo + 16 * k, space[WASP_SPACE_OLD][1] = lo + 20 * k;
    wasp_java.gc = WASP_GC_PARALLEL;
    wasp_recent_objects r;
    memset(&r, 0, sizeof r);
    wasp_recent_objects_sync(&r, 1);
    assert_int_equal(wasp_recent_heap_area(&r, lo + 100, 0), WASP_AREA_EDEN);
    assert_int_equal(wasp_recent_heap_area(&r, lo + 9 * k, 0), WASP_AREA_SURVIVOR);
    assert_int_equal(wasp_recent_heap_area(&r, lo + 17 * k, 0), WASP_AREA_OLD);
    /* Eden shrinks in memory: the thread keeps what it read until the epoch ends. */
    space[WASP_SPACE_EDEN][1] = lo + 4 * k;
    assert_int_equal(wasp_recent_heap_area(&r, lo + 6 * k, 0), WASP_AREA_EDEN);
    assert_int_equal(wasp_recent_heap_area(NULL, lo + 6 * k, 0), WASP_AREA_HEAP);
    /* The old generation grows: an address past what was kept is read. */
    space[WASP_SPACE_OLD][1] = lo + 24 * k;
    assert_int_equal(wasp_recent_heap_area(&r, lo + 22 * k, 0), WASP_AREA_OLD);
    /* A new epoch reads the spaces again. */
    wasp_recent_objects_sync(&r, 2);
    assert_int_equal(wasp_recent_heap_area(&r, lo + 6 * k, 0), WASP_AREA_HEAP);
}

/* A header in the heap's last bytes: read as far as the heap goes. */
static void a_header_at_the_heap_end(void **state)
{
    (void)state;
    size_t last = sizeof heap / 8 - 2;
    uint64_t arr = put_header(last, INT_ARRAY, 0); /* an empty int[]: 16 bytes */
    wasp_java_object o;
    assert_int_equal(wasp_java_object_at(arr, arr + 12, NULL, &o), 1);
    assert_int_equal(o.size, 16);
    assert_true(o.array);
}

static void outside_the_heap_and_before_the_layout(void **state)
{
    (void)state;
    wasp_java_object o;
    assert_int_equal(wasp_java_object_find(wasp_java.heap_hi + 64, NULL, NULL, &o), WASP_JFIND_NOT_HEAP);
    wasp_java.ready = 0;
    assert_int_equal(wasp_java_object_find(wasp_java.heap_lo + 64, NULL, NULL, &o), WASP_JFIND_NO_LAYOUT);
}

/* The search by size (the alloc analysis, for an object the runtime built
 * after its trap): the header whose object ends exactly where the TLAB top
 * was, not a nearer word pair that looks like one. */
static void the_object_ending_at_the_top(void **state)
{
    (void)state;
    uint64_t arr = put_header(300, INT_ARRAY, 60); /* 16 + 240 bytes: words 300..331 */
    uint64_t end = arr + 256;
    /* Inside its elements, a fake header of the 32-byte class whose object
     * would hold the address but end elsewhere. */
    put_header(320, INSTANCE, 0);
    wasp_java_object o;
    uint64_t addr = arr + 8 * 21;
    assert_int_equal(wasp_java_object_ending(addr, end, &o), 1);
    assert_true(o.start == arr);
    assert_true(o.klass == klass_addr(INT_ARRAY));
    assert_int_equal(o.size, 256);
    /* The plain search takes the fake one: what the size check is for. */
    assert_int_equal(wasp_java_object_find(addr, NULL, NULL, &o), WASP_JFIND_SCAN);
    assert_true(o.start == (uint64_t)(uintptr_t)&heap[320]);
    /* An end no object has: none. */
    assert_int_equal(wasp_java_object_ending(addr, end + 8, &o), 0);
}

/* Headers further than one read away (4 KiB chunks) are found; past the
 * search's reach they are not. */
static void the_search_by_size_reads_chunk_by_chunk(void **state)
{
    (void)state;
    uint64_t arr = put_header(8, INT_ARRAY, 3000); /* 16 + 12000 bytes */
    uint64_t end = arr + 12016;
    wasp_java_object o;
    assert_int_equal(wasp_java_object_ending(arr + 11000, end, &o), 1);
    assert_true(o.start == arr);
    assert_int_equal(wasp_java_object_ending(arr + 16, end, &o), 1);
    /* The address must lie in the object. */
    assert_int_equal(wasp_java_object_ending(end, end + 8, &o), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(field_by_instruction, setup),
        cmocka_unit_test_setup(array_by_base_register, setup),
        cmocka_unit_test_setup(search_finds_the_nearest_header, setup),
        cmocka_unit_test_setup(recent_objects_name_deep_accesses, setup),
        cmocka_unit_test_setup(deep_search_for_known_classes, setup),
        cmocka_unit_test_setup(mirrors_and_their_statics, setup),
        cmocka_unit_test_setup(an_object_must_cover_the_address, setup),
        cmocka_unit_test_setup(accesses_must_fit, setup),
        cmocka_unit_test_setup(bad_class_words_are_refused, setup),
        cmocka_unit_test_setup(an_object_being_initialized, setup),
        cmocka_unit_test_setup(without_compressed_class_pointers, setup),
        cmocka_unit_test_setup(recent_classes_read_once_per_epoch, setup),
        cmocka_unit_test_setup(a_header_at_the_heap_end, setup),
        cmocka_unit_test_setup(recent_regions_keep_their_area_per_epoch, setup),
        cmocka_unit_test_setup(recent_spaces_are_read_once_per_epoch, setup),
        cmocka_unit_test_setup(outside_the_heap_and_before_the_layout, setup),
        cmocka_unit_test_setup(humongous_objects_by_address, setup),
        cmocka_unit_test_setup(the_object_ending_at_the_top, setup),
        cmocka_unit_test_setup(the_search_by_size_reads_chunk_by_chunk, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
