/* The data-file writer's exports (POSIX): cairn_io_configure, cairn_io_backend, cairn_io_shutdown,
 * cairn_write_gather and cairn_sync_gather.
 *
 * A call validates its ops and groups them into work items - runs of ops that each start where the
 * previous one ends, at most IOV_MAX per item - in ONE allocation holding the items and their
 * iovecs; the checks and the runs come from common/write_ops.c, which Windows uses too. The
 * io_uring backend hands the items to the process-wide worker (io_uring_worker.c) and sleeps on
 * the calling thread's eventfd until the worker reports the whole call done; the pwritev backend
 * writes the same items on the calling thread through cairn_posix_pwritev_all, so both backends
 * issue the same writes and produce byte-identical files.
 *
 * Lifecycle. The writer starts on first use: it picks the backend once (io_uring unless configured
 * off or unavailable) and, for io_uring, creates the ring and the worker. `life` is a
 * writer-preferring rwlock: every call that goes through the ring holds it for reading until its
 * items are complete; starting, configuring and cairn_io_shutdown hold it for writing. So shutdown
 * waits for calls in flight, no call can push work to a worker that is stopping, and the first
 * call after a shutdown starts a fresh worker with the configuration current at that time.
 */
#include "io_writer.h"

#include "write_ops.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

static struct {
    pthread_rwlock_t life;
    int started;             /* the backend has been chosen (and the worker started, for io_uring) */
    int32_t backend;         /* CAIRN_BACKEND_IO_URING or CAIRN_BACKEND_PWRITEV, once started */
    int32_t setup_error;     /* why io_uring is not in use; 0 if it is or was not tried */
    int32_t flags;           /* configuration: CAIRN_IO_* */
    int32_t ring_entries;    /* configuration: 0 = default */
} g_writer = {
    .life = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP,
};

/* ---------------------------------------------------------------------------------------------
 * The calling thread's completion eventfd: created on first use, closed when the thread exits.
 * ------------------------------------------------------------------------------------------- */
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_notify_key;
static int g_key_error;
static __thread int t_notify_fd = -1;

static void close_notify_fd(void *value)
{
    close((int)((intptr_t)value - 1)); /* stored as fd + 1 so that descriptor 0 is not NULL */
    t_notify_fd = -1;
}

static void create_notify_key(void)
{
    g_key_error = pthread_key_create(&g_notify_key, close_notify_fd);
}

static int thread_notify_fd(int *fd)
{
    if (t_notify_fd < 0) {
        pthread_once(&g_key_once, create_notify_key);
        if (g_key_error != 0)
            return g_key_error;
        int created = eventfd(0, EFD_CLOEXEC);
        if (created < 0)
            return errno;
        int error = pthread_setspecific(g_notify_key, (void *)(intptr_t)(created + 1));
        if (error != 0) {
            close(created);
            return error;
        }
        t_notify_fd = created;
    }
    *fd = t_notify_fd;
    return 0;
}

/* Sleeps until the worker has completed every item of the call. The worker writes the caller's
 * eventfd exactly once per call, after the last item, and every call consumes its write before
 * returning, so the counter is zero when a call starts and the first successful read is this
 * call's completion (the check of `pending` only guards that reasoning). */
