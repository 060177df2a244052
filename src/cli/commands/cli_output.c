/* Report and diff output (cli_output.h). */
#include "cli/commands/cli_output.h"
#include "common/safe_open.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

enum { OUT_BUF = 1 << 20 };
static char out_buf[OUT_BUF]; /* glibc ignores setvbuf's size without a buffer */

static bool is_stdout(const char *path)
{
    return !path || strcmp(path, "-") == 0;
}

FILE *wasp_cli_output_open(const char *cmd, const char *path)
{
    FILE *out = stdout;
    if (!is_stdout(path)) {
        char why[512];
        int fd = wasp_open_replace(path, why, sizeof why);
        out = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!out) {
            fprintf(stderr, "wasp %s: %s\n", cmd, fd >= 0 ? strerror(errno) : why);
            if (fd >= 0)
                close(fd);
            return NULL;
        }
    }
    /* Before any write, as setvbuf requires; a terminal keeps its line buffering. */
    if (!isatty(fileno(out)))
        setvbuf(out, out_buf, _IOFBF, sizeof out_buf);
    return out;
}

int wasp_cli_output_close(const char *cmd, const char *path, FILE *out, int rc)
{
    int saved = errno;
    if (fflush(out) != 0 || ferror(out)) {
        if (rc == 0)
            saved = errno;
        rc = -1;
    }
    if (!is_stdout(path) && fclose(out) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0)
        fprintf(stderr, "wasp %s: %s: %s\n", cmd, is_stdout(path) ? "standard output" : path,
                saved ? strerror(saved) : "write error");
    return rc != 0 ? 1 : 0;
}
