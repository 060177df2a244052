/* Opening files wasp writes: another user's symbolic link is refused (the
 * victim stays untouched), our own files, links and devices are written. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/safe_open.h"

static char dir[] = "/tmp/wasp-safe-open-XXXXXX";

/* fsync is wrapped (Makefile): wasp_write_file's fsync of the temporary
 * comes between its look at the target and the rename, so a hook run there
 * is someone changing the name meanwhile. Runs once. */
int __real_fsync(int fd);
static void (*before_fsync)(void);
int __wrap_fsync(int fd)
{
    void (*hook)(void) = before_fsync;
    before_fsync = NULL;
    if (hook)
        hook();
    return __real_fsync(fd);
}

static void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

static off_t size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

static void creates_and_appends_a_regular_file(void **state)
{
    (void)state;
    char p[256], err[512];
    path_in(p, sizeof p, "log");
    for (int i = 0; i < 2; i++) {
        int fd = wasp_open_append(p, err, sizeof err);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "abc", 3), 3);
        close(fd);
    }
    assert_int_equal(size_of(p), 6);
}

static void appends_to_a_device(void **state)
{
    (void)state;
    char err[512];
    int fd = wasp_open_append("/dev/null", err, sizeof err);
    assert_true(fd >= 0);
    close(fd);
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode)); /* still the device */
}

static void follows_our_own_link(void **state)
{
    (void)state;
    char target[256], link[256], err[512];
    path_in(target, sizeof target, "mine");
    path_in(link, sizeof link, "mine.link");
    assert_int_equal(symlink(target, link), 0);
    int fd = wasp_open_append(link, err, sizeof err);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "x", 1), 1);
    close(fd);
    assert_int_equal(size_of(target), 1);
}

static void refuses_another_users_link(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip(); /* only root can give a link to another user */
    char victim[256], link[256], err[512];
    path_in(victim, sizeof victim, "victim");
    path_in(link, sizeof link, "planted.log");
    int v = open(victim, O_WRONLY | O_CREAT, 0600);
    assert_true(v >= 0);
    close(v);
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(lchown(link, 65534, 65534), 0);
    assert_int_equal(wasp_open_append(link, err, sizeof err), -1);
    assert_non_null(strstr(err, "owned by another user"));
    assert_int_equal(size_of(victim), 0);
}

static void replace_truncates_a_file_not_a_device(void **state)
{
    (void)state;
    char p[256], err[512];
    path_in(p, sizeof p, "report.html");
    for (int i = 0; i < 2; i++) {
        int fd = wasp_open_replace(p, err, sizeof err);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "abcd", 4), 4);
        close(fd);
    }
    assert_int_equal(size_of(p), 4); /* replaced, not appended */
    int fd = wasp_open_replace("/dev/null", err, sizeof err);
    assert_true(fd >= 0);
    close(fd);
}

static void refuses_a_directory(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(wasp_open_append(dir, err, sizeof err), -1);
    assert_true(err[0] != 0);
}

static int read_text(const char *p, char *buf, size_t n)
{
    FILE *f = fopen(p, "r");
    if (!f)
        return -1;
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
    return (int)got;
}

