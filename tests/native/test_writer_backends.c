/* The data-file writer's two backends against each other and against an in-memory image:
 * thousands of 8 KiB pages at random consecutive and non-consecutive page numbers (many merged
 * runs, some longer than IOV_MAX ops), written through io_uring to one file, through pwritev to
 * another and through io_uring to an O_DIRECT file; all three must equal the image. Also: the
 * backend in use here is io_uring, each merged run is exactly one write, syncs through the ring,
 * and argument validation (nothing is written for a rejected batch). */
#ifndef _GNU_SOURCE /* also passed by the build, which defines it to 1 */
#define _GNU_SOURCE
#endif
#include "writer_support.h"

#include <stdint.h>

#define POOL_PAGES 4096 /* 32 MiB of random page contents */

static char *g_pool;

struct target {
    char *path;
    cairn_file *file;
    int32_t mode;
    int direct;
};

static void write_batch_everywhere(struct target *targets, int n, const struct wt_batch *b)
{
    for (int t = 0; t < n; t++) {
        int64_t before = test_write_calls();
        CHECK_OK(cairn_write_gather(targets[t].file, b->ops, b->count, targets[t].mode, &test_last_os_error));
        CHECK(test_last_os_error == 0);
        /* One vectored write per merged run (split at IOV_MAX), for both backends. */
        int64_t calls = test_write_calls() - before;
        int64_t expected = wt_expected_writes(b, targets[t].direct);
        if (calls != expected)
            fprintf(stderr, "%s: %lld write calls, expected %lld\n", targets[t].path, (long long)calls,
                    (long long)expected);
        CHECK(calls == expected);
    }
}

/* Contiguous runs of more than IOV_MAX ops in a batch. */
static int count_long_runs(const struct wt_batch *b)
{
    int found = 0;
    int32_t run = 1;
    for (int32_t i = 1; i <= b->count; i++) {
        if (i < b->count && b->ops[i].offset == b->ops[i - 1].offset + b->ops[i - 1].length) {
            run++;
            continue;
        }
        found += run > WT_IOV_MAX;
        run = 1;
    }
    return found;
}

static void test_backends_identical(const char *dir)
{
    struct target targets[3] = {
        {test_join(dir, "uring.dat"), NULL, WT_RING, 0},
        {test_join(dir, "pwritev.dat"), NULL, WT_PLAIN, 0},
        {test_join(dir, "uring-direct.dat"), NULL, WT_RING, 1},
    };
    targets[0].file = test_open(targets[0].path, CAIRN_OPEN_CREATE, NULL);
    targets[1].file = test_open(targets[1].path, CAIRN_OPEN_CREATE, NULL);
    targets[2].file = test_open(targets[2].path, CAIRN_OPEN_CREATE | CAIRN_OPEN_DIRECT, NULL);

    const int64_t page_space = 9000;
    char *image = calloc((size_t)page_space, WT_PAGE);
    CHECK(image != NULL);
    int64_t size = 0;
    uint64_t rng = 0xC0FFEEull;

    /* Round 1: long runs (more than IOV_MAX ops) among short ones. Round 2: short runs over the
     * same pages (overwrites). Round 3: dense, mostly consecutive pages. */
    struct {
        int max_run, max_gap, long_runs;
    } rounds[] = {{8, 3, 3}, {5, 6, 0}, {40, 2, 1}};
    int64_t total_items = 0, long_runs = 0;
    for (size_t r = 0; r < sizeof rounds / sizeof rounds[0]; r++) {
        struct wt_batch b = {0};
        wt_random_batch(&b, &rng, 0, page_space, rounds[r].max_run, rounds[r].max_gap, rounds[r].long_runs,
                        g_pool, POOL_PAGES);
        CHECK(b.count > 1000);
        if (rounds[r].long_runs > 0)
            long_runs += count_long_runs(&b);
        write_batch_everywhere(targets, 3, &b);
        wt_apply(&b, image);
        if (b.end > size)
            size = b.end;
        total_items += b.items;
        wt_batch_free(&b);
    }
    CHECK(total_items > 1000);
    CHECK(long_runs >= 2); /* runs of more than IOV_MAX ops, split into several writes */

    for (int t = 0; t < 3; t++) {
        CHECK_OK(cairn_sync_gather(targets[t].file, targets[t].mode, &test_last_os_error));
        test_check_file(targets[t].path, image, size);
        test_close(targets[t].file);
        free(targets[t].path);
    }
    free(image);
}

