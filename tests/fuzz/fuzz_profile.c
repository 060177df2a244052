/*
 * libFuzzer harness of the profile decoder (docs/testing.md, "Fuzzing").
 * Each input is decoded as it is and again with its last 4 bytes replaced by
 * the right CRC, since nearly every mutation breaks the checksum and the
 * fuzzer would otherwise never get past it. For each decode:
 *   - a rejection must say why (a non-empty err);
 *   - an accepted profile must encode (the encoder refuses a profile whose
 *     ids are out of range), decode again and encode to the same bytes,
 *     merge into an empty profile, and render as text and JSON, by line
 *     and by instruction.
 * A broken promise abort()s, which libFuzzer reports as a crash.
 */
#include "cli/commands/report.h"
#include "profile/codec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_profile: broken promise: %s (line %d)\n", #cond, __LINE__);     \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static FILE *sink(void)
{
    static FILE *null;
    if (!null)
        null = fopen("/dev/null", "w");
    CHECK(null != NULL);
    return null;
}

static void exercise(wasp_profile *p)
{
    char err[256] = "";
    wasp_wbuf once = {0}, twice = {0};
    int rc = wasp_profile_encode(p, &once, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "fuzz_profile: a decoded profile does not encode: %s\n", err);
    CHECK(rc == 0 && !once.failed);
    wasp_profile *q = wasp_profile_decode(once.data, once.len, err, sizeof err);
    if (!q)
        fprintf(stderr, "fuzz_profile: re-encoded profile refused: %s\n", err);
    CHECK(q != NULL);
    CHECK(wasp_profile_encode(q, &twice, err, sizeof err) == 0 && !twice.failed);
    CHECK(once.len == twice.len && memcmp(once.data, twice.data, once.len) == 0);
    wasp_wbuf_free(&once);
    wasp_wbuf_free(&twice);
    wasp_profile_free(q);

    wasp_profile *sum = wasp_profile_new();
    CHECK(sum != NULL && wasp_profile_merge(sum, p) == 0);
    wasp_profile_free(sum);

    for (int f = 0; f < WASP_FORMAT_COUNT; f++)
        for (int by = WASP_BY_LINE; by <= WASP_BY_INSTRUCTION; by++) {
            wasp_report_opts o = {.format = (wasp_format)f, .by = (wasp_report_by)by};
            CHECK(wasp_report_render(p, &o, sink()) == 0);
        }
}

static void decode_one(const uint8_t *data, size_t size)
{
    char err[256] = "";
    wasp_profile *p = wasp_profile_decode(data, size, err, sizeof err);
    if (!p) {
        CHECK(err[0] != '\0');
        return;
    }
    exercise(p);
    wasp_profile_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode_one(data, size);
    if (size < 16)
        return 0;
    /* A copy of exactly size bytes, so ASan sees any read past the end. */
    uint8_t *fixed = malloc(size);
    CHECK(fixed != NULL);
    memcpy(fixed, data, size);
    uint32_t crc = (uint32_t)crc32(0, fixed, (uInt)(size - 4));
    for (int i = 0; i < 4; i++)
        fixed[size - 4 + i] = (uint8_t)(crc >> (8 * i));
    decode_one(fixed, size);
    free(fixed);
    return 0;
}
