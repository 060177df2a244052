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
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