static void wait_for_call(struct cairn_io_call *call)
{
    for (;;) {
        uint64_t value;
        ssize_t n = read(call->notify_fd, &value, sizeof value);
        if (n == (ssize_t)sizeof value) {
            if (atomic_load_explicit(&call->pending, memory_order_acquire) == 0)
                return;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        /* The descriptor was closed or replaced behind the library's back. Never hang: watch the
         * count instead, and stop using (and owning) that descriptor number. */
        t_notify_fd = -1;
        (void)pthread_setspecific(g_notify_key, NULL);
        while (atomic_load_explicit(&call->pending, memory_order_acquire) != 0) {
            struct timespec pause = {.tv_sec = 0, .tv_nsec = 50000};
            nanosleep(&pause, NULL);
        }
        return;
    }
}

/* Runs `count` prepared items through the worker and waits for all of them. */
static int32_t run_on_ring(struct cairn_io_work *items, int32_t count, int32_t *os_error)
{
    int notify_fd = -1;
    int error = thread_notify_fd(&notify_fd);
    if (error != 0)
        return cairn_fail(error, os_error);

    struct cairn_io_call call;
    atomic_init(&call.pending, count);
    atomic_init(&call.error, 0);
    call.notify_fd = notify_fd;
    for (int32_t i = 0; i < count; i++) {
        items[i].call = &call;
        items[i].next = i > 0 ? &items[i - 1] : NULL;
        items[i].retries = 0;
    }
    cairn_uring_push(&items[count - 1], &items[0]);
    wait_for_call(&call);

    error = atomic_load_explicit(&call.error, memory_order_acquire);
    return error != 0 ? cairn_fail(error, os_error) : cairn_ok(os_error);
}

/* ---------------------------------------------------------------------------------------------
 * Lifecycle.
 * ------------------------------------------------------------------------------------------- */
static pthread_once_t g_fork_once = PTHREAD_ONCE_INIT;

/* A forked child has no worker thread, and the parent's ring and the forking thread's eventfd are
 * shared with the parent: forget them so the child's first use starts its own. */
static void after_fork_child(void)
{
    static const pthread_rwlock_t fresh = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
    memcpy(&g_writer.life, &fresh, sizeof fresh);
    cairn_uring_forget_after_fork();
    g_writer.started = 0;
    if (t_notify_fd >= 0) {
        close(t_notify_fd);
        t_notify_fd = -1;
        (void)pthread_setspecific(g_notify_key, NULL);
    }
}

static void register_fork_handler(void)
{
    (void)pthread_atfork(NULL, NULL, after_fork_child);
}

/* Chooses the backend. Called with `life` held for writing. */
static void start_locked(void)
{
    pthread_once(&g_fork_once, register_fork_handler);
    g_writer.backend = CAIRN_BACKEND_PWRITEV;
    g_writer.setup_error = 0;
    if ((g_writer.flags & CAIRN_IO_FORCE_PWRITEV) == 0) {
        int32_t injected = 0;
        if (cairn_fault_on_uring_setup(&injected)) {
            g_writer.setup_error = injected;
        } else {
            unsigned entries = g_writer.ring_entries > 0 ? (unsigned)g_writer.ring_entries
                                                         : CAIRN_IO_DEFAULT_RING_ENTRIES;
            int error = cairn_uring_start(entries, (g_writer.flags & CAIRN_IO_LOW_PRIORITY) != 0);
            if (error == 0)
                g_writer.backend = CAIRN_BACKEND_IO_URING;
            else
                g_writer.setup_error = error; /* EPERM/ENOSYS (seccomp, io_uring_disabled), ENOMEM, ... */
        }
    }
    g_writer.started = 1;
}

/* Returns 0 with `life` held for reading and the writer started, or a pthread error. */
static int acquire_started(void)
{
    for (;;) {
        int error = pthread_rwlock_rdlock(&g_writer.life);
        if (error != 0)
            return error;
        if (g_writer.started)
            return 0;
        pthread_rwlock_unlock(&g_writer.life);
        error = pthread_rwlock_wrlock(&g_writer.life);
        if (error != 0)
            return error;
        if (!g_writer.started)
            start_locked();
        pthread_rwlock_unlock(&g_writer.life);
    }
}

CAIRN_EXPORT int32_t cairn_io_configure(const cairn_io_options *options, int32_t *os_error)
{
    if (!cairn_io_options_valid(options))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    int error = pthread_rwlock_wrlock(&g_writer.life);
    if (error != 0)
        return cairn_fail(error, os_error);
    int32_t status = CAIRN_OK;
    if (g_writer.started) {
        status = CAIRN_E_INVALID_ARGUMENT; /* too late: shut the writer down first */
    } else {
        g_writer.flags = options->flags;
        g_writer.ring_entries = options->ring_entries;
    }
    pthread_rwlock_unlock(&g_writer.life);
    return cairn_status(status, os_error);
}

CAIRN_EXPORT int32_t cairn_io_backend(int32_t *backend, int32_t *setup_error, int32_t *os_error)
{
    if (backend == NULL || setup_error == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    int error = acquire_started();
    if (error != 0)
        return cairn_fail(error, os_error);
    *backend = g_writer.backend;
    *setup_error = g_writer.setup_error;
    pthread_rwlock_unlock(&g_writer.life);
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_io_shutdown(int32_t *os_error)
{
    int error = pthread_rwlock_wrlock(&g_writer.life);
    if (error != 0)
        return cairn_fail(error, os_error);
    if (g_writer.started) {
        if (g_writer.backend == CAIRN_BACKEND_IO_URING)
            cairn_uring_stop();
        g_writer.started = 0;
    }
    pthread_rwlock_unlock(&g_writer.life);
    return cairn_ok(os_error);
}

/* ---------------------------------------------------------------------------------------------
 * Writes and syncs.
 * ------------------------------------------------------------------------------------------- */

/* CAIRN_OK for the modes this platform can run, otherwise the status to return. */
static int32_t check_mode(int32_t mode)
{
    switch (mode) {
    case CAIRN_BACKEND_AUTO:
    case CAIRN_BACKEND_IO_URING:
    case CAIRN_BACKEND_PWRITEV:
        return CAIRN_OK;
    case CAIRN_BACKEND_WIN32:
        return CAIRN_E_UNSUPPORTED;
    default:
        return CAIRN_E_INVALID_ARGUMENT;
    }
}

struct write_plan {
    struct cairn_io_work *items; /* the allocation; the iovecs follow the items */
    int32_t item_count;
};

/* Groups a valid batch into items, one per run of at most IOV_MAX adjacent ops (write_ops.c
 * decides the runs), in one allocation. Returns CAIRN_OK or CAIRN_E_OUT_OF_MEMORY. */
static int32_t plan_writes(struct cairn_file *file, const cairn_write_op *ops, int32_t count,
                           struct write_plan *plan)
{
    int32_t items = 0;
    for (int32_t first = 0; first < count; first += cairn_write_run_length(ops + first, count - first, IOV_MAX))
        items++;

    size_t bytes = (size_t)items * sizeof(struct cairn_io_work) + (size_t)count * sizeof(struct iovec);
    struct cairn_io_work *block = malloc(bytes);
    if (block == NULL)
        return CAIRN_E_OUT_OF_MEMORY;
    struct iovec *iov = (struct iovec *)(block + items);

    struct cairn_io_work *item = block;
    for (int32_t first = 0; first < count; item++) {
        int32_t run = cairn_write_run_length(ops + first, count - first, IOV_MAX);
        memset(item, 0, sizeof *item);
        item->kind = CAIRN_WORK_WRITE;
        item->fd = file->fd;
        item->path = file->path;
        item->iov = &iov[first];
        item->iov_count = run;
        item->offset = ops[first].offset;
        item->capped_index = -1;
        for (int32_t i = first; i < first + run; i++) {
            iov[i].iov_base = (void *)ops[i].data;
            iov[i].iov_len = (size_t)ops[i].length;
            item->remaining += ops[i].length; /* cannot overflow: the run is contiguous and ends <= INT64_MAX */
        }
        first += run;
    }
    plan->items = block;
    plan->item_count = items;
    return CAIRN_OK;
}

/* The pwritev backend: the same items, written one after the other on the calling thread. */
static int32_t write_plan_sync(struct cairn_file *file, const struct write_plan *plan, int32_t *os_error)
{
    for (int32_t i = 0; i < plan->item_count; i++) {
        const struct cairn_io_work *item = &plan->items[i];
        int32_t status = cairn_posix_pwritev_all(file, item->iov, item->iov_count, item->offset, os_error);
        if (status != CAIRN_OK)
            return status;
    }
    return cairn_ok(os_error);
}

/* For AUTO and IO_URING modes: 1 = use the ring, and `life` is then held for reading; 0 = write
 * synchronously; -1 = fail with *status. */
static int route(int32_t mode, int32_t *status, int32_t *os_error)
{
    int error = acquire_started();
    if (error != 0) {
        *status = cairn_fail(error, os_error);
        return -1;
    }
    if (g_writer.backend == CAIRN_BACKEND_IO_URING)
        return 1;
    int32_t setup_error = g_writer.setup_error;
    pthread_rwlock_unlock(&g_writer.life);
    if (mode == CAIRN_BACKEND_IO_URING) {
        /* Unavailable: report why, when the OS said why. */
        if (os_error)
            *os_error = setup_error;
        *status = CAIRN_E_UNSUPPORTED;
        return -1;
    }
    return 0;
}

CAIRN_EXPORT int32_t cairn_write_gather(cairn_file *file, const cairn_write_op *ops, int32_t count,
                                        int32_t mode, int32_t *os_error)
{
    int32_t status = check_mode(mode);
    if (status != CAIRN_OK)
        return cairn_status(status, os_error);
    if (file == NULL || !cairn_write_ops_valid(file->flags, ops, count))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (count <= 0)
        return cairn_ok(os_error); /* nothing to write (a negative count was refused above) */

    struct write_plan plan;
    if (plan_writes(file, ops, count, &plan) != CAIRN_OK)
        return cairn_fail(ENOMEM, os_error);

    int ring = mode == CAIRN_BACKEND_PWRITEV ? 0 : route(mode, &status, os_error);
    if (ring == 1) {
        status = run_on_ring(plan.items, plan.item_count, os_error);
        pthread_rwlock_unlock(&g_writer.life);
    } else if (ring == 0) {
        status = write_plan_sync(file, &plan, os_error);
    }
    free(plan.items);
    return status;
}

CAIRN_EXPORT int32_t cairn_sync_gather(cairn_file *file, int32_t mode, int32_t *os_error)
{
    int32_t status = check_mode(mode);
    if (status != CAIRN_OK)
        return cairn_status(status, os_error);
    if (file == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);

    int ring = mode == CAIRN_BACKEND_PWRITEV ? 0 : route(mode, &status, os_error);
    if (ring == 1) {
        struct cairn_io_work item;
        memset(&item, 0, sizeof item);
        item.kind = CAIRN_WORK_SYNC;
        item.fd = file->fd;
        item.path = file->path;
        item.capped_index = -1;
        status = run_on_ring(&item, 1, os_error);
        pthread_rwlock_unlock(&g_writer.life);
    } else if (ring == 0) {
        status = cairn_posix_fdatasync(file, os_error);
    }
    return status;
}
