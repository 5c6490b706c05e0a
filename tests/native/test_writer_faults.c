/* The fault hooks on the io_uring path of the data-file writer (they are process-wide, so this
 * executable runs its cases one after the other): syncs through the ring and a sync error; short
 * writes re-queued for the remainder until the batch is complete and correct; a zero-byte write
 * and ENOSPC reported as disk full; an injected write error on one file only (path filter); and a
 * fatal ring error, which fails the work in hand and everything after it until a shutdown
 * restarts the worker. */
#ifndef _GNU_SOURCE /* also passed by the build, which defines it to 1 */
#define _GNU_SOURCE
#endif
#include "writer_support.h"
#if WT_HAS_URING
#include "io_writer.h" /* cairn_uring_test_inject_fatal_error */

#include <time.h>
#endif

#define POOL_PAGES 2048

static char *g_pool;

static void arm(int32_t kind, int64_t after, int64_t limit, int32_t error, const char *filter)
{
    CHECK_OK(cairn_test_set_fault(kind, after, limit, error, filter, &test_last_os_error));
}

static void test_sync(const char *dir)
{
    char *path = test_join(dir, "sync.dat");
    cairn_file *f = test_open(path, CAIRN_OPEN_CREATE, NULL);
    cairn_write_op op = {g_pool, 0, WT_PAGE};
    CHECK_OK(cairn_write_gather(f, &op, 1, WT_RING, &test_last_os_error));
    CHECK_OK(cairn_sync_gather(f, WT_RING, &test_last_os_error));

    int32_t modes[] = {WT_RING, CAIRN_BACKEND_AUTO, WT_PLAIN};
    for (int m = 0; m < 3; m++) {
        /* Fires on the second sync only, once. */
        arm(CAIRN_FAULT_SYNC_ERROR, 1, 0, TEST_ERROR_IO, NULL);
        CHECK_OK(cairn_sync_gather(f, modes[m], &test_last_os_error));
        CHECK(cairn_sync_gather(f, modes[m], &test_last_os_error) == CAIRN_E_IO);
        CHECK(test_last_os_error == TEST_ERROR_IO);
        CHECK_OK(cairn_sync_gather(f, modes[m], &test_last_os_error));
        CHECK(test_last_os_error == 0);
    }
    /* A filter that does not match leaves the sync alone. */
    arm(CAIRN_FAULT_SYNC_ERROR, 0, 0, TEST_ERROR_IO, "no-such-file");
    CHECK_OK(cairn_sync_gather(f, WT_RING, &test_last_os_error));
    test_disarm_fault();

    test_close(f);
    free(path);
}

static void test_short_writes(const char *dir)
{
    const int64_t page_space = 2600;
    char *image = calloc((size_t)page_space, WT_PAGE);
    CHECK(image != NULL);
    uint64_t rng = 99;
    struct wt_batch b = {0};
    /* Mostly short runs plus one run longer than IOV_MAX: ~1800 pages, ~15 MiB. */
    wt_random_batch(&b, &rng, 0, page_space, 6, 3, 1, g_pool, POOL_PAGES);
    wt_apply(&b, image);

    int32_t modes[] = {WT_RING, WT_PLAIN};
    const char *names[] = {"short-uring.dat", "short-pwritev.dat"};
    const int64_t limit = 4096 + 512;
    for (int m = 0; m < 2; m++) {
        char *path = test_join(dir, names[m]);
        cairn_file *f = test_open(path, CAIRN_OPEN_CREATE, NULL);
        arm(CAIRN_FAULT_SHORT_WRITE, 0, limit, 0, NULL);
        int64_t before = test_write_calls();
        CHECK_OK(cairn_write_gather(f, b.ops, b.count, modes[m], &test_last_os_error));
        int64_t calls = test_write_calls() - before;
        test_disarm_fault();
        /* Every write was capped, so the batch took at least bytes / limit writes. */
        CHECK(calls >= (b.bytes + limit - 1) / limit);
        CHECK(calls > wt_expected_writes(&b, 0));
        test_check_file(path, image, b.end);
        test_close(f);
        free(path);
    }

    /* A short-write filter for another file leaves this one alone: one write per run. */
    char *path = test_join(dir, "short-filtered.dat");
    cairn_file *f = test_open(path, CAIRN_OPEN_CREATE, NULL);
    arm(CAIRN_FAULT_SHORT_WRITE, 0, limit, 0, "short-uring.dat");
    int64_t before = test_write_calls();
    CHECK_OK(cairn_write_gather(f, b.ops, b.count, WT_RING, &test_last_os_error));
    CHECK(test_write_calls() - before == wt_expected_writes(&b, 0));
    test_disarm_fault();
    test_check_file(path, image, b.end);
    test_close(f);
    free(path);

    wt_batch_free(&b);
    free(image);
}

/* One failing write fails the call with the classified status; the batch's other writes may or
 * may not have landed, and the next call works. */
static void expect_write_fault(const char *dir, const char *name, int32_t kind, int32_t error,
                               int32_t mode, int32_t expected_status, int32_t expected_error)
{
    char *path = test_join(dir, name);
    cairn_file *f = test_open(path, CAIRN_OPEN_CREATE, NULL);
    uint64_t rng = 5;
    struct wt_batch b = {0};
    wt_random_batch(&b, &rng, 0, 600, 4, 2, 0, g_pool, POOL_PAGES);
    CHECK(b.items > 20);

    arm(kind, 7, 0, error, NULL); /* let seven writes through, then fail one */
    CHECK(cairn_write_gather(f, b.ops, b.count, mode, &test_last_os_error) == expected_status);
    CHECK(test_last_os_error == expected_error);
    /* It fired once and disarmed itself: the same batch now goes through. */
    CHECK_OK(cairn_write_gather(f, b.ops, b.count, mode, &test_last_os_error));
    CHECK(test_last_os_error == 0);
    test_disarm_fault();

    wt_check_batch(path, &b);
    wt_batch_free(&b);
    test_close(f);
    free(path);
}

