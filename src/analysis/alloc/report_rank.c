/*
 * `wasp report --alloc-rank bytes|count` (see ranking.h): in the report
 * layer, beside the command line's other choices.
 */
#include "analysis/alloc/ranking.h"
#include "cli/commands/cli_util.h"

int wasp_alloc_rank_parse(const char *option, const char *value, char *err, size_t errlen)
{
    static const char *const names[] = {"bytes", "count"};
    int i = wasp_cli_parse_choice(option, value, names, 2, err, errlen);
    if (i < 0)
        return -1;
    wasp_alloc_rank_by_count(i == 1);
    return 0;
}
