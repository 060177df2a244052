/*
 * The list of samplers (source.h): the one place that names them all, so
 * that the agent's chooser and `wasp doctor` iterate it and name none.
 */
#include "sample/source.h"

/* auto's order: a PMU's precise memory events carry data addresses; the
 * perf task-clock beats the timer, whose CPU-time clock expires only on
 * scheduler ticks. */
wasp_source *const wasp_samplers[] = {&wasp_pmu_source, &wasp_soft_source, &wasp_timer_source,
                                      NULL};

int wasp_source_present(const wasp_source *s, const wasp_source_config *c)
{
    return !s->present || s->present(c);
}
