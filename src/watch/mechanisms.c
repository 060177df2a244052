/*
 * The mechanisms chosen (see mechanisms.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_chosen is a plain read.
 */
#include "watch/mechanisms.h"

static wasp_mechanisms chosen;

const wasp_mechanisms *wasp_chosen(void)
{
    return &chosen;
}

void wasp_mechanisms_set(const wasp_mechanisms *m)
{
    chosen = *m;
}
