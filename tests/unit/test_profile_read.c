/* The profile reader's bounds: what it refuses without reading (directories,
 * devices, files over the limit), endless streams (refused after the limit,
 * with bounded memory), and `wasp report -` (standard input). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands/report.h"
#include "profile/profile.h"

/* src/profile/read.c's limit (docs/profile-format.md). */
#define LIMIT ((off_t)256 << 20)

static char dir[] = "/tmp/wasp-test-read-XXXXXX";
static char path_buf[512];

static const char *in_dir(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/%s", dir, name);
    return path_buf;
}

/* A writer process feeding the pipe's write end: prefix, then zeros until
 * the reader closes (endless) or nothing more (ends). Returns the read end. */
static int stream(const void *prefix, size_t len, bool endless, pid_t *writer)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    *writer = fork();
    assert_true(*writer >= 0);
    if (*writer == 0) {
        close(fds[0]);
        static const char zeros[65536];
        if (write(fds[1], prefix, len) != (ssize_t)len)
            _exit(1);
        while (endless && write(fds[1], zeros, sizeof zeros) > 0)
            ;
        _exit(0);
    }
    close(fds[1]);
    return fds[0];
}

static void reap(pid_t writer)
{
    kill(writer, SIGKILL);
    waitpid(writer, NULL, 0);
}

/* wasp_profile_read(path) in a child process (so its peak memory is its own,
 * and an endless read is killed by the alarm instead of hanging the test).
 * Its address space is capped at 1 GiB. Returns the error ("" when the
 * profile read); *peak_kb its peak RSS. */
static const char *read_in_child(const char *path, long *peak_kb)
{
    static char msg[512];
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        alarm(60);
        /* A reader without bounds fails here instead of taking the machine. */
        struct rlimit as = {1L << 30, 1L << 30};
        setrlimit(RLIMIT_AS, &as);
        char err[256] = "";
        wasp_profile *p = wasp_profile_read(path, err, sizeof err);
        const char *out = p ? "" : err[0] ? err : "(failed with no message)";
        ssize_t w = write(fds[1], out, strlen(out));
        _exit(w == (ssize_t)strlen(out) ? 0 : 1);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t k;
    while (n < sizeof msg - 1 && (k = read(fds[0], msg + n, sizeof msg - 1 - n)) > 0)
        n += (size_t)k;
    msg[n] = 0;
    close(fds[0]);
    int status;
    struct rusage ru;
    assert_int_equal(wait4(pid, &status, 0, &ru), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("reading %s: the reader died (status 0x%x; signal 14 is the 60 s alarm)", path,
                 status);
    *peak_kb = ru.ru_maxrss;
    return msg;
}

static void expect_refusal(const char *path, const char *want)
{
    long peak;
    const char *err = read_in_child(path, &peak);
    if (!strstr(err, want))
        fail_msg("reading %s: expected an error with \"%s\", got \"%s\"", path, want, err);
}

static void test_refused_unopened(void **state)
{
    (void)state;
    expect_refusal(dir, "Is a directory");
    expect_refusal("/dev/zero", "a character device, not a regular file or a pipe");
    expect_refusal("/dev/null", "a character device, not a regular file or a pipe");
    expect_refusal(in_dir("missing.wprof"), "No such file or directory");
}

/* Sparse files: the size is refused before a byte is read; a file of
 * exactly the limit is read (and refused only for what it holds). */
static void test_size_limit(void **state)
{
    (void)state;
    const char *path = in_dir("huge.wprof");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, LIMIT + 1), 0);
    long peak;
    const char *err = read_in_child(path, &peak);
    assert_non_null(strstr(err, "too large (256.0 MiB): a profile is at most 256 MiB"));
    assert_true(peak < 64 * 1024); /* nothing was read */

    assert_int_equal(ftruncate(fd, LIMIT), 0);
    close(fd);
    err = read_in_child(path, &peak);
    assert_null(strstr(err, "too large"));
    assert_non_null(strstr(err, "not a wasp profile (bad magic)"));
    unlink(path);
}

/* The magic and then zeros forever: refused once the limit is passed, with
 * memory bounded by the limit (plus the process's own). */
static void test_endless_stream(void **state)
{
    (void)state;
    pid_t writer;
    int fd = stream("WASPPROF", 8, true, &writer);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fd);
    long peak;
    const char *err = read_in_child(path, &peak);
    close(fd);
    reap(writer);
    assert_string_equal(err, "more than 256 MiB and not ended: a profile is at most 256 MiB");
    if (peak > (LIMIT >> 10) + 64 * 1024)
        fail_msg("peak RSS %ld kB while refusing an endless stream (limit 256 MiB)", peak);
}

