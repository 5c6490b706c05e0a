/* Helpers shared by the data-file writer tests (test_writer_*.c): random page batches with an
 * in-memory expected image, checking a file against one, the writes a batch should take, and a look
 * at the worker thread through /proc.
 * Header-only (static inline, so executables that use part of it do not warn). */
#ifndef CAIRN_TEST_WRITER_SUPPORT_H
#define CAIRN_TEST_WRITER_SUPPORT_H

#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* The writer's backends as this build has them: WT_RING writes through the writer's own backend
 * (io_uring where the build has it), WT_PLAIN on the calling thread; WT_BACKEND and WT_SETUP_ERROR
 * are what cairn_io_backend reports. A build without liburing (the arm64 one) asks for a ring, is
 * told ENOSYS and uses pwritev; Windows has its one WIN32 backend. So one test checks all three. */
#if defined(_WIN32)
#define WT_HAS_URING 0
#define WT_RING CAIRN_BACKEND_AUTO
#define WT_PLAIN CAIRN_BACKEND_WIN32
#define WT_BACKEND CAIRN_BACKEND_WIN32
#define WT_SETUP_ERROR 0
#elif defined(CAIRN_NO_URING)
#define WT_HAS_URING 0
#define WT_RING CAIRN_BACKEND_AUTO
#define WT_PLAIN CAIRN_BACKEND_PWRITEV
#define WT_BACKEND CAIRN_BACKEND_PWRITEV
#define WT_SETUP_ERROR ENOSYS
#else
#define WT_HAS_URING 1
#define WT_RING CAIRN_BACKEND_IO_URING
#define WT_PLAIN CAIRN_BACKEND_PWRITEV
#define WT_BACKEND CAIRN_BACKEND_IO_URING
#define WT_SETUP_ERROR 0
#endif
/* A backend this platform does not have. */
#ifdef _WIN32
#define WT_FOREIGN CAIRN_BACKEND_PWRITEV
#else
#define WT_FOREIGN CAIRN_BACKEND_WIN32
#endif

#define WT_PAGE 8192
#define WT_IOV_MAX 1024
#define WT_IOPRIO_WHO_PROCESS 1
#define WT_IOPRIO_BE_7 ((2 << 13) | 7)

/* A batch of sorted, non-overlapping ops and what the writer should make of it. */
struct wt_batch {
    cairn_write_op *ops;
    int32_t count;
    int32_t capacity;
    int64_t end;            /* one past the last byte written */
    int64_t items;          /* vectored writes expected: contiguous runs split every IOV_MAX ops */
    int64_t bytes;
};

static inline void wt_batch_add(struct wt_batch *b, const void *data, int64_t offset, int64_t length)
{
    if (b->count == b->capacity) {
        b->capacity = b->capacity ? b->capacity * 2 : 256;
        b->ops = realloc(b->ops, (size_t)b->capacity * sizeof *b->ops);
        CHECK(b->ops != NULL);
    }
    b->ops[b->count++] = (cairn_write_op){.data = data, .offset = offset, .length = length};
}

static inline void wt_batch_free(struct wt_batch *b)
{
    free(b->ops);
    memset(b, 0, sizeof *b);
}

/* Computes end, bytes and the expected number of vectored writes, independently of the library. */
static inline void wt_batch_finish(struct wt_batch *b)
{
    b->items = 0;
    b->bytes = 0;
    b->end = 0;
    int64_t previous_end = -1;
    int run = 0;
    for (int32_t i = 0; i < b->count; i++) {
        CHECK(b->ops[i].offset >= previous_end || i == 0);
        if (b->ops[i].offset != previous_end || run == WT_IOV_MAX) {
            b->items++;
            run = 0;
        }
        run++;
        previous_end = b->ops[i].offset + b->ops[i].length;
        b->bytes += b->ops[i].length;
    }
    b->end = previous_end > 0 ? previous_end : 0;
}

/* A run of `pages` consecutive pages starting at page `first`: one op per page when `single` (so a
 * long run has more ops than IOV_MAX), otherwise ops of 1-3 pages. Data comes from random pages of
 * `pool`, so consecutive ops point at unrelated memory. Returns the page after the run. */
static inline int64_t wt_add_run(struct wt_batch *b, uint64_t *rng, int64_t first, int64_t pages,
                                 int single, const char *pool, int64_t pool_pages)
{
    int64_t p = first;
    while (p < first + pages) {
        int64_t n = single ? 1 : 1 + (int64_t)(test_next_random(rng) % 3);
        if (p + n > first + pages)
            n = first + pages - p;
        int64_t source = (int64_t)(test_next_random(rng) % (uint64_t)(pool_pages - n + 1));
        wt_batch_add(b, pool + source * WT_PAGE, p * WT_PAGE, n * WT_PAGE);
        p += n;
    }
    return p;
}

