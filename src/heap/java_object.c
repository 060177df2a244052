/*
 * Finding the Java object at a data address (see java_object.h).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler. Memory is read only with
 * wasp_safe_read (one system call per read, so a header is read whole, the
 * search reads its whole window at once and tests at most SCAN_CLASSES class
 * candidates, and a thread keeps the layout helpers it read: recent_objects.h).
 */
#include "heap/java_object.h"

#include <string.h>

#include "heap/java_layout.h"
#include "heap/klass_set.h"
#include "heap/recent_objects.h"
#include "heap/site_kind.h"

enum {
    SCAN_CLASSES = 12,           /* class words tested by one backward search */
    WALK_CHUNK = 4096,           /* bytes a search by size reads at once */
    MAX_INSTANCE = 1 << 24,      /* no instance has 16 MiB of fields */
};

uint64_t wasp_java_klass_decode(uint64_t word)
{
    const wasp_java_layout *l = &wasp_java;
    if (!l->compressed_klass)
        return (word & 7) == 0 ? word : 0;
    uint32_t narrow = (uint32_t)word;
    if (!narrow)
        return 0;
    return l->klass_base + ((uint64_t)narrow << l->klass_shift);
}

int32_t wasp_java_layout_helper(uint64_t klass)
{
    int32_t lh = 0;
    if (!klass || (klass & 7) ||
        wasp_safe_read(klass + wasp_java.lh_offset, &lh, sizeof lh) != sizeof lh)
        return 0;
    return lh;
}

int wasp_java_lh_valid(int32_t lh)
{
    const wasp_java_layout *l = &wasp_java;
    if (lh > 0) {
        uint32_t size = (uint32_t)(lh & ~1);
        return size >= 16 && size <= MAX_INSTANCE && (size & 7) == 0;
    }
    if (lh == 0)
        return 0;
    /* Arrays: the top two bits are the tag (0b11 primitive, 0b10 objects). */
    uint32_t tag = (uint32_t)lh >> 30;
    uint32_t header = ((uint32_t)lh >> l->lh_header_shift) & l->lh_header_mask;
    uint32_t log2 = (uint32_t)lh & l->lh_log2_mask;
    return (tag == 2 || tag == 3) && log2 <= 3 && header >= 12 && header <= 32;
}

/* An array class's header bytes and element kind into o, from its layout
 * helper lh; returns log2 of the element size. */
static uint32_t array_shape(const wasp_java_layout *l, int32_t lh, wasp_java_object *o)
{
    uint32_t log2 = (uint32_t)lh & l->lh_log2_mask;
    uint32_t type = ((uint32_t)lh >> l->lh_type_shift) & l->lh_type_mask;
    int floating = (int32_t)type == l->t_float || (int32_t)type == l->t_double;
    o->array = 1;
    o->header = ((uint32_t)lh >> l->lh_header_shift) & l->lh_header_mask;
    o->kind = (uint8_t)((1u << log2) | (floating ? WASP_KIND_FLOAT : 0));
    return log2;
}

/* The bytes of an array of o's shape (array_shape) and `length` elements of
 * 1 << log2 bytes, 0 for a negative length. */
static uint64_t array_bytes(const wasp_java_object *o, uint32_t log2, int32_t length)
{
    return length < 0 ? 0 : (o->header + ((uint64_t)length << log2) + 7) & ~7ull;
}

/* A java.lang.Class instance's size: its own fields and then its class's
 * static fields (java_layout.h); base, the class's instance size, when it
 * cannot be read. */
static uint64_t mirror_size(const wasp_java_layout *l, uint64_t p, uint64_t base)
{
    int32_t words;
    if (wasp_safe_read(p + l->mirror_size_offset, &words, sizeof words) != sizeof words ||
        words <= 0 || (uint64_t)words * 8 < base || (uint64_t)words * 8 > MAX_INSTANCE)
        return base;
    return (uint64_t)words * 8;
}

