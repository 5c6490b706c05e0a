/* The io_uring worker thread itself: with CAIRN_IO_LOW_PRIORITY its I/O priority is
 * best-effort level 7 (read back with ioprio_get on the thread found by its name,
 * "cairn-io-ring") and writes and syncs carrying that priority in their SQEs succeed, buffered and
 * O_DIRECT; without the flag it keeps the default. It runs with signals blocked, and the calling
 * thread's own priority is never touched. */
#ifndef _GNU_SOURCE /* also passed by the build, which defines it to 1 */
#define _GNU_SOURCE
#endif
#include "writer_support.h"

#include <signal.h>

#define POOL_PAGES 512

static char *g_pool;

static int io_priority(pid_t tid)
{
    return (int)syscall(SYS_ioprio_get, WT_IOPRIO_WHO_PROCESS, (int)tid);
}

/* The thread's blocked-signal mask, from /proc. */
static unsigned long long blocked_signals(pid_t tid)
{
    char path[128], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    unsigned long long mask = 0;
    int found = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "SigBlk: %llx", &mask) == 1) {
            found = 1;
            break;
        }
    }
    fclose(f);
    CHECK(found);
    return mask;
}

static void write_through_ring(const char *dir, const char *name, int32_t flags, uint64_t seed)
{
    char *path = test_join(dir, name);
    cairn_file *f = test_open(path, CAIRN_OPEN_CREATE | flags, NULL);
    uint64_t rng = seed;
    struct wt_batch b = {0};
    wt_random_batch(&b, &rng, 0, 800, 6, 4, 0, g_pool, POOL_PAGES);
    CHECK_OK(cairn_write_gather(f, b.ops, b.count, CAIRN_BACKEND_IO_URING, &test_last_os_error));
    CHECK_OK(cairn_sync_gather(f, CAIRN_BACKEND_IO_URING, &test_last_os_error));
    wt_check_batch(path, &b);
    wt_batch_free(&b);
    test_close(f);
    free(path);
}

int main(void)
{
    char *dir = test_make_dir("writer-priority");
    g_pool = test_aligned_pattern((size_t)POOL_PAGES * WT_PAGE, 31);
    int own_priority = io_priority(0);
    CHECK(own_priority != -1);

    cairn_io_options low = {.flags = CAIRN_IO_LOW_PRIORITY, .ring_entries = 0, .reserved = 0};
    CHECK_OK(cairn_io_configure(&low, &test_last_os_error));
    wt_backend(CAIRN_BACKEND_IO_URING, 0);
    write_through_ring(dir, "low.dat", 0, 1);
    write_through_ring(dir, "low-direct.dat", CAIRN_OPEN_DIRECT, 2);

    pid_t tid = wt_worker_tid();
    CHECK(tid != 0);
    int priority = io_priority(tid);
    if (priority != WT_IOPRIO_BE_7)
        fprintf(stderr, "worker ioprio 0x%x, expected 0x%x\n", priority, WT_IOPRIO_BE_7);
    CHECK(priority == WT_IOPRIO_BE_7);
    CHECK(io_priority(0) == own_priority); /* only the worker was lowered */

    unsigned long long mask = blocked_signals(tid);
    int must_block[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGCHLD};
    for (size_t i = 0; i < sizeof must_block / sizeof must_block[0]; i++)
        CHECK(mask & (1ull << (must_block[i] - 1)));

    /* Without the flag the restarted worker keeps the default priority. */
    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
    cairn_io_options normal = {0};
    CHECK_OK(cairn_io_configure(&normal, &test_last_os_error));
    write_through_ring(dir, "normal.dat", 0, 3);
    tid = wt_worker_tid();
    CHECK(tid != 0);
    CHECK(io_priority(tid) != WT_IOPRIO_BE_7);

    CHECK_OK(cairn_io_shutdown(&test_last_os_error));
    test_free_aligned(g_pool);
    test_remove_dir(dir);
    free(dir);
    printf("test_writer_priority: ok\n");
    return 0;
}
