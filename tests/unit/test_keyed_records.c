/* Records keyed by ids with sums (profile/keyed_records.c), through the
 * fields analysis's table: sums add up by key, ids out of range are refused,
 * and a file's section reads back with its keys mapped, an area a newer wasp
 * knows read as unknown, a negative sum refused, and a context id out of
 * range named in the error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analysis/fields/profile.h"
#include "heap/heap_area.h"
#include "profile/bytes.h"
#include "profile/codec.h"
#include "profile/profile.h"

static uint32_t a_context(wasp_profile *p)
{
    wasp_frame f = {.kind = WASP_FRAME_JAVA, .name = wasp_profile_intern_string(p, "Main.run"),
                    .file = 0, .line = 7};
    uint32_t frame = wasp_profile_intern_frame(p, &f);
    return wasp_profile_intern_context(p, &frame, 1, 0);
}

static wasp_profile *one_field(double loads, double stores)
{
    wasp_profile *p = wasp_profile_new();
    wasp_field_entry e = {wasp_profile_intern_string(p, "Cell"), wasp_profile_intern_string(p, "hits"),
                          12, WASP_AREA_OLD, a_context(p), loads, stores};
    assert_int_equal(wasp_profile_add_field(p, &e), 0);
    return p;
}

static void sums_add_up_by_key(void **state)
{
    (void)state;
    wasp_profile *p = one_field(3, 1);
    uint32_t n;
    const wasp_field_entry *e = wasp_profile_fields(p, &n);
    wasp_field_entry again = e[0];
    again.loads = 2;
    again.stores = 5;
    assert_int_equal(wasp_profile_add_field(p, &again), 0);
    again.offset = 16; /* another key: another record */
    assert_int_equal(wasp_profile_add_field(p, &again), 0);
    e = wasp_profile_fields(p, &n);
    assert_int_equal(n, 2);
    assert_true(e[0].loads == 5 && e[0].stores == 6);
    wasp_field_entry bad = e[0];
    bad.ctx = p->ncontexts; /* no such context */
    assert_int_equal(wasp_profile_add_field(p, &bad), -1);
    bad = e[0];
    bad.member = p->nstrings;
    assert_int_equal(wasp_profile_add_field(p, &bad), -1);
    wasp_profile_free(p);
}

/* The encoded profile with the FLDS record's u32 key k (or f64 sum k, when
 * sum) replaced, decoded again. */
static wasp_profile *patched(const wasp_profile *p, int sum, int k, uint64_t bits, char *err,
                             size_t errlen)
{
    wasp_wbuf b = {0};
    assert_int_equal(wasp_profile_encode(p, &b, err, errlen), 0);
    unsigned char *tag = memmem(b.data, b.len, "FLDS", 4);
    assert_non_null(tag);
    unsigned char *rec = tag + 4 + 8 + 4; /* tag, u64 length, u32 count */
    if (sum)
        memcpy(rec + 5 * 4 + 8 * (size_t)k, &bits, 8);
    else
        memcpy(rec + 4 * (size_t)k, &(uint32_t){(uint32_t)bits}, 4);
    /* The file's checksum covers everything before it. */
    uint32_t crc = wasp_crc32(b.data, b.len - 4);
    memcpy(b.data + b.len - 4, &crc, 4);
    wasp_profile *q = wasp_profile_decode(b.data, b.len, err, errlen);
    wasp_wbuf_free(&b);
    return q;
}

static void files_read_back_checked(void **state)
{
    (void)state;
    char err[256];
    wasp_profile *p = one_field(3, 1);
    wasp_profile *q = patched(p, 0, 3, 200, err, sizeof err); /* area 200: a newer wasp's */
    if (!q)
        fail_msg("%s", err);
    uint32_t n;
    const wasp_field_entry *e = wasp_profile_fields(q, &n);
    assert_int_equal(n, 1);
    assert_int_equal(e[0].area, WASP_AREA_UNKNOWN);
    assert_string_equal(q->strings[e[0].cls], "Cell");
    assert_string_equal(q->strings[e[0].member], "hits");
    wasp_profile_free(q);
    double minus = -4;
    uint64_t bits;
    memcpy(&bits, &minus, 8);
    q = patched(p, 1, 0, bits, err, sizeof err); /* the section reader refuses it */
    assert_null(q);
    assert_non_null(strstr(err, "negative"));
    q = patched(p, 0, 4, 99, err, sizeof err); /* context 99 of 1 */
    assert_null(q);
    assert_non_null(strstr(err, "field entry 0"));
    wasp_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sums_add_up_by_key),
        cmocka_unit_test(files_read_back_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