/* The size of an object of class klass and layout helper lh whose header is
 * at p (arrays and mirrors: read from it, unless reads is 0: then an array
 * is 0 and a mirror its base size), or 0 when lh cannot be a Java
 * object's. */
static uint64_t object_size(const wasp_java_layout *l, uint64_t klass, int32_t lh, uint64_t p,
                            int reads, wasp_java_object *o)
{
    if (!wasp_java_lh_valid(lh))
        return 0;
    if (lh > 0) {
        o->array = 0;
        o->kind = 0;
        o->header = l->compressed_klass ? l->klass_offset + 4 : l->klass_offset + 8;
        uint64_t size = (uint64_t)(lh & ~1);
        return reads && l->mirror_klass && klass == l->mirror_klass ? mirror_size(l, p, size) : size;
    }
    uint32_t log2 = array_shape(l, lh, o);
    int32_t length;
    if (!reads || wasp_safe_read(p + l->length_offset, &length, sizeof length) != sizeof length)
        return 0;
    return array_bytes(o, log2, length);
}

static void place(wasp_java_object *o, uint64_t p, uint64_t klass, uint64_t size, uint64_t addr)
{
    o->start = p;
    o->klass = klass;
    o->size = size;
    o->offset = (uint32_t)(addr - p);
}

/* The object of class klass and size bytes at p, into o when it covers
 * addr and ends in the heap: 1, else 0. */
static int place_covering(const wasp_java_layout *l, wasp_java_object *o, uint64_t p,
                          uint64_t klass, uint64_t size, uint64_t addr)
{
    if (!size || addr >= p + size || p + size > l->heap_hi)
        return 0;
    place(o, p, klass, size, addr);
    return 1;
}

/* p's header, its class word already read (word): the object if it is one
 * that covers addr. */
static int object_with_word(const wasp_java_layout *l, uint64_t p, uint64_t word, uint64_t addr,
                            wasp_java_object *o)
{
    uint64_t klass = wasp_java_klass_decode(word);
    int32_t lh = wasp_java_layout_helper(klass);
    if (!lh)
        return 0;
    return place_covering(l, o, p, klass, object_size(l, klass, lh, p, 1, o), addr);
}

/* A few classes' layout helpers, so a search reads each class once. */
typedef struct lh_cache {
    uint64_t klass[8];
    int32_t lh[8];
    int n;
} lh_cache;

static int32_t cached_lh(lh_cache *c, uint64_t klass)
{
    for (int i = 0; i < c->n; i++)
        if (c->klass[i] == klass)
            return c->lh[i];
    int32_t lh = wasp_java_layout_helper(klass);
    int i = c->n < 8 ? c->n++ : (int)(klass >> 3) & 7;
    c->klass[i] = klass;
    c->lh[i] = lh;
    return lh;
}

/* Whether a mark word can be a young object's: age 0, unlocked (hash only)
 * or locked (a lock record or monitor, or lightweight-locked: the same
 * bits), never forwarded (no GC since it was created). */
static int young_mark(uint64_t mark)
{
    if ((mark & 3) == 1)
        return (mark & 0x7c) == 0 && (mark >> 39) == 0;
    return (mark & 3) != 3 && mark < (1ull << 47);
}

/* A candidate header at p, its words (and the 16 bytes after them) in h:
 * 1 when it is the object the walk looks for (o filled), -1 to stop the
 * walk, 0 to go on. */
typedef int (*header_test)(uint64_t p, const uint64_t *h, void *arg);

/* Tests every word from addr down to floor as a header, reading the heap in
 * chunks of WALK_CHUNK bytes (each with the 24 bytes above its last word, so
 * a header and an array length read from the copy): 1 when a test says so,
 * 0 otherwise (a test stopped, the floor was reached or a read failed). */
