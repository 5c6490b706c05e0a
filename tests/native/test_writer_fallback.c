/* Backend choice and the writer's lifecycle: an io_uring setup failure (forced through the fault
 * hook) falls back to pwritev and reports why, AUTO writes still work, a forced IO_URING mode is
 * refused; once the fault is gone a shutdown brings io_uring back. CAIRN_IO_FORCE_PWRITEV never
 * tries io_uring. cairn_io_configure validates its options and is refused once the writer has
 * started. Restarting many times leaks nothing, and a forked child gets a worker of its own. */
#ifndef _GNU_SOURCE /* also passed by the build, which defines it to 1 */
#define _GNU_SOURCE
#endif
#include "writer_support.h"

#include <errno.h>
#include <sys/wait.h>

#define POOL_PAGES 512
#define SPACE_PAGES 700

static char *g_pool;
static char *g_image;
static int64_t g_end;

static void configure(int32_t flags, int32_t entries, int32_t expected_status)
{
    cairn_io_options options = {.flags = flags, .ring_entries = entries, .reserved = 0};
    test_last_os_error = -1;
    CHECK(cairn_io_configure(&options, &test_last_os_error) == expected_status);
    CHECK(test_last_os_error == 0);
}

static void shutdown_writer(void)
{
    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
    CHECK(wt_worker_tid() == 0);
}

/* A random batch through `mode`, checked against the running image of the file. */
static void write_and_check(cairn_file *f, const char *path, int32_t mode, uint64_t seed)
{
    uint64_t rng = seed;
    struct wt_batch b = {0};
    wt_random_batch(&b, &rng, 0, SPACE_PAGES, 5, 4, 0, g_pool, POOL_PAGES);
    int64_t before = test_write_calls();
    CHECK_OK(cairn_write_gather(f, b.ops, b.count, mode, &test_last_os_error));
    CHECK(test_write_calls() - before == b.items);
    CHECK_OK(cairn_sync_gather(f, mode, &test_last_os_error));
    wt_apply(&b, g_image);
    if (b.end > g_end)
        g_end = b.end;
    wt_batch_free(&b);
    test_check_file(path, g_image, g_end);
}

static void test_configure_validation(void)
{
    CHECK(cairn_io_configure(NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    configure(0x80, 0, CAIRN_E_INVALID_ARGUMENT);
    configure(0, -1, CAIRN_E_INVALID_ARGUMENT);
    configure(0, 32769, CAIRN_E_INVALID_ARGUMENT);
    cairn_io_options reserved = {.flags = 0, .ring_entries = 0, .reserved = 1};
    CHECK(cairn_io_configure(&reserved, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    /* Shutting down a writer that never started is fine, twice. */
    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
    configure(0, 0, CAIRN_OK);
}

static void test_setup_failure(cairn_file *f, const char *path)
{
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_URING_SETUP, 0, 0, EPERM, NULL, &test_last_os_error));
    wt_backend(CAIRN_BACKEND_PWRITEV, EPERM);
    CHECK(wt_worker_tid() == 0); /* the pwritev backend needs no thread */
    write_and_check(f, path, CAIRN_BACKEND_AUTO, 1);
    write_and_check(f, path, CAIRN_BACKEND_PWRITEV, 2);

    cairn_write_op op = {g_pool, 0, WT_PAGE};
    CHECK(cairn_write_gather(f, &op, 1, CAIRN_BACKEND_IO_URING, &test_last_os_error) == CAIRN_E_UNSUPPORTED);
    CHECK(test_last_os_error == EPERM);
    CHECK(cairn_sync_gather(f, CAIRN_BACKEND_IO_URING, &test_last_os_error) == CAIRN_E_UNSUPPORTED);
    CHECK(test_last_os_error == EPERM);
    configure(0, 0, CAIRN_E_INVALID_ARGUMENT); /* started (on pwritev) */

    /* Setup faults stay armed: every restart falls back, with the error of the moment. */
    shutdown_writer();
    wt_backend(CAIRN_BACKEND_PWRITEV, EPERM);
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_URING_SETUP, 0, 0, ENOSYS, NULL, &test_last_os_error));
    wt_backend(CAIRN_BACKEND_PWRITEV, EPERM); /* still the running choice until a shutdown */
    shutdown_writer();
    wt_backend(CAIRN_BACKEND_PWRITEV, ENOSYS);
    write_and_check(f, path, CAIRN_BACKEND_AUTO, 3);

    /* Disarmed: the next start uses io_uring. */
    test_disarm_fault();
    shutdown_writer();
    wt_backend(WT_BACKEND, WT_SETUP_ERROR); /* a build without io_uring: ENOSYS, as from the kernel */
    wt_check_ring_worker(1);
    configure(0, 0, CAIRN_E_INVALID_ARGUMENT); /* started (on io_uring) */
    write_and_check(f, path, CAIRN_BACKEND_AUTO, 4);
    write_and_check(f, path, WT_RING, 5);
}