static void plant(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* wasp_write_file replaces a regular file whole, and creates a new one. */
static void write_file_replaces_a_regular_file(void **state)
{
    (void)state;
    char p[256], err[512], got[64];
    path_in(p, sizeof p, "whole");
    assert_int_equal(wasp_write_file(p, "first text", 10, WASP_WRITE_DURABLE, err, sizeof err), 0);
    assert_int_equal(wasp_write_file(p, "second", 6, 0, err, sizeof err), 0);
    assert_int_equal(read_text(p, got, sizeof got), 6);
    assert_string_equal(got, "second");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(st.st_mode & 0777, 0644 & ~mask);
    assert_int_equal(wasp_write_file(p, "x", 1, WASP_WRITE_PRIVATE, err, sizeof err), 0);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
}

/* A hard link or a symbolic link planted at the temporary's name (it is
 * predictable: PATH.tmp.<pid>) does not make the write land in the file it
 * names: the temporary is created exclusively. */
static void write_file_ignores_a_planted_temporary(void **state)
{
    (void)state;
    char p[256], tmp[300], victim[256], victim2[256], err[512], got[64];
    path_in(p, sizeof p, "progress");
    path_in(victim, sizeof victim, "victim-hard");
    path_in(victim2, sizeof victim2, "victim-soft");
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", p, (long)getpid());
    plant(victim, "precious");
    assert_int_equal(link(victim, tmp), 0);
    assert_int_equal(wasp_write_file(p, "count", 5, 0, err, sizeof err), 0);
    assert_int_equal(read_text(victim, got, sizeof got), 8); /* untouched */
    assert_string_equal(got, "precious");
    plant(victim2, "precious");
    assert_int_equal(symlink(victim2, tmp), 0);
    assert_int_equal(wasp_write_file(p, "count", 5, 0, err, sizeof err), 0);
    assert_int_equal(read_text(victim2, got, sizeof got), 8);
    assert_int_equal(read_text(p, got, sizeof got), 5);
    assert_int_equal(access(tmp, F_OK), -1); /* no temporary left */
}

/* A device or a pipe is written into and stays what it was; with
 * WASP_WRITE_REGULAR_ONLY (a file beside another) it is left alone. A
 * directory is never replaced. */
static void write_file_keeps_devices_pipes_and_directories(void **state)
{
    (void)state;
    char fifo[256], err[512], want[600];
    struct stat st;
    assert_int_equal(wasp_write_file("/dev/null", "x", 1, WASP_WRITE_DURABLE, err, sizeof err), 0);
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(wasp_write_file("/dev/null", "x", 1, WASP_WRITE_REGULAR_ONLY, err, sizeof err),
                     -1);
    assert_string_equal(err, "/dev/null is a device; wasp writes only a regular file there");
    path_in(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(wasp_write_file(fifo, "x", 1, WASP_WRITE_REGULAR_ONLY, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s is a pipe; wasp writes only a regular file there", fifo);
    assert_string_equal(err, want);
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(wasp_write_file(dir, "x", 1, 0, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s is a directory; wasp writes a regular file, a device or a pipe",
             dir);
    assert_string_equal(err, want);
}

/* Another user's symbolic link is not written through (nor replaced). */
static void write_file_refuses_another_users_link(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip(); /* only root can give a link to another user */
    char victim[256], link_path[256], err[512], got[64];
    path_in(victim, sizeof victim, "victim-wf");
    path_in(link_path, sizeof link_path, "planted.progress");
    plant(victim, "precious");
    assert_int_equal(symlink(victim, link_path), 0);
    assert_int_equal(lchown(link_path, 65534, 65534), 0);
    assert_int_equal(wasp_write_file(link_path, "x", 1, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "owned by another user (uid 65534)"));
    assert_int_equal(read_text(victim, got, sizeof got), 8);
    struct stat st;
    assert_int_equal(lstat(link_path, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* the link stays too */
}

/* What is put at the name while wasp writes it is never replaced: a pipe
 * where there was nothing, a symbolic link (to a victim) where there was
 * our regular file. The write fails, says so, and leaves no temporary. */
static char raced[256], raced_victim[256];

static void put_pipe(void)
{
    assert_int_equal(mkfifo(raced, 0600), 0);
}

static void swap_in_link(void)
{
    assert_int_equal(unlink(raced), 0);
    assert_int_equal(symlink(raced_victim, raced), 0);
}

static void write_file_replaces_only_what_it_saw(void **state)
{
    (void)state;
    char err[512], got[64], tmp[300];
    struct stat st;
    path_in(raced, sizeof raced, "raced.wprof");
    path_in(raced_victim, sizeof raced_victim, "raced-victim");
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", raced, (long)getpid());

    before_fsync = put_pipe;
    assert_int_equal(wasp_write_file(raced, "new", 3, WASP_WRITE_DURABLE, err, sizeof err), -1);
    assert_non_null(strstr(err, "changed while wasp wrote it"));
    assert_int_equal(lstat(raced, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(access(tmp, F_OK), -1);
    assert_int_equal(unlink(raced), 0);

    plant(raced, "old");
    plant(raced_victim, "precious");
    before_fsync = swap_in_link;
    assert_int_equal(wasp_write_file(raced, "new", 3, WASP_WRITE_DURABLE, err, sizeof err), -1);
    assert_non_null(strstr(err, "changed while wasp wrote it"));
    assert_int_equal(lstat(raced, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(read_text(raced_victim, got, sizeof got), 8);
    assert_string_equal(got, "precious");
    assert_int_equal(access(tmp, F_OK), -1);

    /* Nothing changed: the regular file is replaced as before. */
    assert_int_equal(unlink(raced), 0);
    plant(raced, "old");
    assert_int_equal(wasp_write_file(raced, "new", 3, WASP_WRITE_DURABLE, err, sizeof err), 0);
    assert_int_equal(read_text(raced, got, sizeof got), 3);
    assert_string_equal(got, "new");
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(creates_and_appends_a_regular_file),
        cmocka_unit_test(appends_to_a_device),
        cmocka_unit_test(follows_our_own_link),
        cmocka_unit_test(refuses_another_users_link),
        cmocka_unit_test(replace_truncates_a_file_not_a_device),
        cmocka_unit_test(refuses_a_directory),
        cmocka_unit_test(write_file_replaces_a_regular_file),
        cmocka_unit_test(write_file_ignores_a_planted_temporary),
        cmocka_unit_test(write_file_keeps_devices_pipes_and_directories),
        cmocka_unit_test(write_file_refuses_another_users_link),
        cmocka_unit_test(write_file_replaces_only_what_it_saw),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