static int walk_back(uint64_t addr, uint64_t floor, header_test test, void *arg)
{
    uint64_t words[WALK_CHUNK / 8 + 3];
    for (uint64_t hi = addr & ~7ull; hi >= floor;) {
        uint64_t lo = hi - floor > WALK_CHUNK - 8 ? hi - (WALK_CHUNK - 8) : floor;
        size_t got = wasp_safe_read(lo, words, (size_t)(hi - lo) + 24);
        if (got < (size_t)(hi - lo) + 24)
            return 0;
        for (uint64_t p = hi;; p -= 8) {
            int r = test(p, &words[(p - lo) / 8], arg);
            if (r)
                return r > 0;
            if (p == lo)
                break;
        }
        if (lo == floor)
            break;
        hi = lo - 8;
    }
    return 0;
}

/* The class a header's words name (0 when none), and its object's size with
 * its array length read from the words (0 when lh is not an object's). */
static uint64_t header_klass(const wasp_java_layout *l, const uint64_t *h)
{
    uint64_t word = h[l->klass_offset / 8];
    if (l->compressed_klass)
        word = l->klass_offset % 8 ? word >> 32 : word & 0xffffffffu;
    return word ? wasp_java_klass_decode(word) : 0;
}

static uint64_t header_size(const wasp_java_layout *l, int32_t lh, uint64_t p, const uint64_t *h,
                            wasp_java_object *o)
{
    if (!wasp_java_lh_valid(lh))
        return 0;
    uint64_t size = object_size(l, 0, lh, p, 0, o);
    if (lh < 0) {
        int32_t length;
        memcpy(&length, (const char *)h + l->length_offset, sizeof length);
        size = array_bytes(o, (uint32_t)lh & l->lh_log2_mask, length);
    }
    return size;
}

/* Layout helpers read (a system call each) by one search by size, at most:
 * a word pair that passes for a header is rare, a real header near. */
enum { ENDING_CLASSES = 32 };

typedef struct ending_search {
    uint64_t addr, end;
    wasp_java_object *o;
    lh_cache cache;
    int looked;
} ending_search;

static int ends_there(uint64_t p, const uint64_t *h, void *arg)
{
    ending_search *e = arg;
    const wasp_java_layout *l = &wasp_java;
    uint64_t klass = young_mark(h[0]) ? header_klass(l, h) : 0;
    if (!klass)
        return 0;
    if (++e->looked > ENDING_CLASSES)
        return -1;
    uint64_t size = header_size(l, cached_lh(&e->cache, klass), p, h, e->o);
    if (!size || p + size != e->end)
        return 0;
    place(e->o, p, klass, size, e->addr);
    return 1;
}

int wasp_java_object_ending(uint64_t addr, uint64_t end, wasp_java_object *o)
{
    const wasp_java_layout *l = &wasp_java;
    if (addr >= end || end > l->heap_hi || addr < l->heap_lo)
        return 0;
    uint64_t floor = addr - l->heap_lo > WASP_JAVA_ENDING_BYTES ? addr - WASP_JAVA_ENDING_BYTES
                                                              : l->heap_lo;
    ending_search e = {.addr = addr, .end = end, .o = o};
    return walk_back(addr, (floor + 7) & ~7ull, ends_there, &e);
}

/* Bytes of a header read at once: the mark word, the class word and an
 * array's length, one system call where reading them one by one took two. */
enum { HEADER_BYTES = 24 };

int wasp_java_object_at(uint64_t p, uint64_t addr, wasp_recent_objects *r, wasp_java_object *o)
{
    const wasp_java_layout *l = &wasp_java;
    if ((p & 7) || p < l->heap_lo || p + 16 > l->heap_hi || addr < p)
        return 0;
    uint64_t h[HEADER_BYTES / 8] = {0};
    size_t want = l->heap_hi - p < HEADER_BYTES ? (size_t)(l->heap_hi - p) : HEADER_BYTES;
    size_t got = wasp_safe_read(p, h, want);
    if (got < l->klass_offset + (l->compressed_klass ? 4u : 8u))
        return 0;
    uint64_t klass = header_klass(l, h);
    int32_t lh = !klass ? 0 : r ? wasp_recent_class_lh(r, klass) : wasp_java_layout_helper(klass);
    if (!lh || (lh < 0 && got < l->length_offset + 4u))
        return 0;
    uint64_t size = lh < 0 ? header_size(l, lh, p, h, o) : object_size(l, klass, lh, p, 1, o);
    return place_covering(l, o, p, klass, size, addr);
}

