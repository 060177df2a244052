/* wasp_self_tid: the calling thread's kernel id, cached per thread, and
 * forgotten in a forked child (whose thread has a new id). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/self_tid.h"

static void main_thread_gets_its_own_id_every_time(void **state)
{
    (void)state;
    assert_int_equal(wasp_self_tid(), gettid());
    assert_int_equal(wasp_self_tid(), gettid());
    assert_int_equal(wasp_self_tid(), getpid()); /* cmocka runs tests on the main thread */
}

static void *ids_seen(void *arg)
{
    pid_t *seen = arg;
    seen[0] = wasp_self_tid();
    seen[1] = gettid();
    seen[2] = wasp_self_tid();
    return NULL;
}

static void another_thread_gets_its_id_not_the_cached_one(void **state)
{
    (void)state;
    pid_t mine = wasp_self_tid(); /* cached here first */
    pid_t seen[3] = {0, 0, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, ids_seen, seen), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_not_equal(seen[0], mine);
    assert_int_equal(seen[0], seen[1]);
    assert_int_equal(seen[2], seen[1]);
    assert_int_equal(wasp_self_tid(), mine);
}

static void a_forked_child_gets_its_own_id(void **state)
{
    (void)state;
    pid_t parent = wasp_self_tid(); /* cached before the fork */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        pid_t ids[2] = {wasp_self_tid(), gettid()};
        _exit(write(fds[1], ids, sizeof ids) == sizeof ids ? 0 : 1);
    }
    pid_t ids[2] = {0, 0};
    assert_int_equal(read(fds[0], ids, sizeof ids), (ssize_t)sizeof ids);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(ids[1], child);
    assert_int_equal(ids[0], child);
    assert_int_equal(wasp_self_tid(), parent);
    close(fds[0]);
    close(fds[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(main_thread_gets_its_own_id_every_time),
        cmocka_unit_test(another_thread_gets_its_id_not_the_cached_one),
        cmocka_unit_test(a_forked_child_gets_its_own_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