/* Random short runs (1..max_run pages, gaps of 1..max_gap pages) over pages [first, limit), with
 * `long_runs` runs of more than IOV_MAX single-page ops placed at random points among them. */
static inline void wt_random_batch(struct wt_batch *b, uint64_t *rng, int64_t first, int64_t limit,
                                   int max_run, int max_gap, int long_runs, const char *pool,
                                   int64_t pool_pages)
{
    int64_t p = first + (int64_t)(test_next_random(rng) % 3);
    while (p < limit) {
        int64_t run;
        int single = 0;
        if (long_runs > 0 && test_next_random(rng) % 64 == 0) {
            run = WT_IOV_MAX + 1 + (int64_t)(test_next_random(rng) % 1200);
            single = 1;
            long_runs--;
        } else {
            run = 1 + (int64_t)(test_next_random(rng) % (uint64_t)max_run);
        }
        if (p + run > limit)
            run = limit - p;
        p = wt_add_run(b, rng, p, run, single, pool, pool_pages);
        p += 1 + (int64_t)(test_next_random(rng) % (uint64_t)max_gap);
    }
    wt_batch_finish(b);
}

/* The write calls (cairn_test_write_calls) a batch should take on a handle, buffered or `direct`.
 * POSIX: one vectored write per run of adjacent ops, split every IOV_MAX ops (b->items), either way.
 * Windows: WriteFileGather needs the unbuffered handle, so a buffered one takes a WriteFile per op;
 * a direct one takes runs of at most 256 ops (native/win/io_writer.c) as gathers of at most 512
 * pages (2 MiB, native/win/io_win.c) each. */
static inline int64_t wt_expected_writes(const struct wt_batch *b, int direct)
{
#ifdef _WIN32
    if (!direct)
        return b->count;
    const int64_t run_ops = 256, gather_bytes = 512 * 4096;
    int64_t writes = 0, run_bytes = 0, run = 0;
    for (int32_t i = 0; i < b->count; i++) {
        if (i > 0 && (b->ops[i].offset != b->ops[i - 1].offset + b->ops[i - 1].length || run == run_ops)) {
            writes += (run_bytes + gather_bytes - 1) / gather_bytes;
            run_bytes = 0;
            run = 0;
        }
        run++;
        run_bytes += b->ops[i].length;
    }
    return writes + (run_bytes + gather_bytes - 1) / gather_bytes;
#else
    (void)direct;
    return b->items;
#endif
}

/* Applies a batch to an expected image (which must be large enough). */
static inline void wt_apply(const struct wt_batch *b, char *image)
{
    for (int32_t i = 0; i < b->count; i++)
        memcpy(image + b->ops[i].offset, b->ops[i].data, (size_t)b->ops[i].length);
}

/* The file must hold exactly what batch `b` wrote over zeros (a fresh file, or one it covers). */
static inline void wt_check_batch(const char *path, const struct wt_batch *b)
{
    char *image = calloc(1, b->end > 0 ? (size_t)b->end : 1);
    CHECK(image != NULL);
    wt_apply(b, image);
    test_check_file(path, image, b->end);
    free(image);
}

/* Thread id of the io_uring worker ("cairn-io-ring"), or 0 if there is none (always, on Windows). */
#ifdef _WIN32
static inline long wt_worker_tid(void)
{
    return 0;
}
#else
static inline pid_t wt_worker_tid(void)
{
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    pid_t found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], comm[64] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        if (fgets(comm, sizeof comm, f) != NULL && strcmp(comm, "cairn-io-ring\n") == 0) {
            CHECK(found == 0); /* exactly one worker */
            found = (pid_t)atoi(e->d_name);
        }
        fclose(f);
    }
    closedir(d);
    return found;
}
#endif

/* Whether the io_uring worker thread is running, checked against whether it should (a build
 * without io_uring never has one). */
static inline void wt_check_ring_worker(int expected)
{
    CHECK((wt_worker_tid() != 0) == (expected && WT_HAS_URING));
}

static inline void wt_backend(int32_t expected_backend, int32_t expected_setup_error)
{
    int32_t backend = -1, setup_error = -1;
    CHECK_OK(cairn_io_backend(&backend, &setup_error, &test_last_os_error));
    if (backend != expected_backend || setup_error != expected_setup_error)
        fprintf(stderr, "backend %d setup_error %d, expected %d/%d\n", backend, setup_error,
                expected_backend, expected_setup_error);
    CHECK(backend == expected_backend);
    CHECK(setup_error == expected_setup_error);
}

#endif
