/*
 * A stand-in for libwasp.so that tests `wasp attach` / `wasp detach` (the
 * attach protocol) without the real agent. Built as
 * build/tests/fake_agent.so; tests/unit/test_attach.c builds its own copy.
 *
 * Agent_OnAttach(options):
 *   - "file=PATH" (up to the next ','), when present, is remembered as the
 *     profile path, as the real agent does at action=start;
 *   - the options are appended as one line to PATH.attach-log;
 *   - with "action=stop", PATH.src (when it exists) is copied to PATH
 *     atomically (temp file + rename): the "profile" the agent writes;
 *   - the return code is the number in PATH.rc when that file exists, else 0
 *     (1 for a stop when no file was ever given);
 *   - when PATH.crash exists, it crashes instead (a store through a null
 *     pointer): a JVM that dies while wasp talks to it, with a fatal-error
 *     report whose problematic frame is in this library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char profile[4096];
static int *volatile nowhere; /* volatile: the store below is not optimized away */

static void copy_file(const char *from, const char *to)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.fake-tmp", to);
    FILE *in = fopen(from, "rb");
    if (!in)
        return;
    FILE *out = fopen(tmp, "wb");
    if (!out) {
        fclose(in);
        return;
    }
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
    if (fclose(out) == 0)
        rename(tmp, to);
}

__attribute__((visibility("default"))) int Agent_OnAttach(void *vm, char *options,
                                                          void *reserved)
{
    (void)vm, (void)reserved;
    const char *opts = options ? options : "";
    const char *f = strstr(opts, "file=");
    if (f && (f == opts || f[-1] == ',')) {
        f += 5;
        snprintf(profile, sizeof profile, "%.*s", (int)strcspn(f, ","), f);
    }
    if (!profile[0])
        return 1;

    char path[4200];
    snprintf(path, sizeof path, "%s.attach-log", profile);
    FILE *log = fopen(path, "a");
    if (log) {
        fprintf(log, "%s\n", opts);
        fclose(log);
    }
    snprintf(path, sizeof path, "%s.crash", profile);
    FILE *crash = fopen(path, "r");
    if (crash) {
        fclose(crash);
        *nowhere = 1;
    }
    if (strstr(opts, "action=stop")) {
        snprintf(path, sizeof path, "%s.src", profile);
        copy_file(path, profile);
    }
    int rc = 0;
    snprintf(path, sizeof path, "%s.rc", profile);
    FILE *rcf = fopen(path, "r");
    if (rcf) {
        if (fscanf(rcf, "%d", &rc) != 1)
            rc = 0;
        fclose(rcf);
    }
    return rc;
}
