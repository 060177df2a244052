/* Where a profile may be written: a regular file (atomically), a device or a
 * pipe (into it, the node stays), never through another user's symbolic
 * link, never over a directory. */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile/profile.h"

static char dir[] = "/tmp/wasp-profile-write-XXXXXX";

static void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

static wasp_profile *small_profile(void)
{
    wasp_profile *p = wasp_profile_new();
    assert_non_null(p);
    wasp_profile_add_counter(p, "samples", 42);
    return p;
}

static void regular_file_is_replaced(void **state)
{
    (void)state;
    char path[256], err[512];
    path_in(path, sizeof path, "a.wprof");
    wasp_profile *p = small_profile();
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    assert_int_equal(wasp_profile_write(p, path, err, sizeof err), 0);
    wasp_profile *q = wasp_profile_read(path, err, sizeof err);
    assert_non_null(q);
    assert_int_equal(wasp_profile_get_counter(q, "samples"), 42);
    wasp_profile_free(q);
    wasp_profile_free(p);
}

static void dev_null_stays_a_device(void **state)
{
    (void)state;
    char err[512];
    wasp_profile *p = small_profile();
    assert_int_equal(wasp_profile_write(p, "/dev/null", err, sizeof err), 0);
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    wasp_profile_free(p);
}

static void *drain(void *arg)
{
    const char *fifo = arg;
    static char got[64];
    int fd = open(fifo, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, got, 8) : -1;
    if (fd >= 0) {
        char sink[4096];
        while (read(fd, sink, sizeof sink) > 0)
            ;
        close(fd);
    }
    got[n > 0 ? n : 0] = 0;
    return got;
}

static void pipe_gets_the_bytes(void **state)
{
    (void)state;
    char fifo[256], err[512];
    path_in(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pthread_t reader;
    assert_int_equal(pthread_create(&reader, NULL, drain, fifo), 0);
    wasp_profile *p = small_profile();
    assert_int_equal(wasp_profile_write(p, fifo, err, sizeof err), 0);
    void *got;
    pthread_join(reader, &got);
    assert_string_equal((char *)got, "WASPPROF");
    struct stat st;
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    wasp_profile_free(p);
}

static void directory_is_refused(void **state)
{
    (void)state;
    char err[512];
    wasp_profile *p = small_profile();
    assert_int_equal(wasp_profile_write(p, dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "a directory"));
    wasp_profile_free(p);
}

static void own_link_names_the_file(void **state)
{
    (void)state;
    char target[256], link[256], err[512];
    path_in(target, sizeof target, "real.wprof");
    path_in(link, sizeof link, "link.wprof");
    assert_int_equal(symlink(target, link), 0);
    wasp_profile *p = small_profile();
    assert_int_equal(wasp_profile_write(p, link, err, sizeof err), 0);
    assert_int_equal(wasp_profile_write(p, link, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* the link stays a link */
    assert_int_equal(stat(target, &st), 0);
    assert_true(S_ISREG(st.st_mode) && st.st_size > 0);
    wasp_profile_free(p);
}

static void another_users_link_is_refused(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip(); /* only root can give a link to another user */
    char victim[256], link[256], err[512];
    path_in(victim, sizeof victim, "victim");
    path_in(link, sizeof link, "planted.wprof");
    int v = open(victim, O_WRONLY | O_CREAT, 0600);
    assert_true(v >= 0);
    assert_int_equal(write(v, "keep", 4), 4);
    close(v);
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(lchown(link, 65534, 65534), 0);
    wasp_profile *p = small_profile();
    assert_int_equal(wasp_profile_write(p, link, err, sizeof err), -1);
    assert_non_null(strstr(err, "owned by another user"));
    struct stat st;
    assert_int_equal(stat(victim, &st), 0);
    assert_int_equal(st.st_size, 4);
    wasp_profile_free(p);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(regular_file_is_replaced),
        cmocka_unit_test(dev_null_stays_a_device),
        cmocka_unit_test(pipe_gets_the_bytes),
        cmocka_unit_test(directory_is_refused),
        cmocka_unit_test(own_link_names_the_file),
        cmocka_unit_test(another_users_link_is_refused),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0 && rc == 0)
        rc = 1;
    return rc;
}