int wasp_java_object_being_created(uint64_t p, uint64_t klass, uint64_t addr, wasp_java_object *o)
{
    const wasp_java_layout *l = &wasp_java;
    int32_t lh = wasp_java_layout_helper(klass);
    if (!wasp_java_lh_valid(lh) || addr < p || addr - p >= WASP_JAVA_SCAN_BYTES)
        return 0;
    /* Arrays: no length yet, so no size. */
    uint64_t size = object_size(l, klass, lh, p, 0, o);
    if (lh > 0 && addr >= p + size)
        return 0;
    place(o, p, klass, size, addr);
    return 1;
}

int wasp_java_static_owner(const wasp_java_object *o, uint64_t *owner)
{
    const wasp_java_layout *l = &wasp_java;
    uint64_t k = 0;
    if (!l->mirror_klass || o->klass != l->mirror_klass || o->array ||
        o->offset < l->mirror_statics ||
        wasp_safe_read(o->start + l->mirror_klass_offset, &k, sizeof k) != sizeof k || !k ||
        (k & 7))
        return 0;
    *owner = k;
    return 1;
}

int wasp_java_class_store_accept(uint64_t obj, uint64_t word, void *klass_out)
{
    const wasp_java_layout *l = &wasp_java;
    if ((obj & 7) || obj < l->heap_lo || obj + 16 > l->heap_hi)
        return 0;
    uint64_t klass = wasp_java_klass_decode(word);
    if (!wasp_java_lh_valid(wasp_java_layout_helper(klass)))
        return 0;
    *(uint64_t *)klass_out = klass;
    return 1;
}

/* Whether a mark word can be one: unlocked (low bits 01: hash and age, the
 * top bits clear), locked (a pointer to a lock record or monitor), or
 * forwarded/marked during a collection (11). */
static int plausible_mark(uint64_t mark)
{
    switch (mark & 3) {
    case 1:
        return (mark >> 40) == 0;
    case 3:
        return 1;
    default:
        return mark > 0xffff && mark < (1ull << 47);
    }
}

static wasp_java_find scan(const wasp_java_layout *l, uint64_t addr, wasp_java_object *o)
{
    uint64_t top = addr & ~7ull;
    uint64_t low = top - l->heap_lo > WASP_JAVA_SCAN_BYTES ? top - WASP_JAVA_SCAN_BYTES : l->heap_lo;
    uint64_t words[WASP_JAVA_SCAN_BYTES / 8 + 2];
    size_t want = (size_t)(top - low) + 16; /* the header at top too */
    size_t got = wasp_safe_read(low, words, want);
    if (got < 16)
        return WASP_JFIND_NO_HEADER;
    int tested = 0;
    /* Nearest first: the object holding addr starts at the last header. */
    for (int64_t i = (int64_t)(top - low) / 8; i >= 0 && tested < SCAN_CLASSES; i--) {
        if ((uint64_t)(i * 8 + 16) > got)
            continue;
        uint64_t mark = words[i];
        uint64_t word = words[i + 1];
        if (l->compressed_klass)
            word &= 0xffffffffu;
        /* A fresh object's header before its class is stored: the mark
         * word's initial value (unlocked, no hash, age 0) and a zero class
         * word. Nearer than any valid header, it is the object being
         * initialized around addr. */
        if (!word && mark == 1 && tested == 0)
            return WASP_JFIND_INITIALIZING;
        if (!word || !plausible_mark(mark))
            continue;
        tested++;
        if (object_with_word(l, low + (uint64_t)i * 8, word, addr, o))
            return WASP_JFIND_SCAN;
    }
    return WASP_JFIND_NO_HEADER;
}

typedef struct deep_search {
    uint64_t addr;
    wasp_java_object *o;
    lh_cache cache;
    int tested;
} deep_search;