/* A run of exactly IOV_MAX + 1 single-page ops is two writes; exactly IOV_MAX is one; ops that
 * touch but come from one contiguous buffer still count per op. */
static void test_merge_boundaries(const char *dir)
{
    char *path = test_join(dir, "merge.dat");
    cairn_file *f = test_open(path, CAIRN_OPEN_CREATE, NULL);
    const int64_t pages = WT_IOV_MAX * 2 + 1;
    char *image = calloc((size_t)pages, WT_PAGE);
    CHECK(image != NULL);
    uint64_t rng = 42;
    int32_t modes[] = {WT_RING, WT_PLAIN, CAIRN_BACKEND_AUTO};
    int64_t lengths[] = {WT_IOV_MAX, WT_IOV_MAX + 1, 2 * WT_IOV_MAX, 2 * WT_IOV_MAX + 1, 1};
    int64_t expected[] = {1, 2, 2, 3, 1};
    for (size_t m = 0; m < 3; m++) {
        for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
            struct wt_batch b = {0};
            wt_add_run(&b, &rng, 0, lengths[i], 1, g_pool, POOL_PAGES);
            wt_batch_finish(&b);
            CHECK(b.items == expected[i]);
            int64_t before = test_write_calls();
            CHECK_OK(cairn_write_gather(f, b.ops, b.count, modes[m], &test_last_os_error));
            CHECK(test_write_calls() - before == wt_expected_writes(&b, 0));
            wt_apply(&b, image);
            wt_batch_free(&b);
        }
    }
    test_check_file(path, image, pages * WT_PAGE);
    test_close(f);
    free(image);
    free(path);
}