static void test_write_errors(const char *dir)
{
    int32_t modes[] = {WT_RING, WT_PLAIN};
    for (int m = 0; m < 2; m++) {
        expect_write_fault(dir, "zero.dat", CAIRN_FAULT_ZERO_WRITE, 0, modes[m], CAIRN_E_DISK_FULL,
                           TEST_ERROR_DISK_FULL);
        expect_write_fault(dir, "enospc.dat", CAIRN_FAULT_WRITE_ERROR, TEST_ERROR_DISK_FULL, modes[m],
                           CAIRN_E_DISK_FULL, TEST_ERROR_DISK_FULL);
        expect_write_fault(dir, "edquot.dat", CAIRN_FAULT_WRITE_ERROR, TEST_ERROR_QUOTA, modes[m], CAIRN_E_DISK_FULL,
                           TEST_ERROR_QUOTA);
        expect_write_fault(dir, "eio.dat", CAIRN_FAULT_WRITE_ERROR, TEST_ERROR_IO, modes[m], CAIRN_E_IO, TEST_ERROR_IO);
    }

    /* A filtered write fault hits only the journal-like file, not the data file next to it. */
    char *data_path = test_join(dir, "data.dat");
    char *journal_path = test_join(dir, "journal.log");
    cairn_file *data = test_open(data_path, CAIRN_OPEN_CREATE, NULL);
    cairn_file *journal = test_open(journal_path, CAIRN_OPEN_CREATE, NULL);
    cairn_write_op ops[] = {{g_pool, 0, WT_PAGE}, {g_pool + WT_PAGE, 2 * WT_PAGE, WT_PAGE}};
    arm(CAIRN_FAULT_WRITE_ERROR, 0, 0, TEST_ERROR_IO, "journal.log");
    CHECK_OK(cairn_write_gather(data, ops, 2, WT_RING, &test_last_os_error));
    CHECK(cairn_write_gather(journal, ops, 2, WT_RING, &test_last_os_error) == CAIRN_E_IO);
    test_disarm_fault();
    test_close(data);
    test_close(journal);
    free(data_path);
    free(journal_path);
}

#if WT_HAS_URING
static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void test_fatal_ring_error(const char *dir)
{
    char *path = test_join(dir, "fatal.dat");
    cairn_file *f = test_open(path, CAIRN_OPEN_CREATE, NULL);
    uint64_t rng = 11;
    struct wt_batch b = {0};
    wt_random_batch(&b, &rng, 0, 400, 4, 2, 0, g_pool, POOL_PAGES);
    CHECK_OK(cairn_write_gather(f, b.ops, b.count, CAIRN_BACKEND_IO_URING, &test_last_os_error));

    /* The worker's next io_uring_enter "fails": the items it had prepared fail with that error... */
    double start = now_seconds();
    cairn_uring_test_inject_fatal_error(ENXIO);
    CHECK(cairn_write_gather(f, b.ops, b.count, CAIRN_BACKEND_IO_URING, &test_last_os_error) == CAIRN_E_OS);
    CHECK(test_last_os_error == ENXIO);
    /* ...and so does everything after it, promptly, until the writer is restarted. */
    for (int i = 0; i < 20; i++) {
        CHECK(cairn_write_gather(f, b.ops, b.count, CAIRN_BACKEND_AUTO, &test_last_os_error) == CAIRN_E_OS);
        CHECK(test_last_os_error == ENXIO);
    }
    CHECK(cairn_sync_gather(f, CAIRN_BACKEND_IO_URING, &test_last_os_error) == CAIRN_E_OS);
    CHECK(now_seconds() - start < 2.0);
    /* The synchronous backend does not depend on the ring. */
    CHECK_OK(cairn_write_gather(f, b.ops, b.count, CAIRN_BACKEND_PWRITEV, &test_last_os_error));

    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
    wt_backend(CAIRN_BACKEND_IO_URING, 0);
    CHECK_OK(cairn_write_gather(f, b.ops, b.count, CAIRN_BACKEND_IO_URING, &test_last_os_error));
    CHECK_OK(cairn_sync_gather(f, CAIRN_BACKEND_IO_URING, &test_last_os_error));
    wt_check_batch(path, &b);

    /* The restarted ring can fail too (EBADF is classified as a bad argument); shutting down from
     * the degraded state and starting again works. */
    cairn_uring_test_inject_fatal_error(EBADF);
    CHECK(cairn_write_gather(f, b.ops, b.count, CAIRN_BACKEND_AUTO, &test_last_os_error) ==
          CAIRN_E_INVALID_ARGUMENT);
    CHECK(test_last_os_error == EBADF);
    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
    CHECK_OK(cairn_write_gather(f, b.ops, b.count, CAIRN_BACKEND_AUTO, &test_last_os_error));

    wt_batch_free(&b);
    test_close(f);
    free(path);
}

#endif

int main(void)
{
    char *dir = test_make_dir("writer-faults");
    g_pool = test_aligned_pattern((size_t)POOL_PAGES * WT_PAGE, 3);
    wt_backend(WT_BACKEND, WT_SETUP_ERROR);

    test_sync(dir);
    test_short_writes(dir);
    test_write_errors(dir);
#if WT_HAS_URING
    test_fatal_ring_error(dir); /* the ring's own failure: only where there is a ring */
#endif

    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
    test_free_aligned(g_pool);
    test_remove_dir(dir);
    free(dir);
    printf("test_writer_faults: ok\n");
    return 0;
}