/* A large object holding addr, its header below the backward search's
 * reach: a plausible mark word and a class the handler has met already (a
 * word pair in an array's data rarely names one: that is what lets the walk
 * go this far at the cost of its reads alone). The first header of a known
 * class ends the walk either way: an object that starts below one that does
 * not cover addr cannot cover it either. */
static int holds_addr(uint64_t p, const uint64_t *h, void *arg)
{
    deep_search *d = arg;
    const wasp_java_layout *l = &wasp_java;
    uint64_t klass = plausible_mark(h[0]) ? header_klass(l, h) : 0;
    if (!klass || !wasp_klass_set_has(klass))
        return 0;
    uint64_t size = header_size(l, cached_lh(&d->cache, klass), p, h, d->o);
    if (!size)
        return ++d->tested > SCAN_CLASSES ? -1 : 0;
    if (d->addr >= p + size || p + size > l->heap_hi)
        return -1;
    place(d->o, p, klass, size, d->addr);
    return 1;
}

/* After the backward search found nothing within its reach: the same,
 * deeper (to WASP_JAVA_DEEP_BYTES), for the headers of known classes. */
static int deep_scan(const wasp_java_layout *l, uint64_t addr, wasp_java_object *o)
{
    uint64_t top = addr & ~7ull;
    if (top - l->heap_lo <= WASP_JAVA_SCAN_BYTES)
        return 0;
    uint64_t start = top - WASP_JAVA_SCAN_BYTES - 8;
    uint64_t floor = top - l->heap_lo > WASP_JAVA_DEEP_BYTES ? top - WASP_JAVA_DEEP_BYTES : l->heap_lo;
    deep_search d = {.addr = addr, .o = o};
    return start >= floor && walk_back(start, (floor + 7) & ~7ull, holds_addr, &d);
}

/* Whether acc can be an access to o: the rule tracked objects are checked
 * with (heap/site_kind.h: natural alignment, element width, float elements
 * for float accesses). */
static int fits(const wasp_access *acc, const wasp_java_object *o)
{
    return wasp_kind_fits(o->kind, o->header, o->offset, acc->size, acc->float_size);
}

wasp_java_find wasp_java_object_find(uint64_t addr, const wasp_access *acc,
                                     wasp_recent_objects *recent, wasp_java_object *o)
{
    const wasp_java_layout *l = &wasp_java;
    if (!__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE))
        return WASP_JFIND_NO_LAYOUT;
    if (addr < l->heap_lo || addr >= l->heap_hi)
        return WASP_JFIND_NOT_HEAP;
    if (acc) {
        /* Arrays are addressed base + index * scale + header: the base is the
         * array. Fields are base + offset, or a compressed reference decoded
         * in the address (heap base + narrow * 8 + offset): addr - disp. */
        uint64_t first = acc->has_index && acc->has_base ? acc->base_val : addr - (uint64_t)acc->disp;
        uint64_t second = acc->has_index && acc->has_base ? addr - (uint64_t)acc->disp : 0;
        if ((wasp_java_object_at(first, addr, recent, o) && fits(acc, o)) ||
            (second && wasp_java_object_at(second, addr, recent, o) && fits(acc, o))) {
            if (recent)
                wasp_recent_objects_keep(recent, o);
            return WASP_JFIND_INSN;
        }
    }
    /* Before the search: an object holding addr is the one, and the search
     * may stop at a word pair in its data that looks like a header. */
    if (recent && wasp_recent_objects_find(recent, addr, o) && (!acc || fits(acc, o)))
        return WASP_JFIND_RECENT;
    wasp_java_find how = scan(l, addr, o);
    if (how == WASP_JFIND_NO_HEADER && deep_scan(l, addr, o))
        how = WASP_JFIND_SCAN;
    if (how != WASP_JFIND_SCAN)
        return how;
    if (acc && !fits(acc, o))
        return WASP_JFIND_NO_HEADER;
    if (recent)
        wasp_recent_objects_keep(recent, o);
    return how;
}