static void expect_invalid(cairn_file *f, const cairn_write_op *ops, int32_t count, int32_t mode)
{
    int64_t before = test_write_calls();
    test_last_os_error = -1;
    CHECK(cairn_write_gather(f, ops, count, mode, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(test_last_os_error == 0);
    CHECK(test_write_calls() == before); /* rejected before anything is written */
}

static void test_validation(const char *dir)
{
    char *path = test_join(dir, "invalid.dat");
    char *direct_path = test_join(dir, "invalid-direct.dat");
    cairn_file *f = test_open(path, CAIRN_OPEN_CREATE, NULL);
    cairn_file *d = test_open(direct_path, CAIRN_OPEN_CREATE | CAIRN_OPEN_DIRECT, NULL);
    const char *p = g_pool;
    int32_t modes[] = {CAIRN_BACKEND_AUTO, WT_RING, WT_PLAIN};

    for (size_t m = 0; m < 3; m++) {
        int32_t mode = modes[m];
        cairn_write_op unsorted[] = {{p, 2 * WT_PAGE, WT_PAGE}, {p, 0, WT_PAGE}};
        expect_invalid(f, unsorted, 2, mode);
        cairn_write_op overlapping[] = {{p, 0, 2 * WT_PAGE}, {p, WT_PAGE, WT_PAGE}};
        expect_invalid(f, overlapping, 2, mode);
        cairn_write_op duplicate[] = {{p, 0, WT_PAGE}, {p, 0, WT_PAGE}};
        expect_invalid(f, duplicate, 2, mode);
        cairn_write_op empty[] = {{p, 0, WT_PAGE}, {p, WT_PAGE, 0}};
        expect_invalid(f, empty, 2, mode);
        cairn_write_op negative_length[] = {{p, 0, -WT_PAGE}};
        expect_invalid(f, negative_length, 1, mode);
        cairn_write_op negative_offset[] = {{p, -WT_PAGE, WT_PAGE}};
        expect_invalid(f, negative_offset, 1, mode);
        cairn_write_op null_data[] = {{p, 0, WT_PAGE}, {NULL, WT_PAGE, WT_PAGE}};
        expect_invalid(f, null_data, 2, mode);
        cairn_write_op overflow[] = {{p, INT64_MAX - 10, WT_PAGE}};
        expect_invalid(f, overflow, 1, mode);
        expect_invalid(f, NULL, 1, mode);
        expect_invalid(f, unsorted, -1, mode);
        expect_invalid(NULL, unsorted + 1, 1, mode);
        /* O_DIRECT handles: offset, length and address must be 4 KiB aligned. */
        cairn_write_op bad_offset[] = {{p, 512, 4096}};
        expect_invalid(d, bad_offset, 1, mode);
        cairn_write_op bad_length[] = {{p, 0, 4096 + 512}};
        expect_invalid(d, bad_length, 1, mode);
        cairn_write_op bad_address[] = {{p + 512, 0, 4096}};
        expect_invalid(d, bad_address, 1, mode);
        /* Nothing to do is fine. */
        CHECK_OK(cairn_write_gather(f, NULL, 0, mode, &test_last_os_error));
        CHECK(cairn_sync_gather(NULL, mode, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    }
    cairn_write_op one[] = {{p, 0, WT_PAGE}};
    CHECK(cairn_write_gather(f, one, 1, 99, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_write_gather(f, one, 1, -1, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_write_gather(f, one, 1, WT_FOREIGN, &test_last_os_error) == CAIRN_E_UNSUPPORTED);
    CHECK(cairn_sync_gather(f, 99, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_sync_gather(f, WT_FOREIGN, &test_last_os_error) == CAIRN_E_UNSUPPORTED);
    CHECK(cairn_io_backend(NULL, NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);

    /* An aligned direct write is accepted; the file still holds nothing else. */
    cairn_write_op aligned[] = {{p, 4096, 4096}};
    CHECK_OK(cairn_write_gather(d, aligned, 1, WT_RING, &test_last_os_error));
    char *image = calloc(1, 8192);
    CHECK(image != NULL);
    memcpy(image + 4096, p, 4096);
    test_check_file(direct_path, image, 8192);
    test_check_file(path, image, 0);
    free(image);

    test_close(f);
    test_close(d);
    free(path);
    free(direct_path);
}

/* A write through the ring to a descriptor the kernel rejects comes back as that error, and the
 * writer keeps working afterwards. */
static void test_kernel_errors(const char *dir)
{
    char *path = test_join(dir, "readonly.dat");
    cairn_file *w = test_open(path, CAIRN_OPEN_CREATE, NULL);
    test_close(w);
    cairn_file *r = test_open(path, CAIRN_OPEN_READ_ONLY, NULL);
    cairn_write_op ops[] = {{g_pool, 0, WT_PAGE}, {g_pool, 3 * WT_PAGE, WT_PAGE}};
    CHECK(cairn_write_gather(r, ops, 2, WT_RING, &test_last_os_error) == TEST_STATUS_READ_ONLY_WRITE);
    CHECK(test_last_os_error == TEST_ERROR_READ_ONLY_WRITE);
    CHECK(cairn_write_gather(r, ops, 2, WT_PLAIN, &test_last_os_error) == TEST_STATUS_READ_ONLY_WRITE);
    CHECK(test_last_os_error == TEST_ERROR_READ_ONLY_WRITE);
    test_close(r);

    w = test_open(path, CAIRN_OPEN_CREATE, NULL);
    CHECK_OK(cairn_write_gather(w, ops, 2, CAIRN_BACKEND_AUTO, &test_last_os_error));
    CHECK_OK(cairn_sync_gather(w, CAIRN_BACKEND_AUTO, &test_last_os_error));
    CHECK_OK(cairn_sync_gather(w, WT_RING, &test_last_os_error));
    CHECK_OK(cairn_sync_gather(w, WT_PLAIN, &test_last_os_error));
    test_close(w);
    free(path);
}

/* With CAIRN_IO_LOW_PRIORITY the writer lowers its I/O priority (the worker's ioprio with io_uring,
 * each handle's priority hint on Windows) and writes and syncs as before, buffered and direct; a
 * handle written at low priority is set back to normal when the writer restarts without the flag. */
static void test_low_priority(const char *dir)
{
    const int64_t pages = 300;
    char *paths[2] = {test_join(dir, "low.dat"), test_join(dir, "low-direct.dat")};
    cairn_file *files[2] = {test_open(paths[0], CAIRN_OPEN_CREATE, NULL),
                            test_open(paths[1], CAIRN_OPEN_CREATE | CAIRN_OPEN_DIRECT, NULL)};
    char *images[2] = {calloc((size_t)pages, WT_PAGE), calloc((size_t)pages, WT_PAGE)};
    CHECK(images[0] != NULL && images[1] != NULL);
    int64_t ends[2] = {0, 0};
    int32_t flags[] = {CAIRN_IO_LOW_PRIORITY, 0};
    uint64_t rng = 77;
    for (int round = 0; round < 2; round++) {
        CHECK_OK(cairn_io_shutdown(&test_last_os_error));
        cairn_io_options options = {.flags = flags[round], .ring_entries = 0, .reserved = 0};
        CHECK_OK(cairn_io_configure(&options, &test_last_os_error));
        for (int f = 0; f < 2; f++) {
            struct wt_batch b = {0};
            wt_random_batch(&b, &rng, 0, pages, 4, 3, 0, g_pool, POOL_PAGES);
            CHECK_OK(cairn_write_gather(files[f], b.ops, b.count, CAIRN_BACKEND_AUTO, &test_last_os_error));
            CHECK_OK(cairn_sync_gather(files[f], CAIRN_BACKEND_AUTO, &test_last_os_error));
            wt_apply(&b, images[f]);
            if (b.end > ends[f])
                ends[f] = b.end;
            wt_batch_free(&b);
        }
    }
    for (int f = 0; f < 2; f++) {
        test_close(files[f]);
        test_check_file(paths[f], images[f], ends[f]);
        free(images[f]);
        free(paths[f]);
    }
    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
    cairn_io_options defaults = {0};
    CHECK_OK(cairn_io_configure(&defaults, &test_last_os_error));
}

int main(void)
{
    char *dir = test_make_dir("writer-backends");
    g_pool = test_aligned_pattern((size_t)POOL_PAGES * WT_PAGE, 7);

    /* io_uring works on this machine, so that is what the writer must have chosen (pwritev in a build
     * without io_uring, WIN32 on Windows). */
    wt_backend(WT_BACKEND, WT_SETUP_ERROR);
    wt_check_ring_worker(1);
    /* Configuration is for a writer that has not started, on every platform. */
    cairn_io_options defaults = {0};
    cairn_io_options unknown_flag = {.flags = 0x80, .ring_entries = 0, .reserved = 0};
    CHECK(cairn_io_configure(&defaults, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_io_configure(NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);

    test_backends_identical(dir);
    test_merge_boundaries(dir);
    test_validation(dir);
    test_kernel_errors(dir);
    test_low_priority(dir);

    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
    wt_check_ring_worker(0);
    CHECK(cairn_io_configure(&unknown_flag, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK_OK(cairn_io_configure(&defaults, &test_last_os_error)); /* stopped: accepted again */
    test_free_aligned(g_pool);
    test_remove_dir(dir);
    free(dir);
    printf("test_writer_backends: ok\n");
    return 0;
}