/* Anything else forever (cat /dev/zero | wasp report -): refused at once. */
static void test_endless_foreign_stream(void **state)
{
    (void)state;
    pid_t writer;
    int fd = stream("\0\0\0\0\0\0\0\0", 8, true, &writer);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fd);
    long peak;
    const char *err = read_in_child(path, &peak);
    close(fd);
    reap(writer);
    assert_string_equal(err, "not a wasp profile (bad magic)");
    assert_true(peak < 64 * 1024);
}

/* The bytes of a valid profile, written by the library. */
static unsigned char *profile_bytes(size_t *len)
{
    wasp_profile *p = wasp_profile_new();
    wasp_profile_set_meta(p, "java_command", "Stdin");
    char err[256];
    const char *path = in_dir("good.wprof");
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    wasp_profile_free(p);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static unsigned char buf[65536];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    unlink(path);
    return buf;
}

static void test_pipe_reads(void **state)
{
    (void)state;
    size_t len;
    unsigned char *bytes = profile_bytes(&len);
    pid_t writer;
    int fd = stream(bytes, len, false, &writer);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fd);
    long peak;
    const char *err = read_in_child(path, &peak);
    close(fd);
    reap(writer);
    assert_string_equal(err, "");
}

/* wasp_cmd_report(argv) with fd 0 reading from stdin_fd and stderr into a
 * file; returns the exit code and what it printed on stderr. */
static int report_with_stdin(int stdin_fd, char **argv, int argc, char *errtext, size_t errlen)
{
    const char *errpath = in_dir("stderr.txt");
    int errfd = open(errpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(errfd >= 0);
    fflush(stderr);
    int saved_in = dup(0), saved_err = dup(2);
    assert_true(dup2(stdin_fd, 0) == 0 && dup2(errfd, 2) == 2);
    int rc = wasp_cmd_report(argc, argv);
    fflush(stderr);
    assert_true(dup2(saved_in, 0) == 0 && dup2(saved_err, 2) == 2);
    close(saved_in);
    close(saved_err);
    ssize_t n = pread(errfd, errtext, errlen - 1, 0);
    errtext[n > 0 ? n : 0] = 0;
    close(errfd);
    unlink(errpath);
    return rc;
}

static void test_report_dash_is_stdin(void **state)
{
    (void)state;
    size_t len;
    unsigned char *bytes = profile_bytes(&len);
    pid_t writer;
    int fd = stream(bytes, len, false, &writer);
    char out[512];
    snprintf(out, sizeof out, "%s", in_dir("report.json"));
    char *argv[] = {"report", "--format", "json", "-o", out, "-", NULL};
    char errtext[512];
    int rc = report_with_stdin(fd, argv, 6, errtext, sizeof errtext);
    close(fd);
    reap(writer);
    if (rc != 0)
        fail_msg("wasp report - exited %d: %s", rc, errtext);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char json[65536];
    size_t n = fread(json, 1, sizeof json - 1, f);
    json[n] = 0;
    fclose(f);
    unlink(out);
    assert_non_null(strstr(json, "Stdin"));
}

static void test_report_dash_refusal_names_stdin(void **state)
{
    (void)state;
    pid_t writer;
    int fd = stream("not a profile", 13, false, &writer);
    char *argv[] = {"report", "-", NULL};
    char errtext[512];
    int rc = report_with_stdin(fd, argv, 2, errtext, sizeof errtext);
    close(fd);
    reap(writer);
    assert_int_equal(rc, 1);
    assert_string_equal(errtext, "wasp report: standard input: not a wasp profile (bad magic)\n");
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

/* Removes what a failed test left behind. */
static int teardown(void **state)
{
    (void)state;
    static const char *const left[] = {"huge.wprof", "good.wprof", "report.json", "stderr.txt"};
    for (size_t i = 0; i < sizeof left / sizeof *left; i++)
        unlink(in_dir(left[i]));
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused_unopened),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_endless_stream),
        cmocka_unit_test(test_endless_foreign_stream),
        cmocka_unit_test(test_pipe_reads),
        cmocka_unit_test(test_report_dash_is_stdin),
        cmocka_unit_test(test_report_dash_refusal_names_stdin),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
