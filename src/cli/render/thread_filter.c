/* wasp report --thread (thread_filter.h). */
#include "cli/render/thread_filter.h"

#include "cli/commands/cli_util.h"
#include "cli/render/frame_filter.h"
#include "profile/thread_frame.h"

#include <stdio.h>
#include <string.h>

bool wasp_thread_matches(const wasp_profile *p, const wasp_context *c,
                         const char *const *patterns, int n)
{
    size_t len;
    const char *name = wasp_context_thread(p, c, &len);
    char group[256];
    if (!name || len >= sizeof group)
        return false;
    memcpy(group, name, len);
    group[len] = 0;
    for (int i = 0; i < n; i++)
        if (wasp_glob_match(patterns[i], group))
            return true;
    return false;
}

int wasp_thread_pattern_add(const char *option, const char *value, wasp_frame_filter *f,
                            char *err, size_t errlen)
{
    if (!value || !*value)
        return wasp_cli_bad_option(err, errlen, option, value,
                                   "expected a thread name pattern such as main or worker-*");
    if (f->nthread >= WASP_FRAME_PATTERNS_MAX) {
        snprintf(err, errlen, "%s: at most %d patterns", option, WASP_FRAME_PATTERNS_MAX);
        return -1;
    }
    f->thread[f->nthread++] = value;
    return 0;
}

int wasp_thread_filter_check(const wasp_profile *p, char *err, size_t errlen)
{
    if (wasp_profile_get_meta(p, WASP_THREADS_META))
        return 0;
    snprintf(err, errlen, "--thread: the profile does not record threads; record it with "
                          "wasp run --threads (or wasp attach --threads)");
    return -1;
}
