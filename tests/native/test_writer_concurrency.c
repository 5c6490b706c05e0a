/* Many threads submitting to the one io_uring worker at once: each thread writes batches (and
 * single pages, and syncs) to its own file and to its own region of one shared file, switching
 * between AUTO, IO_URING and PWRITEV; later batches overwrite earlier ones, so the file must show
 * each thread's writes in the order its calls returned. Run once with a 4-entry ring (the worker
 * is constantly full: submit, wait for completions, continue) and once with the default ring.
 * Also: every thread's completion eventfd is closed when the thread exits, and shutdowns and
 * reconfigurations racing with writers (the writer restarts under them) lose nothing. */
#ifndef _GNU_SOURCE /* also passed by the build, which defines it to 1 */
#define _GNU_SOURCE
#endif
#include "writer_support.h"

#ifndef _WIN32
#include <time.h>
#endif

#define THREADS 12
#define BATCHES 24
#define SINGLE_WRITES 200
#define REGION_PAGES 128 /* per thread: its own file, and its slice of the shared file */
#define POOL_PAGES 1024

static char *g_pool;
static char *g_shared_image;
static cairn_file *g_shared;

struct submitter {
    test_thread *thread;
    int index;
    uint64_t seed;
    char *path;
    cairn_file *file;
    char *image;
    int64_t end;
    int64_t shared_end;
};

static int32_t pick_mode(int i)
{
    if (i % 5 == 4)
        return WT_PLAIN;
    if (i % 3 == 1)
        return WT_RING;
    return CAIRN_BACKEND_AUTO;
}

static void *submit(void *arg)
{
    struct submitter *s = arg;
    uint64_t rng = s->seed;
    int32_t os_error = 0;
    const int64_t base = (int64_t)s->index * REGION_PAGES;
    for (int i = 0; i < BATCHES; i++) {
        struct wt_batch own = {0}, shared = {0};
        wt_random_batch(&own, &rng, 0, REGION_PAGES, 4, 6, 0, g_pool, POOL_PAGES);
        wt_random_batch(&shared, &rng, base, base + REGION_PAGES, 4, 6, 0, g_pool, POOL_PAGES);
        int32_t mode = pick_mode(i);
        CHECK(cairn_write_gather(s->file, own.ops, own.count, mode, &os_error) == CAIRN_OK);
        CHECK(cairn_write_gather(g_shared, shared.ops, shared.count, mode, &os_error) == CAIRN_OK);
        wt_apply(&own, s->image);
        wt_apply(&shared, g_shared_image); /* disjoint regions: no two threads touch the same bytes */
        if (own.end > s->end)
            s->end = own.end;
        if (shared.end > s->shared_end)
            s->shared_end = shared.end;
        if (i % 6 == 0) {
            CHECK(cairn_sync_gather(s->file, mode, &os_error) == CAIRN_OK);
            CHECK(cairn_sync_gather(g_shared, CAIRN_BACKEND_AUTO, &os_error) == CAIRN_OK);
        }
        wt_batch_free(&own);
        wt_batch_free(&shared);
    }
    /* Many tiny calls: one page each, one wake-up each. */
    for (int i = 0; i < SINGLE_WRITES; i++) {
        int64_t page = (int64_t)(test_next_random(&rng) % REGION_PAGES);
        const char *data = g_pool + (test_next_random(&rng) % POOL_PAGES) * WT_PAGE;
        cairn_write_op op = {data, page * WT_PAGE, WT_PAGE};
        CHECK(cairn_write_gather(s->file, &op, 1, CAIRN_BACKEND_AUTO, &os_error) == CAIRN_OK);
        memcpy(s->image + op.offset, data, WT_PAGE);
        if (op.offset + WT_PAGE > s->end)
            s->end = op.offset + WT_PAGE;
    }
    CHECK(os_error == 0);
    return NULL;
}

/* `shared_flags`: how the shared file is opened. A direct one is, on Windows, an overlapped handle
 * that every thread has I/O in flight on at once, each call waiting on an event of its own. */
static void run_phase(const char *dir, int32_t ring_entries, uint64_t seed, int32_t shared_flags)
{
    cairn_io_options options = {.flags = 0, .ring_entries = ring_entries, .reserved = 0};
    CHECK_OK(cairn_io_configure(&options, &test_last_os_error));
    wt_backend(WT_BACKEND, WT_SETUP_ERROR);

    char name[64];
    snprintf(name, sizeof name, "shared-%d.dat", (int)seed);
    char *shared_path = test_join(dir, name);
    g_shared = test_open(shared_path, CAIRN_OPEN_CREATE | shared_flags, NULL);
    g_shared_image = calloc(THREADS * REGION_PAGES, WT_PAGE);
    CHECK(g_shared_image != NULL);

    /* The main thread has used the writer (its eventfd exists); the threads' must not outlive them. */
    CHECK_OK(cairn_sync_gather(g_shared, CAIRN_BACKEND_AUTO, &test_last_os_error));
    struct submitter s[THREADS];
    for (int t = 0; t < THREADS; t++) {
        memset(&s[t], 0, sizeof s[t]);
        s[t].index = t;
        s[t].seed = seed * 1000 + (uint64_t)t;
        snprintf(name, sizeof name, "own-%d-%d.dat", (int)seed, t);
        s[t].path = test_join(dir, name);
        s[t].file = test_open(s[t].path, CAIRN_OPEN_CREATE, NULL);
        s[t].image = calloc(REGION_PAGES, WT_PAGE);
        CHECK(s[t].image != NULL);
    }
    int fds_before = test_count_open_fds();
    for (int t = 0; t < THREADS; t++)
        s[t].thread = test_thread_start(submit, &s[t]);
    for (int t = 0; t < THREADS; t++)
        test_thread_join(s[t].thread);
    CHECK(test_count_open_fds() == fds_before);

    int64_t shared_end = 0;
    for (int t = 0; t < THREADS; t++) {
        test_check_file(s[t].path, s[t].image, s[t].end);
        if (s[t].shared_end > shared_end)
            shared_end = s[t].shared_end;
        test_close(s[t].file);
        free(s[t].path);
        free(s[t].image);
    }
    test_check_file(shared_path, g_shared_image, shared_end);
    test_close(g_shared);
    free(shared_path);
    free(g_shared_image);
    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
}