static void test_force_pwritev(cairn_file *f, const char *path)
{
    shutdown_writer();
    configure(CAIRN_IO_FORCE_PWRITEV, 0, CAIRN_OK);
    /* Not even tried: an armed setup fault makes no difference and the error is 0. */
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_URING_SETUP, 0, 0, EPERM, NULL, &test_last_os_error));
    wt_backend(CAIRN_BACKEND_PWRITEV, 0);
    test_disarm_fault();
    CHECK(wt_worker_tid() == 0);
    write_and_check(f, path, CAIRN_BACKEND_AUTO, 6);
    cairn_write_op op = {g_pool, 0, WT_PAGE};
    CHECK(cairn_write_gather(f, &op, 1, CAIRN_BACKEND_IO_URING, &test_last_os_error) == CAIRN_E_UNSUPPORTED);
    CHECK(test_last_os_error == 0);
    configure(0, 0, CAIRN_E_INVALID_ARGUMENT);

    shutdown_writer();
    configure(0, 0, CAIRN_OK);
    /* cairn_io_backend alone starts the writer. */
    wt_backend(WT_BACKEND, WT_SETUP_ERROR);
    wt_check_ring_worker(1);
}

static void test_restarts(cairn_file *f, const char *path)
{
    write_and_check(f, path, CAIRN_BACKEND_AUTO, 7); /* this thread's eventfd exists */
    int fds = test_count_open_fds();
    for (int i = 0; i < 25; i++) {
        shutdown_writer();
        configure(0, i % 2 ? 8 : 0, CAIRN_OK);
        cairn_write_op op = {g_pool + (i % POOL_PAGES) * WT_PAGE, (int64_t)i * WT_PAGE, WT_PAGE};
        CHECK_OK(cairn_write_gather(f, &op, 1, CAIRN_BACKEND_AUTO, &test_last_os_error));
        memcpy(g_image + op.offset, op.data, WT_PAGE);
        wt_check_ring_worker(1);
    }
    CHECK(test_count_open_fds() == fds); /* one ring + one eventfd, whatever the number of restarts */
    test_check_file(path, g_image, g_end);
}

static void test_fork(cairn_file *f, const char *path, const char *dir)
{
    write_and_check(f, path, CAIRN_BACKEND_AUTO, 8);
    pid_t parent_worker = wt_worker_tid();
    wt_check_ring_worker(1);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(60); /* a hang here would otherwise hang the parent's waitpid */
        CHECK(wt_worker_tid() == 0); /* threads do not survive fork */
        char *child_path = test_join(dir, "child.dat");
        cairn_file *c = test_open(child_path, CAIRN_OPEN_CREATE, NULL);
        uint64_t rng = 77;
        struct wt_batch b = {0};
        wt_random_batch(&b, &rng, 0, 300, 5, 4, 0, g_pool, POOL_PAGES);
        CHECK_OK(cairn_write_gather(c, b.ops, b.count, CAIRN_BACKEND_AUTO, &test_last_os_error));
        CHECK_OK(cairn_sync_gather(c, WT_RING, &test_last_os_error));
        wt_backend(WT_BACKEND, WT_SETUP_ERROR);
        wt_check_ring_worker(1);
        wt_check_batch(child_path, &b);
        CHECK_OK(cairn_io_shutdown(&test_last_os_error));
        test_close(c);
        _exit(0);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "child failed: status 0x%x\n", status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* The parent's worker and this thread's eventfd were not disturbed. */
    CHECK(wt_worker_tid() == parent_worker);
    write_and_check(f, path, CAIRN_BACKEND_AUTO, 9);
    write_and_check(f, path, WT_RING, 10);
}

int main(void)
{
    char *dir = test_make_dir("writer-fallback");
    g_pool = test_aligned_pattern((size_t)POOL_PAGES * WT_PAGE, 23);
    g_image = calloc(SPACE_PAGES, WT_PAGE);
    CHECK(g_image != NULL);
    char *path = test_join(dir, "data.dat");
    cairn_file *f = test_open(path, CAIRN_OPEN_CREATE, NULL);

    test_configure_validation();
    test_setup_failure(f, path);
    test_force_pwritev(f, path);
    test_restarts(f, path);
    test_fork(f, path, dir);

    shutdown_writer();
    test_close(f);
    free(path);
    free(g_image);
    test_free_aligned(g_pool);
    test_remove_dir(dir);
    free(dir);
    printf("test_writer_fallback: ok\n");
    return 0;
}
