/* The data-file writer (Windows). There is no io_uring and no worker thread: each batch is
 * written synchronously on the calling thread. The configure-before-start contract of the POSIX
 * worker is kept all the same, so callers behave identically on both platforms. */
#include "win_internal.h"

#include "write_ops.h"

/* Most adjacent ops handed to the write primitive in one call (the Windows counterpart of
 * IOV_MAX, which sizes the buffer array on the stack). */
#define RUN_CHUNK 256

static SRWLOCK g_lock = SRWLOCK_INIT;
static int g_started;   /* "the worker has started": set by first use, cleared by shutdown */
static int32_t g_flags; /* CAIRN_IO_* from the last cairn_io_configure */

/* Marks the writer started and returns its flags. */
static int32_t writer_use(void)
{
    AcquireSRWLockShared(&g_lock);
    int started = g_started;
    int32_t flags = g_flags;
    ReleaseSRWLockShared(&g_lock);
    if (!started) {
        AcquireSRWLockExclusive(&g_lock);
        g_started = 1;
        flags = g_flags;
        ReleaseSRWLockExclusive(&g_lock);
    }
    return flags;
}

CAIRN_EXPORT int32_t cairn_io_configure(const cairn_io_options *options, int32_t *os_error)
{
    if (!cairn_io_options_valid(options))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    AcquireSRWLockExclusive(&g_lock);
    int started = g_started;
    if (!started)
        g_flags = options->flags; /* FORCE_PWRITEV and ring_entries mean nothing without io_uring */
    ReleaseSRWLockExclusive(&g_lock);
    return cairn_status(started ? CAIRN_E_INVALID_ARGUMENT : CAIRN_OK, os_error);
}

CAIRN_EXPORT int32_t cairn_io_backend(int32_t *backend, int32_t *setup_error, int32_t *os_error)
{
    if (backend == NULL || setup_error == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    writer_use();
    *backend = CAIRN_BACKEND_WIN32;
    *setup_error = 0; /* io_uring was not tried */
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_io_shutdown(int32_t *os_error)
{
    AcquireSRWLockExclusive(&g_lock);
    g_started = 0;
    ReleaseSRWLockExclusive(&g_lock);
    return cairn_ok(os_error);
}

static int32_t check_mode(int32_t mode)
{
    switch (mode) {
    case CAIRN_BACKEND_AUTO:
    case CAIRN_BACKEND_WIN32:
        return CAIRN_OK;
    case CAIRN_BACKEND_IO_URING:
    case CAIRN_BACKEND_PWRITEV:
        return CAIRN_E_UNSUPPORTED;
    default:
        return CAIRN_E_INVALID_ARGUMENT;
    }
}

/* The per-handle I/O priority hint is the Windows counterpart of ioprio_set: it lowers the
 * priority of this handle's I/O only, where SetThreadPriority would also slow the caller's CPU
 * work. Handles start at normal priority, so normal is only set to undo an earlier low. */
static void apply_priority(struct cairn_file *file, int32_t writer_flags)
{
    PRIORITY_HINT wanted = (writer_flags & CAIRN_IO_LOW_PRIORITY) ? IoPriorityHintLow : IoPriorityHintNormal;
    LONG tag = (LONG)wanted + 1;
    LONG current = InterlockedCompareExchange(&file->io_priority, 0, 0);
    if (current == tag || (current == 0 && wanted == IoPriorityHintNormal))
        return;
    /* The structure must be 8-byte aligned. */
    union {
        FILE_IO_PRIORITY_HINT_INFO info;
        LONGLONG alignment;
    } hint;
    hint.alignment = 0;
    hint.info.PriorityHint = wanted;
    /* Only a hint: a file system that refuses it still writes correctly. The tag is recorded
     * either way, so a refusing handle costs one call rather than one per batch. */
    (void)SetFileInformationByHandle(file->handle, FileIoPriorityHintInfo, &hint.info, sizeof hint.info);
    InterlockedExchange(&file->io_priority, tag);
}

/* Writes one run of adjacent ops (at most RUN_CHUNK) as one buffer list at the run's offset. */
static int32_t write_run(struct cairn_file *file, const cairn_write_op *ops, int32_t count, int32_t *os_error)
{
    cairn_buffer buffers[RUN_CHUNK];
    for (int32_t i = 0; i < count; i++) {
        buffers[i].data = ops[i].data;
        buffers[i].length = ops[i].length;
    }
    return cairn_win_write_all(file, buffers, count, ops[0].offset, os_error);
}

CAIRN_EXPORT int32_t cairn_write_gather(cairn_file *file, const cairn_write_op *ops, int32_t count,
                                        int32_t mode, int32_t *os_error)
{
    int32_t status = check_mode(mode);
    if (status != CAIRN_OK)
        return cairn_status(status, os_error);
    if (file == NULL || !cairn_write_ops_valid(file->flags, ops, count))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (count == 0)
        return cairn_ok(os_error);

    apply_priority(file, writer_use());
    for (int32_t first = 0; first < count;) {
        int32_t n = cairn_write_run_length(ops + first, count - first, RUN_CHUNK);
        status = write_run(file, ops + first, n, os_error);
        if (status != CAIRN_OK)
            return status;
        first += n;
    }
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_sync_gather(cairn_file *file, int32_t mode, int32_t *os_error)
{
    int32_t status = check_mode(mode);
    if (status != CAIRN_OK)
        return cairn_status(status, os_error);
    if (file == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    apply_priority(file, writer_use());
    return cairn_win_flush(file, os_error);
}
