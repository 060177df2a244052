/* What does a synchronized JDK class's work without its lock
 * (unlocked_alternative.h). */
#include "analysis/locks/unlocked_alternative.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static const char *const alternatives[][2] = {
    {"java.util.Vector", "java.util.ArrayList does the same without a lock"},
    {"java.util.Stack", "java.util.ArrayDeque does the same without a lock"},
    {"java.util.Hashtable", "java.util.HashMap does the same without a lock"},
    {"java.lang.StringBuffer", "java.lang.StringBuilder does the same without a lock"},
    {"java.util.Random", "a Random per thread, or java.util.SplittableRandom, does without"},
};

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

const char *wasp_lock_unlocked_alternative(const char *cls)
{
    if (!cls)
        return NULL;
    for (size_t i = 0; i < sizeof alternatives / sizeof *alternatives; i++)
        if (strcmp(cls, alternatives[i][0]) == 0)
            return alternatives[i][1];
    /* Throwable.fillInStackTrace is synchronized: every exception created
     * locks itself once */
    if (ends_with(cls, "Exception") || ends_with(cls, "Error"))
        return "every exception created locks itself to fill in its stack trace: create fewer";
    return NULL;
}
