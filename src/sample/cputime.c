/*
 * What the two CPU-time samplers (soft.c's perf task-clock, timer.c's POSIX
 * timer) share: the sample is the instruction at the interrupted PC, which
 * has not run yet; the handler decodes it and computes its address.
 *
 * ASYNC-SIGNAL-SAFE: wasp_cputime_take runs in the SIGTRAP handler.
 */
#include <stdio.h>

#include "sample/jitter.h"
#include "sample/source.h"

int wasp_cputime_take(wasp_source *s, wasp_sampler_thread *t, const ucontext_t *uc,
                      wasp_address_sample *out)
{
    (void)s, (void)t;
    out->pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    out->addr = 0;
    out->has_addr = 0;
    out->executed = 0;
    return 1;
}

void wasp_cputime_describe(wasp_source *s, const wasp_source_config *c, const char *how)
{
    s->detail_how = how;
    s->jitter = wasp_jitter_fixed(c->period_jitter);
    wasp_cputime_set_period(s, c->period_ns);
}

void wasp_cputime_set_period(wasp_source *s, uint64_t period_ns)
{
    s->period = period_ns;
    char jitter[64];
    snprintf(s->detail, sizeof s->detail,
             "%s: thread CPU-time timer every %llu us%s, instruction decoded at the interrupted PC",
             s->detail_how ? s->detail_how : "CPU time", (unsigned long long)(period_ns / 1000),
             wasp_sampler_jitter_words(s, jitter, sizeof jitter));
}
