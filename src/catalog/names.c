/*
 * Analysis names, from catalog/list.h: the names the `events` option takes
 * and profiles record.
 */
#include "catalog/names.h"

#include <string.h>

#define WASP_NAME_(name, summary, a, b) #name,
static const char *const names[WASP_ANALYSES] = {WASP_FOR_EACH_ANALYSIS(WASP_NAME_, _, _)};
#define WASP_SUMMARY_(name, summary, a, b) summary,
static const char *const summaries[WASP_ANALYSES] = {WASP_FOR_EACH_ANALYSIS(WASP_SUMMARY_, _, _)};

const char *wasp_analysis_id_name(int id)
{
    return id >= 0 && id < WASP_ANALYSES ? names[id] : NULL;
}

const char *wasp_analysis_summary(int id)
{
    return id >= 0 && id < WASP_ANALYSES ? summaries[id] : NULL;
}

int wasp_analysis_id_from_name(const char *name)
{
    for (int id = 0; id < WASP_ANALYSES; id++)
        if (strcmp(names[id], name) == 0)
            return id;
    return -1;
}

void wasp_analysis_ids_format(uint32_t ids, char *buf, size_t len)
{
    size_t n = 0;
    if (len)
        buf[0] = 0;
    for (int id = 0; id < WASP_ANALYSES && n + 1 < len; id++) {
        if (!(ids & (1u << id)))
            continue;
        size_t k = strlen(names[id]);
        if (n + (n ? 1 : 0) + k + 1 > len)
            break;
        if (n)
            buf[n++] = '+';
        memcpy(buf + n, names[id], k + 1);
        n += k;
    }
}
