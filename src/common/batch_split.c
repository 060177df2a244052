/*
 * See batch_split.h.
 */
#include "common/batch_split.h"

typedef struct split {
    size_t size;
    int max_calls;
    wasp_batch_call call;
    wasp_batch_item_error item_error;
    void *ctx;
    wasp_batch_result r;
} split;

static void run(split *s, char *items, size_t n)
{
    if (n == 0)
        return;
    if (s->r.stopped || s->r.calls >= s->max_calls) {
        s->r.stopped = 1;
        s->r.left_out += n;
        return;
    }
    s->r.calls++;
    int e = s->call(s->ctx, items, n);
    if (e == 0) {
        s->r.done += n;
        return;
    }
    if (!s->r.first_error)
        s->r.first_error = e;
    int items_fault = s->item_error(e);
    if (n == 1 || !items_fault) {
        s->r.stopped |= !items_fault;
        s->r.left_out += n;
        return;
    }
    size_t half = n / 2;
    run(s, items, half);
    run(s, items + half * s->size, n - half);
}

wasp_batch_result wasp_batch_split(void *items, size_t n, size_t size, int max_calls,
                                   wasp_batch_call call, wasp_batch_item_error item_error,
                                   void *ctx)
{
    split s = {.size = size, .max_calls = max_calls, .call = call, .item_error = item_error,
               .ctx = ctx};
    run(&s, items, n);
    return s.r;
}