/* Threads keep making one-page calls while the main thread shuts the writer down and
 * reconfigures it over and over: every call must still complete, on some worker, correctly. */
#define RACE_THREADS 8
#define RACE_CALLS 400
#define RACE_PAGES 32

struct racer {
    test_thread *thread;
    uint64_t seed;
    char *path;
    cairn_file *file;
    char *image;
};

static void *race(void *arg)
{
    struct racer *r = arg;
    uint64_t rng = r->seed;
    int32_t os_error = 0;
    for (int i = 0; i < RACE_CALLS; i++) {
        int64_t page = (int64_t)(test_next_random(&rng) % RACE_PAGES);
        const char *data = g_pool + (test_next_random(&rng) % POOL_PAGES) * WT_PAGE;
        cairn_write_op op = {data, page * WT_PAGE, WT_PAGE};
        int32_t mode = i % 4 == 0 ? WT_RING : CAIRN_BACKEND_AUTO;
        CHECK(cairn_write_gather(r->file, &op, 1, mode, &os_error) == CAIRN_OK);
        memcpy(r->image + op.offset, data, WT_PAGE);
    }
    return NULL;
}

static void run_restart_race(const char *dir)
{
    struct racer r[RACE_THREADS];
    for (int t = 0; t < RACE_THREADS; t++) {
        char name[32];
        snprintf(name, sizeof name, "race-%d.dat", t);
        r[t].seed = 500 + (uint64_t)t;
        r[t].path = test_join(dir, name);
        r[t].file = test_open(r[t].path, CAIRN_OPEN_CREATE, NULL);
        r[t].image = calloc(RACE_PAGES, WT_PAGE);
        CHECK(r[t].image != NULL);
        /* The last page first, so the file's size is known whatever the random pages are. */
        cairn_write_op last = {g_pool, (RACE_PAGES - 1) * WT_PAGE, WT_PAGE};
        CHECK_OK(cairn_write_gather(r[t].file, &last, 1, CAIRN_BACKEND_AUTO, &test_last_os_error));
        memcpy(r[t].image + last.offset, g_pool, WT_PAGE);
    }
    for (int t = 0; t < RACE_THREADS; t++)
        r[t].thread = test_thread_start(race, &r[t]);
    int configured = 0;
    for (int i = 0; i < 60; i++) {
        CHECK_OK(cairn_io_shutdown(&test_last_os_error));
        cairn_io_options options = {.flags = 0, .ring_entries = (i % 3) * 3 + 1, .reserved = 0};
        int32_t status = cairn_io_configure(&options, &test_last_os_error);
        /* Refused when a writer has already restarted the writer since the shutdown. */
        CHECK(status == CAIRN_OK || status == CAIRN_E_INVALID_ARGUMENT);
        configured += status == CAIRN_OK;
#ifdef _WIN32
        Sleep(1);
#else
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 300000};
        nanosleep(&pause, NULL);
#endif
    }
    for (int t = 0; t < RACE_THREADS; t++)
        test_thread_join(r[t].thread);
    for (int t = 0; t < RACE_THREADS; t++) {
        test_check_file(r[t].path, r[t].image, RACE_PAGES * WT_PAGE);
        test_close(r[t].file);
        free(r[t].path);
        free(r[t].image);
    }
    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
    cairn_io_options defaults = {0};
    CHECK_OK(cairn_io_configure(&defaults, &test_last_os_error));
    printf("restart race: %d of 60 reconfigurations got in before a writer restarted the writer\n", configured);
}

int main(void)
{
    char *dir = test_make_dir("writer-concurrency");
    g_pool = test_aligned_pattern((size_t)POOL_PAGES * WT_PAGE, 17);

    run_phase(dir, 4, 1, 0);                 /* tiny ring: 1 slot for the wake-up read, 3 for writes */
    run_phase(dir, 0, 2, 0);                 /* default: 256 */
    run_phase(dir, 0, 3, CAIRN_OPEN_DIRECT); /* the shared file direct */
    run_restart_race(dir);

    test_free_aligned(g_pool);
    test_remove_dir(dir);
    free(dir);
    printf("test_writer_concurrency: ok\n");
    return 0;
}
