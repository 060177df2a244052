/* Test helper shared by the unit tests that check what another user sees:
 * a forked child of a root test run drops to uid/gid 65534 (nobody). Included
 * by one test file each. */
#ifndef WASP_TEST_UNPRIVILEGED_H
#define WASP_TEST_UNPRIVILEGED_H

#include <grp.h>
#include <unistd.h>

enum { NOBODY = 65534 };

/* Become nobody for good (no supplementary groups). Returns 0, or -1. */
static inline int become_nobody(void)
{
    if (setgroups(0, NULL) != 0 || setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
        setresuid(NOBODY, NOBODY, NOBODY) != 0)
        return -1;
    return 0;
}

#endif
