/*
 * Test fixture: a container whose seccomp profile refuses perf events.
 *
 *     seccomp_launcher [--errno EPERM|ENOSYS] -- PROGRAM ARGS...
 *
 * Installs a seccomp filter (libseccomp) under which perf_event_open fails
 * with the given errno (EPERM, as Docker's default profile answers, unless
 * told otherwise) and every other system call is allowed, then executes
 * PROGRAM (searched in PATH). The filter is inherited across fork and exec,
 * so it covers PROGRAM and everything it starts (wasp and the JVM).
 * libseccomp sets no_new_privs first (its default SCMP_FLTATR_CTL_NNP), so no
 * privilege is needed.
 *
 * Exit status: PROGRAM's own once exec succeeds; 2 on bad usage; 1 when the
 * filter cannot be installed; 127 when PROGRAM cannot be executed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "seccomp_launcher";

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "%s: %s\n", prog, why);
    fprintf(stderr, "usage: %s [--errno EPERM|ENOSYS] -- PROGRAM [ARGS...]\n"
                    "Runs PROGRAM under a seccomp filter that makes perf_event_open fail\n"
                    "with the given errno (default EPERM).\n", prog);
    return 2;
}

static int errno_named(const char *name)
{
    if (strcmp(name, "EPERM") == 0)
        return EPERM;
    if (strcmp(name, "ENOSYS") == 0)
        return ENOSYS;
    return -1;
}

int main(int argc, char **argv)
{
    if (argc > 0 && argv[0] && argv[0][0])
        prog = argv[0];
    const char *err_name = "EPERM";
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (strcmp(argv[i], "--errno") == 0) {
            if (i + 1 >= argc)
                return usage("--errno needs a value (EPERM or ENOSYS)");
            err_name = argv[++i];
        } else if (strncmp(argv[i], "--errno=", 8) == 0) {
            err_name = argv[i] + 8;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(NULL);
            return 0;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "%s: unknown option '%s'\n", prog, argv[i]);
            return usage(NULL);
        } else {
            break; /* the program, without a "--" before it */
        }
    }
    int err = errno_named(err_name);
    if (err < 0) {
        fprintf(stderr, "%s: --errno '%s': expected EPERM or ENOSYS\n", prog, err_name);
        return usage(NULL);
    }
    if (i >= argc)
        return usage("no PROGRAM to run");

    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        fprintf(stderr, "%s: seccomp_init failed\n", prog);
        return 1;
    }
    int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), SCMP_SYS(perf_event_open), 0);
    if (rc < 0) {
        fprintf(stderr, "%s: seccomp_rule_add(perf_event_open -> %s): %s\n", prog, err_name,
                strerror(-rc));
        seccomp_release(ctx);
        return 1;
    }
    rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc < 0) {
        fprintf(stderr, "%s: seccomp_load: %s\n", prog, strerror(-rc));
        return 1;
    }

    execvp(argv[i], &argv[i]);
    int e = errno;
    fprintf(stderr, "%s: cannot execute '%s': %s\n", prog, argv[i], strerror(e));
    return 127;
}
